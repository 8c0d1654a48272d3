// The tensor-parallel all-reduces of a batch-1 decode step, from the shipped link figures: the
// latency is NCCL's measured small-message all-reduce time (data/speed.json links), not a fit.
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "speed/inference_speed.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

Scenario tp_decode(int64_t tp) {
  Scenario s = unit_scenario({.model = "llama-2-7b", .engine = "vllm", .gpu = "a100-sxm4-80gb"});
  s.batch = 1;
  s.parallel.tp = tp;
  return s;
}

// vLLM's device-communicator benchmarks time one NCCL all-reduce of up to 1 MiB at 21-29 us
// (pynccl, H100 TP4: vllm-project/vllm PR #24532; B300 TP8: PR #37756); the shipped figure is
// 25 us for NVLink and PCIe.
TEST(TpLatency, ShippedLatencyIsTheMeasuredNcclFigure) {
  const LinkProfile& links = Catalog::builtin().speed().links();
  EXPECT_NEAR(links.nvlink_latency_s, 25e-6, 1e-12);
  EXPECT_NEAR(links.pcie_latency_s, 25e-6, 1e-12);
}

// Llama-2-7B, one token, TP8 on A100 SXM (NVLink 600 GB/s both ways, 300 one way, x 0.8 NCCL
// efficiency = 2.4e11 B/s; so small a message takes NCCL's LL protocol, at half of it): each
// all-reduce moves 4096 x 2 B = 8192 B, the ring term is 2 x 2 x 7/8 x 8192 / 2.4e11 = 1.195e-7
// s, plus 25 us; 2 per layer x 32 layers = 64 of them: 64 x 2.51195e-5 = 1.60765e-3 s per step,
// the same with TP2 except the ring term (2 x 2 x 1/2 x 8192 / 2.4e11 = 6.83e-8 s): 64 x
// 2.50683e-5 = 1.60437e-3 s. Then the sampled token's logits are gathered, 32,000 x 2 B = 64,000
// B: 2 x 7/8 x 64,000 / 2.4e11 + 25 us = 2.54667e-5 s (TP2: 2 x 1/2 x ... = 2.52667e-5 s),
// 1.63311e-3 and 1.62964e-3 s in all.
TEST(TpLatency, BatchOneDecodePaysTheAllReduceLatencyPerLayer) {
  const SpeedProfile& profile = Catalog::builtin().speed();
  std::string why;
  for (const auto& [tp, expected] :
       {std::pair{int64_t{8}, 1.63311e-3}, std::pair{int64_t{2}, 1.62964e-3}}) {
    SCOPED_TRACE(tp);
    const auto setup = inference_setup(tp_decode(tp), profile, why);
    ASSERT_TRUE(setup) << why;
    EXPECT_NEAR(decode_step(*setup, 1, 256).pass.comm_s, expected, 1e-7);
  }
}

}  // namespace
}  // namespace gpusizer
