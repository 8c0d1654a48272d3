// Static batching (TensorRT-LLM 0.6's GptSession: data/speed.json inference.engines.trtllm
// releases."0.6".static_batch), speed.cc: peak throughput at the batch the session was set up with.
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "gpusizer/speed.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

// TensorRT-LLM's 2023 table row: Llama-2-7B fp16 on one A100 80GB, batch 60, 128 in, 2048 out,
// 1,928 tok/s measured (docs/source/performance.md at 138f96d).
Scenario row(const std::string& version) {
  Scenario s = unit_scenario({.model = "llama-2-7b",
                              .weights = "fp16",
                              .kv_cache = "fp16",
                              .engine = "trtllm",
                              .gpu = "a100-sxm4-80gb"});
  s.engine_version = version;
  s.batch = 60;
  s.prompt_len = 128;
  s.output_len = 2048;
  s.seq_len = 2176;
  return s;
}

PerformanceEstimate with_pool(const Scenario& s, int64_t max_batch) {
  MemoryEstimate m;
  m.max_batch = max_batch;
  return estimate_speed(s, Catalog::builtin(), m, nullptr);
}

// gptSessionBenchmark runs generate() over one batch of 60: 60 x 2048 tokens in one prefill of
// 60 x 128 tokens plus 2048 decode steps of 60, whatever batch the memory would hold.
TEST(StaticBatch, Trtllm06RunsTheBatchItWasSetUpWith) {
  const auto small = with_pool(row("0.6"), 48), large = with_pool(row("0.6"), 500);
  ASSERT_TRUE(small.max_output_tokens_per_s && large.max_output_tokens_per_s);
  EXPECT_DOUBLE_EQ(*small.max_output_tokens_per_s, *large.max_output_tokens_per_s);
  EXPECT_NEAR(*small.max_output_tokens_per_s,
              60.0 * 2048.0 / ((*small.ttft_ms + 2048.0 * *small.tpot_ms) * 1e-3), 1e-6);
  // In-flight batching (1.0) fills the pool: the larger pool gives the larger throughput. Not
  // ten times: at the mean context of 1,152 tokens each sequence streams 1152 x 512 KiB = 604 MB
  // of cache a step against 13.5 GB of weights shared by all, and at 500 sequences the GEMMs
  // turn compute-bound (500 x 13.5 GFLOP), so a step of 500 costs about 200 ms against 27 ms
  // for 48: about 1.4 times the rate.
  EXPECT_GT(*with_pool(row("1.0"), 500).max_output_tokens_per_s,
            1.3 * *with_pool(row("1.0"), 48).max_output_tokens_per_s);
}

// By hand, with the 0.6 figures of data/speed.json (bw_eff 0.911, compute_eff_max 0.623, step
// overhead 5 ms). Decode step: the weights, 6.74e9 x 2 B = 13.48e9 B (the GEMMs of 60 tokens,
// 0.81 TFLOP, take less), then the cache at the mean context 128 + 1024 tokens,
// 60 x 1152 x 32 layers x 2 x 4096 x 2 B = 36.24e9 B, at 2039e9 x 0.911 B/s: 26.8 ms, + 5 ms =
// 31.8 ms. Prefill: 7,680 tokens x 2 x 6.74e9 FLOP at 312e12 x 0.623 x 1.047 (the A100's MAMF
// over the default) FLOP/s: 0.509 s, + 5 ms. Throughput: 60 x 2048 / (0.514 + 2048 x 0.0318) =
// 1,874 tok/s (measured 1,928).
TEST(StaticBatch, Trtllm06ThroughputByHand) {
  const auto p = with_pool(row("0.6"), 48);
  ASSERT_TRUE(p.tpot_ms && p.ttft_ms && p.max_output_tokens_per_s);
  EXPECT_NEAR(*p.tpot_ms, 31.8, 0.4);
  EXPECT_NEAR(*p.ttft_ms, 514.0, 15.0);
  EXPECT_NEAR(*p.max_output_tokens_per_s, 1874.0, 0.015 * 1874.0);
}

}  // namespace
}  // namespace gpusizer
