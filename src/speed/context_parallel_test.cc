// Context parallelism (parallel.cp): parsing, the ring of key/value blocks, the gradient group
// and the activation memory, each against numbers derived by hand (Megatron-Core context
// parallel; Liu et al. 2023, Ring Attention).
#include <gtest/gtest.h>

#include "gpusizer/error.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/scenario.h"
#include "speed/testing_training_speed.h"
#include "speed/training_speed.h"

namespace gpusizer {
namespace {

using testing::round_profile;
using testing::step;

// The GPT-2-shaped job of testing_training_speed.h (h 1024, 4 layers, 16 heads of 64, one
// sequence of 1024) on `gpus` GPUs with context parallelism `cp`.
nlohmann::json small_json(int64_t gpus, int64_t cp) {
  return testing::small_gpt2_job(gpus, cp);
}

TEST(ContextParallel, ParsedStrictlyAndCountedInTheReplica) {
  const Scenario s = parse_scenario(small_json(4, 2), Catalog::builtin());
  EXPECT_EQ(s.parallel.cp, 2);
  EXPECT_EQ(s.parallel.dp, 2);  // 4 GPUs = tp 1 x pp 1 x cp 2 x dp 2
  auto field_of = [](const nlohmann::json& j) {
    try {
      parse_scenario(j, Catalog::builtin());
    } catch (const InputError& e) {
      return e.field();
    }
    return std::string("accepted");
  };
  nlohmann::json bad = small_json(2, 0);
  EXPECT_EQ(field_of(bad), "parallel.cp");
  bad = small_json(2, 2);
  bad["parallel"]["cp"] = "2";
  EXPECT_EQ(field_of(bad), "parallel.cp");
  // 1024 tokens are not 2 x 3 = 6 chunks (Megatron-Core splits a sequence into 2 x cp).
  EXPECT_EQ(field_of(small_json(3, 3)), "parallel.cp");
  nlohmann::json serve = small_json(2, 2);
  serve["task"] = "inference";
  serve["engine"] = "vllm";
  serve.erase("training");
  EXPECT_EQ(field_of(serve), "parallel.cp");
  // 3 GPUs do not hold whole replicas of cp 2.
  EXPECT_EQ(field_of(small_json(3, 2)), "gpu_count");
}

TEST(ContextParallel, RingOfKeyValueBlocksAndTheGradientGroup) {
  const auto p = round_profile();
  const TrainingSpeed one = step(parse_scenario(small_json(1, 1), Catalog::builtin()), p);
  const TrainingSpeed cp2 = step(parse_scenario(small_json(2, 2), Catalog::builtin()), p);
  // Each rank runs its 512 of the 1024 tokens through every layer and the head, and its
  // queries attend over the whole sequence with causal load balancing: half the work of one GPU
  // (no element-wise term in this profile).
  EXPECT_NEAR(cp2.breakdown.compute, one.breakdown.compute / 2, 1e-9 * one.breakdown.compute);
  // Ring: per layer, K and V of the local 512 tokens (2 x 16 heads x 64 x 2 bytes x 512 =
  // 2,097,152 bytes) make cp - 1 = 1 step forward and the same plus their gradients backward:
  // 3 x 2,097,152 / 300e9 (NVLink a direction) = 20.97 us, exposed whole at overlap 0, x 4 layers.
  EXPECT_NEAR(cp2.breakdown.tp_comm, 4 * 3 * 2097152.0 / 300e9, 1e-9);
  EXPECT_EQ(one.breakdown.tp_comm, 0);
  // Both ranks hold all weights: their bf16 gradients (52,459,520 parameters x 2 bytes) are
  // all-reduced between the two: 2 x 1/2 x 104,919,040 / 300e9 = 349.7 us.
  EXPECT_NEAR(cp2.breakdown.dp_comm, 104919040.0 / 300e9, 1e-7);
  EXPECT_EQ(one.breakdown.dp_comm, 0);
  // Tokens per step stay those of the global batch: 1 sequence of 1024.
  EXPECT_NEAR(cp2.tokens_per_s * cp2.step_time_s, 1024, 1e-6);
}

TEST(ContextParallel, EachRankKeepsItsSliceOfTheActivations) {
  // Megatron-Core context parallel: activation memory per GPU / cp.
  const Estimate e1 = estimate(parse_scenario(small_json(1, 1), Catalog::builtin()),
                               Catalog::builtin(), Detail::kFigures);
  const Estimate e2 = estimate(parse_scenario(small_json(2, 2), Catalog::builtin()),
                               Catalog::builtin(), Detail::kFigures);
  EXPECT_NEAR(e2.memory.activations, e1.memory.activations / 2, 1e-6 * e1.memory.activations);
}

}  // namespace
}  // namespace gpusizer
