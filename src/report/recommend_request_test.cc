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

// A training request with no engine: the layout search tries the default, HF Trainer, and the
// engines with tensor parallelism (FSDP2 as torchtitan composes it, Megatron-Core), and each
// option names its engine. HF runs a model split over GPUs one stage at a time (a naive
// pipeline): with p stages at most one computes, so its MFU is under 1/p of what one GPU
// reaches (below 0.8 / p). A 235B MoE pre-train on HF alone splits the model; with the parallel
// engines the best option runs on one of them, no worse by the objective than asking for
// megatron directly (its options are among those ranked) and at least twice as good as HF's.
// Naming an engine keeps it; LoRA stays on the default.
TEST(RecommendRequest, TrainingWithoutAnEngineSearchesTheParallelEngines) {
  const nlohmann::json request = {{"model", "qwen3-235b-a22b"}, {"task", "pretrain"}};
  nlohmann::json with_hf = request;
  with_hf["engine"] = "hf";
  const Recommendation hf = recommend(with_hf, cat());
  ASSERT_FALSE(hf.options.empty());
  const Option& naive = hf.options.front();
  EXPECT_EQ(naive.scenario.engine, "hf");
  ASSERT_GT(naive.scenario.parallel.pp, 1);
  EXPECT_LT(*naive.estimate.performance->mfu * static_cast<double>(naive.scenario.parallel.pp),
            0.8);
  const Recommendation r = recommend(request, cat());
  ASSERT_FALSE(r.options.empty());
  const Option& best = r.options.front();
  EXPECT_NE(best.scenario.engine, "hf");
  EXPECT_LE(2 * best.objective_value, naive.objective_value);
  nlohmann::json with_megatron = request;
  with_megatron["engine"] = "megatron";
  const Recommendation m = recommend(with_megatron, cat());
  ASSERT_FALSE(m.options.empty());
  EXPECT_LE(best.objective_value, m.options.front().objective_value * (1 + 1e-9));
  for (const Option& o : m.options) EXPECT_EQ(o.scenario.engine, "megatron");
  for (const Option& o : recommend({{"model", "llama-3.1-8b"}, {"task", "lora"}}, cat()).options)
    EXPECT_EQ(o.scenario.engine, "hf");
  // The planner ranked the parallel engines itself: no note. Naming hf keeps its naive
  // pipeline, and then the note says what megatron's best option reaches: the same count, GPU
  // and rate as asking for megatron directly, at least twice as good by the objective.
  EXPECT_TRUE(r.notes.empty());
  ASSERT_EQ(hf.notes.size(), 1u);
  const std::string& note = hf.notes.front();
  EXPECT_TRUE(note.starts_with("hf runs a model split over GPUs one stage at a time")) << note;
  EXPECT_NE(note.find(R"("engine": "megatron")"), std::string::npos) << note;
  const Option& alt = m.options.front();
  EXPECT_NE(note.find(std::to_string(alt.scenario.gpu_count) + " x " + alt.scenario.gpu->name),
            std::string::npos)
      << note;
  EXPECT_LE(2 * alt.objective_value, naive.objective_value);
  EXPECT_TRUE(m.notes.empty());
}

}  // namespace
}  // namespace gpusizer
