// The articles' worked examples (seeds/002 sec. 1.1 and 1.2), reproduced exactly.
#include <gtest/gtest.h>

#include "gpusizer/json/api.h"

namespace gpusizer {
namespace {

double total_gb(nlohmann::json scenario) {
  scenario["method"] = "rule-of-thumb";
  return estimate_json(scenario)["memory"]["total_bytes"].get<double>() / 1e9;
}

TEST(RuleOfThumb, SevenBInferenceInFp16Is18_8GB) {
  // 14 + 1.4 + 1.4 + 2 = 18.8 GB.
  EXPECT_DOUBLE_EQ(total_gb({{"model", {{"params", 7e9}}}, {"weights", "fp16"}}), 18.8);
}

TEST(RuleOfThumb, SevenBFineTuningTable) {
  // Full 87.4, LoRA 18.1, QLoRA 8-bit 11.1, QLoRA 4-bit 7.6 GB.
  const nlohmann::json seven_b = {{"params", 7e9}};
  EXPECT_NEAR(total_gb({{"model", seven_b}, {"task", "full"}}), 87.4, 1e-9);
  EXPECT_NEAR(total_gb({{"model", seven_b}, {"task", "lora"}}), 18.1, 1e-9);
  EXPECT_NEAR(total_gb({{"model", seven_b}, {"task", "qlora"}, {"weights", "int8"}}), 11.1, 1e-9);
  EXPECT_NEAR(total_gb({{"model", seven_b}, {"task", "qlora"}, {"weights", "nf4"}}), 7.6, 1e-9);
}

TEST(RuleOfThumb, ShownBesideTheAnalyticEstimate) {
  const auto out = estimate_json({{"model", "llama-2-7b"}});
  EXPECT_EQ(out["method"], "analytic");
  EXPECT_GT(out["rule_of_thumb"]["total_bytes"].get<double>(), 17e9);
}

}  // namespace
}  // namespace gpusizer
