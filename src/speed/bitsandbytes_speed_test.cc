// bitsandbytes kernels in Hugging Face generate (inference_speed.cc, data/speed.json).
#include <gtest/gtest.h>

#include "gpusizer/speed.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

Scenario make(const std::string& weights, int64_t prompt, int64_t batch = 1) {
  Scenario s = unit_scenario(
      {.model = "llama-2-7b", .weights = weights, .kv_cache = "fp16", .gpu = "a10g-24gb"});
  s.batch = batch;
  s.prompt_len = prompt;
  s.output_len = 100;
  s.seq_len = prompt + 100;
  return s;
}

PerformanceEstimate run(const Scenario& s) {
  return estimate_speed(s, Catalog::builtin(), MemoryEstimate{}, nullptr);
}

TEST(Bitsandbytes, Nf4DecodeIsSlowerThanFp16AtBatchOne) {
  // Weights fall from 13.5 GB to 3.8 GB, which saves at most 9.7e9 / 600e9 = 16 ms of a step;
  // the 7 x 32 = 224 Linear4bit calls per token cost 224 x 120 us = 27 ms on the host. Measured
  // on an A10G: 37 ms fp16, 42 ms nf4, 164 ms LLM.int8 per token (optimum-quanto PR #62).
  const double fp16 = *run(make("fp16", 10)).tpot_ms;
  const double nf4 = *run(make("nf4", 10)).tpot_ms;
  const double int8 = *run(make("int8", 10)).tpot_ms;
  EXPECT_GT(nf4, fp16);
  EXPECT_GT(int8, 2.5 * fp16);  // 224 x 650 us = 146 ms of host time per token
  EXPECT_GT(int8, nf4);
}

TEST(Bitsandbytes, Nf4PrefillDequantizesEveryWeight) {
  // A 2,048-token pass cannot use the fused gemv: each of the 6.48e9 matrix weights is
  // dequantized to a 16-bit copy first (0.52 B read + 2 B written = 16.3 GB at 600 GB/s =
  // 27 ms more than fp16 at least), so the TTFT of nf4 exceeds fp16's.
  const double fp16 = *run(make("fp16", 2048)).ttft_ms;
  const double nf4 = *run(make("nf4", 2048)).ttft_ms;
  EXPECT_GT(nf4, fp16 + 20.0);
}

}  // namespace
}  // namespace gpusizer
