// "basis": false (CLI --no-basis): an answer for a batch that reads the figures alone. Its basis
// texts are not made: "basis" is {} and the ownership's "basis" lines are [], while every other
// key (figures, verdicts, warnings, what to change) is the default answer's, byte for byte.
#include <gtest/gtest.h>

#include "gpusizer/error.h"
#include "gpusizer/json/api.h"

namespace gpusizer {
namespace {

// The answer less its basis texts: the top-level "basis" and the ownership's lines.
nlohmann::json without_basis_texts(nlohmann::json j) {
  j.erase("basis");
  if (j.contains("cost") && j["cost"].contains("ownership")) j["cost"]["ownership"].erase("basis");
  return j;
}

TEST(WithoutBasis, EveryOtherKeyIsTheDefaultAnswers) {
  // Serving that fits, a MoE on two GPUs, traffic with an SLO, training that does not fit (with
  // its changes), QLoRA, a pretraining run with tokens, and the articles' rule of thumb.
  const nlohmann::json scenarios[] = {
      {{"model", "llama-2-7b"}, {"gpu", "rtx-4090-24gb"}, {"batch", 4}},
      {{"model", "mixtral-8x7b-v0.1"}, {"engine", "vllm"}, {"gpu", "h100"}, {"gpu_count", 2}},
      {{"model", "llama-3.1-8b"},
       {"gpu", "a100-sxm4-80gb"},
       {"traffic", {{"requests_per_s", 5}, {"prompt_len", 1000}, {"output_len", 200}}},
       {"slo", {{"ttft_ms", 1000}, {"tpot_ms", 50}}}},
      {{"model", "qwen3-32b"}, {"task", "full"}, {"gpu", "h100"}, {"gpu_count", 8}},
      {{"model", "llama-3.1-70b"}, {"task", "qlora"}, {"gpu", "a100-80g"}},
      {{"model", "llama-2-7b"},
       {"task", "pretrain"},
       {"gpu", "h100"},
       {"gpu_count", 8},
       {"training", {{"tokens", 1e10}}}},
      {{"model", "llama-2-13b"}, {"gpu", "a100-80g"}, {"method", "rule-of-thumb"}}};
  for (const auto& scenario : scenarios) {
    nlohmann::json figures_only = scenario;
    figures_only["basis"] = false;
    const nlohmann::json full = estimate_json(scenario);
    const nlohmann::json bare = estimate_json(figures_only);
    ASSERT_FALSE(full["basis"].empty()) << scenario;
    // The key stays, empty, so that a reader of either answer finds it.
    ASSERT_TRUE(bare.contains("basis")) << scenario;
    EXPECT_TRUE(bare["basis"].empty()) << scenario;
    if (bare.contains("cost") && bare["cost"].contains("ownership")) {
      EXPECT_TRUE(bare["cost"]["ownership"]["basis"].empty()) << scenario;
      EXPECT_FALSE(full["cost"]["ownership"]["basis"].empty()) << scenario;
    }
    EXPECT_EQ(without_basis_texts(bare).dump(), without_basis_texts(full).dump()) << scenario;
  }
}

TEST(WithoutBasis, ANonBooleanIsBadInputNamingTheField) {
  try {
    estimate_json({{"model", "llama-2-7b"}, {"gpu", "h100"}, {"basis", "no"}});
    ADD_FAILURE() << "a string for \"basis\" was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "basis");
  }
}

// The scenario is read before the answer's own "basis" (the estimate is made in the answer in
// place, after the scenario is resolved): a line wrong in both names the scenario's field.
TEST(WithoutBasis, AScenarioErrorIsNamedBeforeABadBasis) {
  try {
    estimate_json({{"model", "llama-2-7b"}, {"gpu", "no-such-gpu"}, {"basis", "no"}});
    ADD_FAILURE() << "an unknown GPU was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "gpu");
  }
}

}  // namespace
}  // namespace gpusizer
