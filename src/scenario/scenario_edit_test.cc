// Typed edits of a parsed scenario and validate(): an edit derives the defaults that follow it as
// the parser does for the same JSON with the patch merged in, and validate() throws the parser's
// own errors. Values checked by hand in the comments.
#include "gpusizer/scenario_edit.h"

#include <gtest/gtest.h>

#include "gpusizer/error.h"

namespace gpusizer {
namespace {

const Catalog& cat() {
  return Catalog::builtin();
}

Scenario edit_of(const nlohmann::json& input, const ScenarioEdit& edit) {
  ScenarioGiven given;
  const Scenario parsed = parse_scenario(input, cat(), given);
  return edited(parsed, given, edit, cat());
}

// The same scenario through JSON: the input with the edit's patch merged in, parsed.
Scenario patched(nlohmann::json input, const ScenarioEdit& edit) {
  input.merge_patch(to_patch(edit));
  return parse_scenario(input, cat());
}

void expect_same(const Scenario& a, const Scenario& b) {
  EXPECT_EQ(a.task, b.task);
  EXPECT_EQ(a.weights.id, b.weights.id);
  EXPECT_EQ(a.kv_cache.id, b.kv_cache.id);
  EXPECT_EQ(a.seq_len, b.seq_len);
  EXPECT_EQ(a.prompt_len, b.prompt_len);
  EXPECT_EQ(a.output_len, b.output_len);
  EXPECT_EQ(a.batch, b.batch);
  EXPECT_EQ(a.engine, b.engine);
  EXPECT_EQ(a.engine_version, b.engine_version);
  EXPECT_EQ(a.engine_basis, b.engine_basis);
  EXPECT_EQ(a.gpu_count, b.gpu_count);
  EXPECT_EQ(a.parallel.tp, b.parallel.tp);
  EXPECT_EQ(a.parallel.pp, b.parallel.pp);
  EXPECT_EQ(a.parallel.dp, b.parallel.dp);
  EXPECT_EQ(a.default_layout, b.default_layout);
  EXPECT_EQ(a.training.recompute, b.training.recompute);
  EXPECT_EQ(a.training.zero_stage, b.training.zero_stage);
  EXPECT_EQ(a.training.offload, b.training.offload);
  EXPECT_EQ(a.training.optimizer, b.training.optimizer);
  EXPECT_EQ(a.training.grad_accum, b.training.grad_accum);
  EXPECT_EQ(a.training.global_batch, b.training.global_batch);
  ASSERT_EQ(a.traffic.has_value(), b.traffic.has_value());
  if (a.traffic) {
    EXPECT_EQ(a.traffic->prompt_len, b.traffic->prompt_len);
    EXPECT_EQ(a.traffic->output_len, b.traffic->output_len);
  }
}

// fp16 weights take an fp16 KV cache by default; int8 weights take bf16 (the default for the
// other formats). A KV format the input names stays.
TEST(ScenarioEdit, KvCacheFollowsTheWeightsUnlessGiven) {
  const nlohmann::json in = {{"model", "llama-2-7b"}, {"weights", "fp16"}, {"gpu", "l4-24gb"}};
  const ScenarioEdit int8{.weights = "int8"};
  EXPECT_EQ(edit_of(in, {}).kv_cache.id, "fp16");
  EXPECT_EQ(edit_of(in, int8).kv_cache.id, "bf16");
  expect_same(edit_of(in, int8), patched(in, int8));
  nlohmann::json given = in;
  given["kv_cache"] = "fp16";
  EXPECT_EQ(edit_of(given, int8).kv_cache.id, "fp16");
}

// A defaulted serving engine follows the weights: GGUF weights are served by llama.cpp (the only
// default engine that loads them, engines.json), bf16 ones on NVIDIA by vLLM.
TEST(ScenarioEdit, DefaultEngineFollowsTheWeights) {
  const nlohmann::json in = {{"model", "llama-2-7b"}, {"gpu", "h100-sxm5-80gb"}};
  const ScenarioEdit gguf{.weights = "q4_k_m"};
  EXPECT_EQ(edit_of(in, {}).engine, "vllm");
  EXPECT_EQ(edit_of(in, gguf).engine, "llama.cpp");
  expect_same(edit_of(in, gguf), patched(in, gguf));
}

// Training with seq_len cut to 1024 and no prompt or output given: output = min(512, 1024 / 4) =
// 256, prompt = 1024 - 256 = 768.
TEST(ScenarioEdit, LengthsFollowAnEditedSeqLen) {
  const nlohmann::json in = {{"model", "llama-2-7b"}, {"task", "lora"}, {"seq_len", 4096}};
  const ScenarioEdit shorter{.seq_len = 1024};
  const Scenario s = edit_of(in, shorter);
  EXPECT_EQ(s.output_len, 256);
  EXPECT_EQ(s.prompt_len, 768);
  expect_same(s, patched(in, shorter));
}

// Serving with traffic whose object gives no lengths: they follow the scenario's, here the
// edited prompt 3000 and output 1000.
TEST(ScenarioEdit, TrafficLengthsFollowTheScenario) {
  const nlohmann::json in = {{"model", "llama-2-7b"},
                             {"gpu", "h100-sxm5-80gb"},
                             {"seq_len", 8192},
                             {"traffic", {{"requests_per_s", 2}}}};
  const ScenarioEdit e{.seq_len = 4000, .prompt_len = 3000, .output_len = 1000};
  const Scenario s = edit_of(in, e);
  EXPECT_EQ(s.traffic->prompt_len, 3000);
  EXPECT_EQ(s.traffic->output_len, 1000);
  expect_same(s, patched(in, e));
}

// The global batch is derived (batch 4 x accumulation 2 x dp 1 = 8) unless given: after ZeRO-3
// over 8 GPUs it is 4 x 2 x 8 = 64. Given as 64 on 8 GPUs, it stays when the batch is halved to
// 2, and the accumulation that reaches it becomes 64 / (2 x 8) = 4.
TEST(ScenarioEdit, GlobalBatchOrAccumulationFollowTheSplit) {
  const nlohmann::json in = {
      {"model", "llama-2-7b"}, {"task", "full"}, {"batch", 4}, {"training", {{"grad_accum", 2}}}};
  const ScenarioEdit zero{.gpu_count = 8, .tp = 1, .pp = 1, .dp = 8, .zero_stage = 3};
  EXPECT_EQ(edit_of(in, {}).training.global_batch, 8);
  EXPECT_EQ(edit_of(in, zero).training.global_batch, 64);
  expect_same(edit_of(in, zero), patched(in, zero));
  const nlohmann::json pinned = {{"model", "llama-2-7b"},
                                 {"task", "full"},
                                 {"batch", 4},
                                 {"gpu_count", 8},
                                 {"training", {{"global_batch", 64}}}};
  const ScenarioEdit half{.batch = 2};
  EXPECT_EQ(edit_of(pinned, half).training.global_batch, 64);
  EXPECT_EQ(edit_of(pinned, half).training.grad_accum, 4);
  expect_same(edit_of(pinned, half), patched(pinned, half));
}

// Llama-2-7B has 32 attention heads: TP=64 is refused by the edit as by the parser, with the
// parser's field and message.
TEST(ScenarioEdit, ValidateThrowsTheParsersError) {
  const nlohmann::json in = {{"model", "llama-2-7b"}, {"gpu", "h100-sxm5-80gb"}};
  const ScenarioEdit wide{.gpu_count = 64, .tp = 64, .pp = 1, .dp = 1};
  std::string edit_error, parse_error;
  try {
    edit_of(in, wide);
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "parallel.tp");
    edit_error = e.what();
  }
  try {
    patched(in, wide);
  } catch (const InputError& e) {
    parse_error = e.what();
  }
  EXPECT_NE(edit_error.find("exceeds the model's 32 attention heads"), std::string::npos);
  EXPECT_EQ(edit_error, parse_error);
  // qlora on a 16-bit base is refused: the weights must be quantized.
  const nlohmann::json full = {{"model", "llama-2-7b"}, {"task", "full"}};
  EXPECT_THROW(edit_of(full, {.task = Task::kQlora}), InputError);
  EXPECT_NO_THROW(edit_of(full, {.task = Task::kQlora, .weights = "nf4"}));
}

// validate() passes every parsed scenario and refuses one changed by hand into a wrong split.
TEST(ScenarioEdit, ValidateRechecksAChangedScenario) {
  Scenario s = parse_scenario({{"model", "llama-2-7b"}, {"gpu_count", 4}, {"task", "full"}}, cat());
  EXPECT_NO_THROW(validate(s, cat()));
  s.gpu_count = 6;  // 6 GPUs cannot hold dp 4 replicas of 1 GPU
  EXPECT_THROW(validate(s, cat()), InputError);
}

// The patch renders the edit's keys as the contract's scenario JSON spells them; merging two
// edits keeps the later value of a key both set.
TEST(ScenarioEdit, PatchAndMerge) {
  const ScenarioEdit a{.weights = "int8", .gradient_checkpointing = true};
  const ScenarioEdit b{.task = Task::kQlora, .weights = "nf4"};
  const nlohmann::json p = to_patch(merged(a, b));
  EXPECT_EQ(p, nlohmann::json({{"task", "qlora"},
                               {"weights", "nf4"},
                               {"training", {{"gradient_checkpointing", true}}}}));
  EXPECT_EQ(to_patch({}), nlohmann::json::object());
}

}  // namespace
}  // namespace gpusizer
