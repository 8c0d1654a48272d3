// QLoRA's dequantized copies (training_speed.cc qlora_dequant_s): each pass over a 4-bit Linear
// dequantizes its whole weight to a 16-bit copy before the GEMM, a fixed number of bytes per pass
// whatever the tokens, where the step model used to add 35% to every GEMM.
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "gpusizer/json/scenario.h"
#include "speed/testing_training_speed.h"

namespace gpusizer {
namespace {

using testing::round_profile;
using testing::step;

// The GPT-2-shaped job's layer matrices (testing_training_speed.h): c_attn 1024 x 3072, c_proj
// 1024 x 1024, c_fc 1024 x 4096 and the MLP's c_proj 4096 x 1024, 12,582,912 weights a layer, x 4
// layers = 50,331,648. One dequantization reads the NF4 weight and scales and writes the bf16
// copy, 2.52 bytes a weight (the round profile's qlora_dequant_bytes_per_param, speed.json's):
// 50,331,648 x 2.52 / 2.039e12 B/s = 62.20 us a pass.
constexpr double kPassS = 50331648.0 * 2.52 / 2039e9;

Scenario lora_job() {
  Scenario s = parse_scenario(testing::small_gpt2_job(), Catalog::builtin());
  s.task = Task::kLora;
  s.training.lora_targets = {"all-linear"};
  return s;
}

TEST(QloraDequant, TheForwardAndTheBackwardEachDequantizeTheWeightsOnce) {
  const auto p = round_profile();
  Scenario s = lora_job();
  const TrainingSpeed lora = step(s, p);
  s.task = Task::kQlora;
  const TrainingSpeed qlora = step(s, p);
  // The same FLOPs and adapter traffic; only the two copies a step (forward, backward) differ.
  EXPECT_NEAR(qlora.step_time_s - lora.step_time_s, 2 * kPassS, 1e-9);
  EXPECT_NEAR(kPassS, 62.20e-6, 0.01e-6);
  // The step reports them (the step_time_s basis names them).
  EXPECT_NEAR(qlora.qlora_dequant_s, 2 * kPassS, 1e-12);
  EXPECT_EQ(lora.qlora_dequant_s, 0.0);
}

TEST(QloraDequant, FullRecomputationDequantizesAThirdTime) {
  const auto p = round_profile();
  Scenario s = lora_job();
  s.training.recompute = Recompute::kFull;
  const TrainingSpeed lora = step(s, p);
  s.task = Task::kQlora;
  const TrainingSpeed qlora = step(s, p);
  EXPECT_NEAR(qlora.breakdown.recompute - lora.breakdown.recompute, kPassS, 1e-9);
  EXPECT_NEAR(qlora.step_time_s - lora.step_time_s, 3 * kPassS, 1e-9);
  EXPECT_NEAR(qlora.qlora_dequant_s, 3 * kPassS, 1e-12);
}

TEST(QloraDequant, TheCostIsPerPassNotPerToken) {
  // Eight sequences a micro-batch instead of one: eight times the GEMMs, the same two copies.
  const auto p = round_profile();
  Scenario s = lora_job();
  s.batch = 8;
  s.training.global_batch = 8;
  const TrainingSpeed lora = step(s, p);
  s.task = Task::kQlora;
  const TrainingSpeed qlora = step(s, p);
  EXPECT_NEAR(qlora.step_time_s - lora.step_time_s, 2 * kPassS, 1e-9);
}

}  // namespace
}  // namespace gpusizer
