// llama.cpp prompt processing without flash attention (inference_speed.cc score traffic).
#include <gtest/gtest.h>

#include "gpusizer/speed.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

double pp(int64_t prompt, bool flash) {
  const Catalog& cat = Catalog::builtin();
  Scenario s = unit_scenario({.model = "llama-2-7b",
                              .weights = "fp16",
                              .kv_cache = "fp16",
                              .engine = "llama.cpp",
                              .gpu = "a100-pcie-80gb"});
  s.batch = 1;
  s.prompt_len = prompt;
  s.output_len = 1;
  s.seq_len = prompt + 1;
  s.training.flash_attention = flash;
  return *estimate_speed(s, cat, MemoryEstimate{}, nullptr).prefill_tokens_per_s;
}

TEST(LlamaCppScores, LongPromptsSlowDownWithoutFlashAttention) {
  // llama.cpp PR #6017 (one A100 PCIe 80GB, llama 7B F16, no flash attention): pp512 8,668 t/s,
  // pp8192 5,112 t/s, a ratio of 0.59. The materialised scores grow with n_kv: at pp8192 each
  // 512-token ubatch moves 512 x ~4,350 keys x 32 heads x 32 layers x 16 B = 36 GB on average,
  // against 6.6 TFLOP of GEMMs.
  const double ratio = pp(8192, false) / pp(512, false);
  EXPECT_GT(ratio, 0.5);
  EXPECT_LT(ratio, 0.7);
  // With flash attention only the causal attention FLOPs grow (4 x 4,096 q_width x 4,096 mean
  // context x 32 layers = 2.1 GFLOP per token against 13.5 GFLOP of GEMMs at pp8192, run at the
  // attention kernels' rate): the slowdown is far smaller.
  EXPECT_GT(pp(8192, true) / pp(512, true), 0.75);
}

}  // namespace
}  // namespace gpusizer
