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
  EXPECT_EQ(memory::trt_engine_max_batch(r, 0.9, 64.0 * kGiB, 0.25 * kGiB), 256);
  // 0.9 x 8 GiB over 1 GiB = 7.2: at least 64.
  EXPECT_EQ(memory::trt_engine_max_batch(r, 0.9, 8.0 * kGiB, kGiB), 64);
  // 0.9 x 64 GiB over 0.1 GiB = 576: up to 128s, 640.
  EXPECT_EQ(memory::trt_engine_max_batch(r, 0.9, 64.0 * kGiB, 0.1 * kGiB), 640);
  // 0.9 x 64 GiB over 0.05 GiB = 1,152: up to 256s, 1,280.
  EXPECT_EQ(memory::trt_engine_max_batch(r, 0.9, 64.0 * kGiB, 0.05 * kGiB), 1280);
  // The logged 70B TP8 engine: 0.9 x (79.152 - 8.2) GiB over 256 tokens x 20,480 B is about
  // 12,000 requests; BuildConfig's 2,048 is what the 0.16 logs show.
  EXPECT_EQ(memory::trt_engine_max_batch(r, 0.9, 70.9 * kGiB, 256.0 * 20480), 2048);
}

TEST(TrtRuntime, PoolOfTheTensorRtEngineReleasesLeavesItOut) {
  // Llama-3.1-8B bf16 on one H100 at seq_len 2,048 with 0.16. Slots: 0.9 x (79.152 usable -
  // 14.9575 weights) = 57.775 GiB over 2,048 x 131,072 B = 0.25 GiB per request = 231.1
  // requests, rounded up to 256. Runtime: 256 x (128,256 x 12 + 2,048 x 32 + 65,536) = 256 x
  // 1,670,144 = 427,556,864 B = 0.398193 GiB. Pool: 0.9 x (1.0's free memory 62.41325 GiB,
  // engine_startup_test.cc, - 0.398193) = 0.9 x 62.015057 = 55.813551 GiB = 55.813551 x 8,192 =
  // 457,224 tokens of 131,072 B.
  const auto out = estimate_json({{"model", "llama-3.1-8b"},
                                  {"engine", "trtllm"},
                                  {"engine_version", "0.16"},
                                  {"gpu", "h100-sxm5-80gb"},
                                  {"seq_len", 2048}});
  EXPECT_NEAR(out["memory"]["overhead_bytes"].get<double>(), kGiB + 427556864.0, 1.0);
  EXPECT_NEAR(out["memory"]["kv_cache_bytes"].get<double>() / kGiB, 55.813551, 1e-3);
  EXPECT_NEAR(out["memory"]["kv_cache_capacity_tokens"].get<double>(), 457224, 8);
}

TEST(TrtRuntime, AnEngineBuiltWithItsOwnLimitsKeepsThem) {
  // The same 8B scenario on an engine built with max_batch_size 512 (max_num_seqs) and max_seq_len
  // 8,192 (max_model_len), not trtllm-bench's tuned 256 slots for 2,048 tokens. Runtime: 512 x
  // (128,256 x 12 + 8,192 x 32 + 65,536) = 512 x (1,539,072 + 262,144 + 65,536) = 512 x
  // 1,866,752 = 955,777,024 B = 0.890142 GiB. Pool: 0.9 x (62.41325 - 0.890142) = 0.9 x
  // 61.523108 = 55.370797 GiB = 453,597 tokens of 131,072 B.
  const auto out = estimate_json({{"model", "llama-3.1-8b"},
                                  {"engine", "trtllm"},
                                  {"engine_version", "0.16"},
                                  {"gpu", "h100-sxm5-80gb"},
                                  {"seq_len", 2048},
                                  {"max_num_seqs", 512},
                                  {"max_model_len", 8192}});
  EXPECT_NEAR(out["memory"]["overhead_bytes"].get<double>(), kGiB + 955777024.0, 1.0);
  EXPECT_NEAR(out["memory"]["kv_cache_bytes"].get<double>() / kGiB, 55.370797, 1e-3);
  EXPECT_NEAR(out["memory"]["kv_cache_capacity_tokens"].get<double>(), 453597, 8);
}

}  // namespace
}  // namespace gpusizer
