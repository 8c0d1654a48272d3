// torch.compile in training (training.compile): Inductor fuses the element-wise chains, so the
// non-GEMM kernels move compiled_elementwise_bytes_per_hidden instead of the eager figure.
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "gpusizer/json/scenario.h"
#include "speed/testing_training_speed.h"

namespace gpusizer {
namespace {

using testing::step;

// The round profile with speed.json's eager and compiled figures (583 and 215 bytes per token,
// layer and hidden unit; rounded here).
SpeedProfile profile_with_compiled_figure() {
  nlohmann::json doc = testing::round_profile_doc(583.0);
  doc["training"]["defaults"]["compiled_elementwise_bytes_per_hidden"] = 215.0;
  return SpeedProfile::from_json(doc);
}

TEST(CompiledElementwise, CompileMovesTheFusedBytes) {
  // The GPT-2-shaped job: h 1024, 4 layers, 1024 tokens, one GPU (the whole share), no
  // recomputation: (583 - 215) x 1024 x 4 x 1024 / 2.039e12 B/s = 0.7570 ms less.
  const auto p = profile_with_compiled_figure();
  Scenario s = parse_scenario(testing::small_gpt2_job(), Catalog::builtin());
  const TrainingSpeed eager = step(s, p);
  s.training.compile = true;
  const TrainingSpeed compiled = step(s, p);
  const double saved = (583.0 - 215.0) * 1024 * 4 * 1024 / 2039e9;
  EXPECT_NEAR(eager.step_time_s - compiled.step_time_s, saved, 1e-9);
  EXPECT_NEAR(saved, 0.7570e-3, 0.0001e-3);
  EXPECT_FALSE(eager.compiled_elementwise);
  EXPECT_TRUE(compiled.compiled_elementwise);
}

TEST(CompiledElementwise, NoCompiledFigureLeavesTheEagerBytes) {
  // A profile without the figure (0) keeps the eager bytes under compile.
  const auto p = testing::round_profile(583.0);
  Scenario s = parse_scenario(testing::small_gpt2_job(), Catalog::builtin());
  const TrainingSpeed eager = step(s, p);
  s.training.compile = true;
  EXPECT_DOUBLE_EQ(step(s, p).step_time_s, eager.step_time_s);
  EXPECT_FALSE(step(s, p).compiled_elementwise);
}

TEST(CompiledElementwise, TorchtuneRunsEagerUnlessCompiled) {
  // The shipped profile: torchtune's recipes default to compile: False, so eager kernels; its
  // README's figures are with compile, which takes the fused figure.
  const TrainingProfile& tt = Catalog::builtin().speed().training("torchtune");
  const TrainingProfile& hf = Catalog::builtin().speed().training("hf");
  EXPECT_DOUBLE_EQ(tt.elementwise_bytes_per_hidden, hf.elementwise_bytes_per_hidden);
  EXPECT_LT(tt.compiled_elementwise_bytes_per_hidden, tt.elementwise_bytes_per_hidden);
}

}  // namespace
}  // namespace gpusizer
