// TensorRT-LLM's C++ runtime buffers (trt_runtime.cc) against hand-derived bytes.
#include "memory/trt_runtime.h"

#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "gpusizer/json/api.h"

namespace gpusizer {
namespace {

constexpr double kGiB = 1073741824.0;

const EngineRelease& release(const char* version) {
  return Catalog::builtin().engine("trtllm").release(version);
}

TEST(TrtRuntime, LoggedLlama70bEngineOnEightH100) {
  // trtllm-bench 0.16.0, Llama-3.1-70B FP8 TP8 (shaamil101-etched/trtllm-benchmarks results,
  // data/validation/trtllm_bench_runs.jsonl): max batch 2,048, max_seq_len and attention window
  // 25,000, vocabulary 128,256 (a multiple of 8: no padding).
  // Runtime buffers: 2,048 x (4 B x 128,256 logits + 16 B x 25,000 cache indirection x 3 and
  // log-probabilities) = 2,048 x (513,024 + 400,000) = 1,869,873,152 B = 1.741 GiB (logged 1.63).
  // Decoder: 2,048 x (8 B x 128,256 embedding bias and top-k copy + 16 B x 25,000 ids, parent
  // ids, log-probabilities twice + 65,536 B top-k candidates) = 2,048 x (1,026,048 + 400,000 +
  // 65,536) = 3,054,764,032 B = 2.845 GiB (logged 3.30). Together 4,924,637,184 B = 4.586 GiB
  // of the 4.93 GiB logged.
  const EngineRelease& r = release("0.16");
  EXPECT_DOUBLE_EQ(memory::trt_runtime_bytes(r, 2048, 25000, 128256, 8), 4924637184.0);
  // A vocabulary of 32,001 over 8 GPUs is padded to 32,008: 2,048 x (32,008 x 12 + 25,000 x 32
  // + 65,536) = 2,048 x 1,249,632 = 2,559,246,336 B.
  EXPECT_DOUBLE_EQ(memory::trt_runtime_bytes(r, 2048, 25000, 32001, 8), 2559246336.0);
}

TEST(TrtRuntime, PytorchBackendAndOlderReleasesHaveNone) {
  EXPECT_EQ(memory::trt_runtime_bytes(release("1.0"), 2048, 25000, 128256, 8), 0.0);
  EXPECT_EQ(memory::trt_runtime_bytes(release("0.6"), 2048, 25000, 128256, 8), 0.0);
}

TEST(TrtRuntime, TunedBatchRoundsUpAndStopsAt2048) {
  const EngineRelease& r = release("0.16");
  // 0.9 x 64 GiB free over 0.25 GiB per request = 230.4 requests: up to 32s, 256.
  EXPECT_EQ(memory::trt_bench_build(r, 0.9, 64.0 * kGiB, 0.25 * kGiB, 1, 0, 0).max_batch, 256);
  // 0.9 x 8 GiB over 1 GiB = 7.2: at least 64.
  EXPECT_EQ(memory::trt_bench_build(r, 0.9, 8.0 * kGiB, kGiB, 1, 0, 0).max_batch, 64);
  // 0.9 x 64 GiB over 0.1 GiB = 576: up to 128s, 640.
  EXPECT_EQ(memory::trt_bench_build(r, 0.9, 64.0 * kGiB, 0.1 * kGiB, 1, 0, 0).max_batch, 640);
  // 0.9 x 64 GiB over 0.05 GiB = 1,152: up to 256s, 1,280.
  EXPECT_EQ(memory::trt_bench_build(r, 0.9, 64.0 * kGiB, 0.05 * kGiB, 1, 0, 0).max_batch, 1280);
  // The logged 70B TP8 engine: 0.9 x (79.152 - 8.2) GiB over 256 tokens x 20,480 B is about
  // 12,000 requests; BuildConfig's 2,048 is what the 0.16 logs show.
  EXPECT_EQ(memory::trt_bench_build(r, 0.9, 70.9 * kGiB, 256.0 * 20480, 1, 0, 0).max_batch, 2048);
  // Over pipeline stages the requests are shared (tuning.py finetune_setting divides by pp):
  // 1,152 requests over 2 stages = 576, up to 128s: 640; over 8 stages 144, up to 32s: 160.
  EXPECT_EQ(memory::trt_bench_build(r, 0.9, 64.0 * kGiB, 0.05 * kGiB, 2, 0, 0).max_batch, 640);
  EXPECT_EQ(memory::trt_bench_build(r, 0.9, 64.0 * kGiB, 0.05 * kGiB, 8, 0, 0).max_batch, 160);
}

TEST(TrtRuntime, PoolOfTheTensorRtEngineReleasesLeavesItOut) {
  // Llama-3.1-8B bf16 on one H100 at seq_len 2,048 (1,536 in, 512 out) with 0.16. Slots: 0.9 x
  // (79.152 usable - 14.9575 weights) = 57.775 GiB over 2,048 x 131,072 B = 0.25 GiB per request
  // = 231.1 requests, rounded up to 256. Tokens: 231.1 x (1 + 1,536 / 512) = 924, at least 2,048,
  // so the activation workspace is 2,048 x 102,400 B = 0.1953125 GiB (1.0's 8,192 tokens take
  // 0.78125, engine_startup_test.cc). Runtime: 256 x (128,256 x 12 + 2,048 x 32 + 65,536) = 256 x
  // 1,670,144 = 427,556,864 B = 0.398193 GiB. Pool: 0.9 x (79.152 - 14.9575 - 0.1953125 - 1 GiB
  // non-torch - 0.398193) = 0.9 x 62.600995 = 56.340895 GiB = 56.340895 x 8,192 = 461,544
  // tokens of 131,072 B.
  const auto out = estimate_json({{"model", "llama-3.1-8b"},
                                  {"engine", "trtllm"},
                                  {"engine_version", "0.16"},
                                  {"gpu", "h100-sxm5-80gb"},
                                  {"seq_len", 2048}});
  EXPECT_NEAR(out["memory"]["overhead_bytes"].get<double>(), kGiB + 427556864.0, 1.0);
  EXPECT_NEAR(out["memory"]["activations_bytes"].get<double>(), 2048.0 * 102400, 1.0);
  EXPECT_NEAR(out["memory"]["kv_cache_bytes"].get<double>() / kGiB, 56.340895, 1e-3);
  EXPECT_NEAR(out["memory"]["kv_cache_capacity_tokens"].get<double>(), 461544, 8);
}

TEST(TrtRuntime, AnEngineBuiltWithItsOwnLimitsKeepsThem) {
  // The same 8B scenario on an engine built with max_batch_size 512 (max_num_seqs) and max_seq_len
  // 8,192 (max_model_len), not trtllm-bench's tuned 256 slots for 2,048 tokens. Runtime: 512 x
  // (128,256 x 12 + 8,192 x 32 + 65,536) = 512 x (1,539,072 + 262,144 + 65,536) = 512 x
  // 1,866,752 = 955,777,024 B = 0.890142 GiB. Pool: 0.9 x (62.999188 free before the runtime,
  // above, - 0.890142) = 0.9 x 62.109046 = 55.898141 GiB = 457,917 tokens of 131,072 B.
  const auto out = estimate_json({{"model", "llama-3.1-8b"},
                                  {"engine", "trtllm"},
                                  {"engine_version", "0.16"},
                                  {"gpu", "h100-sxm5-80gb"},
                                  {"seq_len", 2048},
                                  {"max_num_seqs", 512},
                                  {"max_model_len", 8192}});
  EXPECT_NEAR(out["memory"]["overhead_bytes"].get<double>(), kGiB + 955777024.0, 1.0);
  EXPECT_NEAR(out["memory"]["kv_cache_bytes"].get<double>() / kGiB, 55.898141, 1e-3);
  EXPECT_NEAR(out["memory"]["kv_cache_capacity_tokens"].get<double>(), 457917, 8);
}

TEST(TrtRuntime, TunedTokenBudgetRoundsAsTrtllmBenchDoes) {
  const EngineRelease& r = release("0.16");
  // 0.9 x 64 GiB over 0.25 GiB = 230.4 requests; x (1 + 1,536 / 512) = 921.6: at least 2,048.
  EXPECT_EQ(memory::trt_bench_build(r, 0.9, 64.0 * kGiB, 0.25 * kGiB, 1, 1536, 512).max_num_tokens,
            2048);
  // 0.9 x 64 GiB over 0.05 GiB = 1,152 requests; x (1 + 1,000 / 1,000) = 2,304: at least 2,048,
  // rounded up to 256: 2,304.
  EXPECT_EQ(memory::trt_bench_build(r, 0.9, 64.0 * kGiB, 0.05 * kGiB, 1, 1000, 1000).max_num_tokens,
            2304);
  // 1,152 x (1 + 5,000 / 500) = 12,672: rounded up to 1,024, 13,312; over 2 stages 6,336: to 512,
  // 6,656.
  EXPECT_EQ(memory::trt_bench_build(r, 0.9, 64.0 * kGiB, 0.05 * kGiB, 1, 5000, 500).max_num_tokens,
            13312);
  EXPECT_EQ(memory::trt_bench_build(r, 0.9, 64.0 * kGiB, 0.05 * kGiB, 2, 5000, 500).max_num_tokens,
            6656);
  // 4,096 requests at most, x (1 + 20,000 / 2,000) = 45,056: at most 32,768.
  EXPECT_EQ(
      memory::trt_bench_build(r, 0.9, 64.0 * kGiB, 0.001 * kGiB, 1, 20000, 2000).max_num_tokens,
      32768);
  // Releases trtllm-bench does not build a TensorRT engine for: none.
  EXPECT_EQ(memory::trt_bench_build(release("1.0"), 0.9, 64.0 * kGiB, 0.05 * kGiB, 1, 1000, 1000)
                .max_num_tokens,
            0);
}

}  // namespace
}  // namespace gpusizer
