// A recommend request's JSON parsed into the typed RecommendRequest (recommend_request.cc): what
// each key becomes, and the order bad input is checked in (the field named is the first bad one
// in that order, as before the request was typed).
#include <gtest/gtest.h>

#include "gpusizer/error.h"
#include "gpusizer/json/advisor.h"

namespace gpusizer {
namespace {

const Catalog& cat() {
  return Catalog::builtin();
}

// Training on token sequences: the fixed gpu_count and the layout fields the request gives are
// kept; the others are left to the search.
TEST(RecommendRequest, TrainingKeepsTheCountAndThePins) {
  const RecommendRequest r = parse_recommend_request({{"model", "llama-2-7b"},
                                                      {"task", "full"},
                                                      {"gpu_count", 8},
                                                      {"batch", 4},
                                                      {"parallel", {{"tp", 2}}},
                                                      {"training", {{"zero_stage", 1}}},
                                                      {"top", 3}},
                                                     cat());
  EXPECT_EQ(r.scenario.task, Task::kFull);
  EXPECT_EQ(r.gpu_count, 8);
  EXPECT_EQ(r.pins.tp, 2);
  EXPECT_EQ(r.pins.micro_batch, 4);
  EXPECT_EQ(r.pins.zero_stage, 1);
  EXPECT_FALSE(r.pins.pp);
  EXPECT_FALSE(r.pins.dp);
  EXPECT_EQ(r.constraints.limit, 3);
}

// Serving: gpu_count is the search's (never read, so 0 is no error); a single "gpu" becomes the
// allowed list; constraints may sit in a "constraints" object.
TEST(RecommendRequest, ServingLeavesTheCountToTheSearch) {
  const RecommendRequest r = parse_recommend_request({{"model", "llama-3.1-8b"},
                                                      {"gpu", "h100-sxm5-80gb"},
                                                      {"gpu_count", 0},
                                                      {"constraints", {{"objective", "speed"}}}},
                                                     cat());
  EXPECT_FALSE(r.gpu_count);
  EXPECT_EQ(r.constraints.gpus, std::vector<std::string>{"h100-sxm5-80gb"});
  EXPECT_EQ(r.constraints.objective, Objective::kSpeed);
  EXPECT_EQ(r.constraints.limit, 20);
}

std::string bad_field(const nlohmann::json& request) {
  try {
    parse_recommend_request(request, cat());
  } catch (const InputError& e) {
    return e.field();
  }
  return "(accepted)";
}

// Constraints first, then the scenario, then the training count.
TEST(RecommendRequest, BadInputNamesTheFirstBadFieldInOrder) {
  EXPECT_EQ(bad_field({{"model", "no-such-model"}, {"objective", "fast"}}), "objective");
  EXPECT_EQ(bad_field({{"model", "no-such-model"}, {"gpu_count", 0}, {"task", "full"}}), "model");
  EXPECT_EQ(bad_field({{"model", "llama-2-7b"}, {"task", "full"}, {"gpu_count", 0}}), "gpu_count");
  EXPECT_EQ(bad_field(nlohmann::json::array()), "");
}

}  // namespace
}  // namespace gpusizer
