// The text table of a training estimate lists the step's exposed parts
// (performance.step_breakdown_s is an object, not a number).
#include "gpusizer/json/render.h"

#include <gtest/gtest.h>

#include "gpusizer/json/api.h"

namespace gpusizer {
namespace {

TEST(Render, TrainingTableListsTheStepBreakdown) {
  const nlohmann::json e = estimate_json({{"model", "llama-2-7b"},
                                          {"task", "full"},
                                          {"gpu", "a100-sxm4-80gb"},
                                          {"gpu_count", 8},
                                          {"training", {{"zero_stage", 3}}}},
                                         Catalog::builtin());
  const std::string table = render_estimate_table(e);
  EXPECT_NE(table.find("step breakdown (s)"), std::string::npos) << table;
  EXPECT_NE(table.find("    compute"), std::string::npos) << table;
  EXPECT_NE(table.find("step_time_s"), std::string::npos) << table;
}

}  // namespace
}  // namespace gpusizer
