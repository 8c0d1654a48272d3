// Links by topology (gpus.csv fast_link_domain, pcie_gen, scaleout_gbps_per_gpu): a group uses
// the fabric only when it fits the GPU's NVLink/xGMI domain.
#include "speed/collectives.h"

#include <gtest/gtest.h>

#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

const LinkProfile& links() {
  return Catalog::builtin().speed().links();
}
const Gpu& gpu(const char* id) {
  return Catalog::builtin().gpu(id);
}

TEST(Topology, BridgedPairIsNotAFabric) {
  // A100 PCIe: an NVLink bridge joins 2 cards (600 GB/s both ways, 300 one way x 0.8 eff).
  EXPECT_EQ(group_link(gpu("a100-pcie-80gb"), 2, 8, links()).name, "NVLink");
  EXPECT_NEAR(group_link(gpu("a100-pcie-80gb"), 2, 8, links()).bytes_per_s, 300e9 * 0.8, 1);
  // 8 of them: the ring crosses PCIe Gen4 x16 (16 x 1.969 GB/s x 0.6 eff).
  const Link eight = group_link(gpu("a100-pcie-80gb"), 8, 8, links());
  EXPECT_EQ(eight.name, "PCIe");
  EXPECT_NEAR(eight.bytes_per_s, 16 * 1.969e9 * 0.6, 1);
  EXPECT_EQ(group_link(gpu("rtx-3090-24gb"), 2, 8, links()).name, "NVLink");
  EXPECT_EQ(group_link(gpu("rtx-3090-24gb"), 4, 8, links()).name, "PCIe");
  // The SXM4 board: all 8 on NVSwitch.
  EXPECT_EQ(group_link(gpu("a100-sxm4-80gb"), 8, 8, links()).name, "NVLink");
}

TEST(Topology, NetworkAndRackScaleDomains) {
  // 16 H100 across two nodes: the per-GPU NIC, 400 Gb/s = 50 GB/s x 0.8 eff.
  const Link net = group_link(gpu("h100-sxm5-80gb"), 16, 8, links());
  EXPECT_EQ(net.name, "network");
  EXPECT_NEAR(net.bytes_per_s, 50e9 * 0.8, 1);
  // DGX A100: 200 Gb/s HDR per GPU = 25 GB/s.
  EXPECT_NEAR(group_link(gpu("a100-sxm4-80gb"), 16, 8, links()).bytes_per_s, 25e9 * 0.8, 1);
  // GB200 NVL72: 16 GPUs stay on NVLink across compute trays (1800 GB/s both ways).
  EXPECT_EQ(group_link(gpu("gb200-186gb"), 16, 8, links()).name, "NVLink");
  // An HGX board cannot span nodes of 4 the user describes.
  EXPECT_EQ(group_link(gpu("h100-sxm5-80gb"), 8, 4, links()).name, "network");
}

// NCCL's two protocols on 8 H100s (900 GB/s both ways: 450 one way x 0.8 = 360 GB/s, 25 us):
// an all-reduce of S bytes puts 2 x 7/8 x S on each link. LL at half the bandwidth from the
// 25 us start, Simple at the whole of it 29 us later. Published 8 x H100 NCCL all-reduce times
// (ByteDance-Seed/Triton-distributed issue #57, torch.distributed) beside each.
TEST(Protocols, EightH100AllReduces) {
  const Link link = group_link(gpu("h100-sxm5-80gb"), 8, 8, links());
  ASSERT_NEAR(link.bytes_per_s, 360e9, 1);
  // 16 KiB, one token's hidden states of a 8,192-wide model: LL, 25 + 2 x 28,672 / 360e9 s =
  // 25.159 us (Simple would be 54.08 us).
  EXPECT_NEAR(allreduce_s(16384, 8, link), 25.159e-6, 0.001e-6);
  // 4 MiB: LL 25 + 2 x 20.389 = 65.78 us against Simple's 74.39 (59.4 us measured).
  EXPECT_NEAR(allreduce_s(4194304, 8, link), 65.777e-6, 0.001e-6);
  // 16 MiB, a 1,024-sequence decode step's: Simple, 25 + 29 + 1.75 x 16,777,216 / 360e9 s =
  // 135.555 us (135.7 us measured); LL would take 188.1 us.
  EXPECT_NEAR(allreduce_s(16777216, 8, link), 135.555e-6, 0.001e-6);
}

PerformanceEstimate perf(const char* gpu_id, int64_t tp) {
  const Catalog& cat = Catalog::builtin();
  const Scenario s = resolve_scenario({{"model", "llama-3.1-8b"},
                                       {"gpu", gpu_id},
                                       {"gpu_count", tp},
                                       {"engine", "vllm"},
                                       {"parallel", {{"tp", tp}}}},
                                      cat);
  return *estimate(s, cat).performance;
}

double tokens_per_s(const char* gpu_id, int64_t tp) {
  return perf(gpu_id, tp).max_output_tokens_per_s.value_or(0);
}

// The cases: A100 PCIe at TP8 crosses PCIe and is slower than SXM4's NVSwitch (same
// 80 GB, 1935 vs 2039 GB/s); 8 x RTX 3090 at TP8 (bridge pairs, PCIe between them) is not
// faster than 8 x RTX 4090 (1008 vs 936 GB/s, both over PCIe).
TEST(Topology, SpeedUsesTheLinkCrossed) {
  EXPECT_LT(tokens_per_s("a100-pcie-80gb", 8), tokens_per_s("a100-sxm4-80gb", 8));
  EXPECT_LE(tokens_per_s("rtx-3090-24gb", 8), tokens_per_s("rtx-4090-24gb", 8));
  // Batch-1 decode too: a PCIe all-reduce is no faster than an NVLink one (speed.json latencies).
  EXPECT_GT(*perf("a100-pcie-80gb", 8).tpot_ms, *perf("a100-sxm4-80gb", 8).tpot_ms);
}

}  // namespace
}  // namespace gpusizer
