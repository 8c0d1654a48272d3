// A prompt processed in chunks through pipeline stages (prefill_time, inference_speed.cc): the
// chunks pass the first stage one after another and each group in flight drains through the
// others at the pace of its last chunk, the slowest, whose attention sees the most keys.
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "speed/inference_speed.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

// llama.cpp without flash attention over two layer-split stages, with every term but the
// materialised scores taken out: no GEMM FLOPs or weight bytes, no cache or activation traffic,
// no fixed costs, attention FLOPs at an unbounded rate. A 512-token chunk whose queries compute
// against n_kv keys then moves 512 x n_kv x 32 heads x 32 layers x 16 B of scores on its stage's
// half of the layers, at llama.cpp's bandwidth ceiling: u x n_kv seconds.
InferenceSetup scores_only() {
  Scenario sc = unit_scenario({.model = "llama-2-7b",
                               .weights = "fp16",
                               .kv_cache = "fp16",
                               .engine = "llama.cpp",
                               .gpu = "a100-pcie-80gb"});
  sc.training.flash_attention = false;
  sc.gpu_count = 2;
  sc.parallel.pp = 2;
  std::string why;
  auto s = inference_setup(sc, Catalog::builtin().speed(), why);
  EXPECT_TRUE(s) << why;
  InferenceSetup out = s ? *s : InferenceSetup{};
  out.costs.matmul_flops_per_token = 0;
  out.costs.dense_weight_bytes = 0;
  out.costs.kv_bytes_per_token_layer = 0;
  out.costs.activation_bytes_per_token = 0;
  out.peak_flops = 1e30;
  out.engine.step_overhead_s = out.engine.layer_overhead_s = out.engine.hop_overhead_s = 0;
  out.sampler_s_per_row = 0;
  return out;
}

double seconds_per_key(const InferenceSetup& s) {
  // 1,935 GB/s x bw_eff is above llama.cpp's mat-vec ceiling (data/speed.json bw_cap_gbps).
  EXPECT_LT(s.engine.bw_cap_bytes_per_s, s.bandwidth * s.engine.bw_eff);
  return 512.0 * 32 * 32 * 16 / 2 / s.engine.bw_cap_bytes_per_s;
}

// pp2048: four chunks against 512, 1,024, 1,536 and 2,048 keys, all four in flight (llama.cpp's
// 4 copies). The first stage takes 5,120 u; the last chunk then crosses the second in 2,048 u:
// 7,168 u. Equal chunks at the mean (1,280 keys) would give (4 + 1) x 1,280 u = 6,400 u.
TEST(PipelinedPrefill, TheLastChunkSetsTheDrain) {
  const InferenceSetup s = scores_only();
  ASSERT_DOUBLE_EQ(s.engine.pipeline_depth, 4.0);
  ASSERT_DOUBLE_EQ(s.engine.prefill_chunk_tokens, 512.0);
  EXPECT_NEAR(prefill_time(s, 1, 2048).seconds, 7168 * seconds_per_key(s), 1e-12);
}

// pp4096: eight chunks in two groups of four, a group waiting for the one before it. The first
// (512 to 2,048 keys) takes 5,120 u + 2,048 u, the second (2,560 to 4,096) 13,312 u + 4,096 u:
// 24,576 u in all.
TEST(PipelinedPrefill, EachGroupDrainsAtItsLastChunk) {
  const InferenceSetup s = scores_only();
  EXPECT_NEAR(prefill_time(s, 1, 4096).seconds, 24576 * seconds_per_key(s), 1e-12);
}

}  // namespace
}  // namespace gpusizer
