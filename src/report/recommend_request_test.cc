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

namespace gpusizer {
namespace {

// A training request with no engine runs the default, HF Trainer, whose split models run one
// stage at a time. For a 235B MoE pre-train its best option splits the model, so the request is
// searched again with Megatron-LM and the note gives that search's best option: the same GPU,
// count and rate as asking for megatron directly, at a lower objective value (cost per token),
// and an MFU above HF's. Naming an engine, or a model that needs no split, gets no note.
TEST(RecommendRequest, SplitTrainingWithoutAnEngineNotesWhatMegatronReaches) {
  const nlohmann::json request = {{"model", "qwen3-235b-a22b"}, {"task", "pretrain"}};
  const Recommendation r = recommend(request, cat());
  ASSERT_FALSE(r.options.empty());
  const Scenario& hf = r.options.front().scenario;
  EXPECT_EQ(hf.engine, "hf");
  EXPECT_GT(hf.parallel.tp * hf.parallel.pp, 1);
  ASSERT_EQ(r.notes.size(), 1u);
  nlohmann::json with_megatron = request;
  with_megatron["engine"] = "megatron";
  const Recommendation m = recommend(with_megatron, cat());
  ASSERT_FALSE(m.options.empty());
  EXPECT_TRUE(m.notes.empty());
  const Option& alt = m.options.front();
  EXPECT_LE(2 * alt.objective_value, r.options.front().objective_value);
  EXPECT_GT(*alt.estimate.performance->mfu, *r.options.front().estimate.performance->mfu);
  const std::string& note = r.notes.front();
  EXPECT_TRUE(note.starts_with("the default training engine hf (HF Trainer)")) << note;
  EXPECT_NE(note.find(R"("engine": "megatron")"), std::string::npos) << note;
  EXPECT_NE(note.find(std::to_string(alt.scenario.gpu_count) + " x " + alt.scenario.gpu->name),
            std::string::npos)
      << note;
  nlohmann::json with_hf = request;
  with_hf["engine"] = "hf";
  EXPECT_TRUE(recommend(with_hf, cat()).notes.empty());
  EXPECT_TRUE(recommend({{"model", "llama-3.1-8b"}, {"task", "lora"}}, cat()).notes.empty());
}

}  // namespace
}  // namespace gpusizer
