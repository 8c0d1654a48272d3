// Decode attention that reads the KV cache once per query head (TensorRT-LLM before 0.7.1:
// data/speed.json inference.engines.trtllm.releases."0.6".kv_read_per_query_head),
// inference_speed.cc.
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "speed/inference_speed.h"
#include "speed/model_costs.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

Scenario trtllm(const std::string& model, const std::string& version) {
  Scenario s = unit_scenario({.model = model,
                              .weights = "fp8",
                              .kv_cache = "fp8",
                              .engine = "trtllm",
                              .gpu = "h100-sxm5-80gb"});
  s.engine_version = version;
  s.batch = 64;
  return s;
}

// Llama-2-70B: 80 layers, 64 query heads over 8 KV heads of 128. One token's FP8 cache is
// 80 x 2 x 8 x 128 x 1 B = 163,840 B; a sequence at 1,000 tokens holds 163,840,000 B, which the
// 0.6 kernel reads once per query head: x 64 / 8 = 1,310,720,000 B per decode step.
TEST(KvReadPerQueryHead, GroupedQueryCacheIsReadOncePerQueryHeadInTrtllm06) {
  std::string why;
  const auto old = inference_setup(trtllm("llama-2-70b", "0.6"), Catalog::builtin().speed(), why);
  ASSERT_TRUE(old) << why;
  EXPECT_DOUBLE_EQ(old->kv_read_factor, 8.0);
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(old->costs, 1000) * old->kv_read_factor, 1310720000.0);
  const auto now = inference_setup(trtllm("llama-2-70b", "1.0"), Catalog::builtin().speed(), why);
  ASSERT_TRUE(now) << why;
  EXPECT_DOUBLE_EQ(now->kv_read_factor, 1.0);
  // The 0.6 step of 64 sequences reads 7 x 64 x 163,840,000 B more on one GPU. Each release
  // moves its bytes at its own achieved bandwidth (peak x bw_eff x the vendor scale, stage_pass;
  // 0.6 has figures of its own), so the bytes are compared: time x bandwidth.
  auto bytes = [](const InferenceSetup& s) {
    return decode_step(s, 64, 1000).pass.cache_s * s.bandwidth * s.engine.bw_eff *
           s.vendor.bw_scale;
  };
  EXPECT_NEAR(bytes(*old) - bytes(*now), 7.0 * 64.0 * 163840000.0, 1.0);
}

// Llama-2-7B has as many KV heads as query heads (MHA): nothing to read twice.
TEST(KvReadPerQueryHead, MultiHeadModelsAreUnaffected) {
  std::string why;
  const auto s = inference_setup(trtllm("llama-2-7b", "0.6"), Catalog::builtin().speed(), why);
  ASSERT_TRUE(s) << why;
  EXPECT_DOUBLE_EQ(s->kv_read_factor, 1.0);
}

}  // namespace
}  // namespace gpusizer
