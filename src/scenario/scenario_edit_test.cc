// Typed edits of a parsed scenario and validate(): an edit derives the defaults that follow it as
// the parser does for the same JSON with the patch merged in, and validate() throws the parser's
// own errors. Values checked by hand in the comments.
#include "gpusizer/scenario_edit.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "estimate/layout.h"
#include "gpusizer/error.h"
#include "gpusizer/json/scenario.h"
#include "scenario/defaults.h"
#include "scenario/engine_choice.h"

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
  EXPECT_EQ(a.weights->id, b.weights->id);
  EXPECT_EQ(a.kv_cache->id, b.kv_cache->id);
  EXPECT_EQ(a.seq_len, b.seq_len);
  EXPECT_EQ(a.prompt_len, b.prompt_len);
  EXPECT_EQ(a.output_len, b.output_len);
  EXPECT_EQ(a.batch, b.batch);
  EXPECT_EQ(a.engine, b.engine);
  EXPECT_EQ(a.engine_version, b.engine_version);
  EXPECT_EQ(a.engine_basis, b.engine_basis);
  EXPECT_EQ(a.gpu.has_value(), b.gpu.has_value());
  if (a.gpu && b.gpu) {
    EXPECT_EQ(a.gpu->id, b.gpu->id);
  }
  EXPECT_EQ(a.gpus_per_node, b.gpus_per_node);
  EXPECT_EQ(a.gpu_count, b.gpu_count);
  EXPECT_EQ(a.parallel.tp, b.parallel.tp);
  EXPECT_EQ(a.parallel.pp, b.parallel.pp);
  EXPECT_EQ(a.parallel.dp, b.parallel.dp);
  EXPECT_EQ(a.parallel.ep, b.parallel.ep);
  EXPECT_EQ(a.parallel.cp, b.parallel.cp);
  EXPECT_EQ(a.parallel.pp_interleave, b.parallel.pp_interleave);
  EXPECT_EQ(a.parallel.sequence_parallel, b.parallel.sequence_parallel);
  EXPECT_EQ(a.default_layout, b.default_layout);
  EXPECT_EQ(a.requested_replicas, b.requested_replicas);
  EXPECT_EQ(a.training.recompute, b.training.recompute);
  EXPECT_EQ(a.training.mixed_precision, b.training.mixed_precision);
  EXPECT_EQ(a.training.flash_attention, b.training.flash_attention);
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
  EXPECT_EQ(edit_of(in, {}).kv_cache->id, "fp16");
  EXPECT_EQ(edit_of(in, int8).kv_cache->id, "bf16");
  expect_same(edit_of(in, int8), patched(in, int8));
  nlohmann::json given = in;
  given["kv_cache"] = "fp16";
  EXPECT_EQ(edit_of(given, int8).kv_cache->id, "fp16");
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

// A defaulted serving engine follows an edited GPU as the parser's follows "gpu": vLLM on an
// NVIDIA GPU (its basis now says so), llama.cpp on Apple, where vLLM does not run
// (engines.json: vllm vendors lack Apple; llama.cpp is next in the serving defaults).
TEST(ScenarioEdit, DefaultEngineFollowsTheGpu) {
  const nlohmann::json in = {{"model", "llama-2-7b"}};
  const ScenarioEdit h100{.gpu = "h100-sxm5-80gb"};
  const ScenarioEdit apple{.gpu = "apple-m2-ultra-192gb"};
  const Scenario on_h100 = edit_of(in, h100);
  EXPECT_EQ(on_h100.engine, "vllm");
  EXPECT_NE(on_h100.engine_basis.find("bf16 weights on NVIDIA GPUs: vllm"), std::string::npos);
  EXPECT_EQ(edit_of(in, {}).engine_basis.find("on NVIDIA"), std::string::npos);
  expect_same(on_h100, patched(in, h100));
  EXPECT_EQ(edit_of(in, apple).engine, "llama.cpp");
  expect_same(edit_of(in, apple), patched(in, apple));
  // A named engine stays.
  nlohmann::json named = in;
  named["engine"] = "hf";
  EXPECT_EQ(edit_of(named, apple).engine, "hf");
}

// The default split drops the input's split: serving on 8 GPUs whose input gave tp 2 becomes
// a layout-rule scenario with 8 replicas of one GPU until resolved (default_layout); training
// on 8 GPUs takes dp = 8 with tp = pp = 1.
TEST(ScenarioEdit, DefaultSplitIsTheParsersForTheCount) {
  const nlohmann::json serve = {{"model", "llama-2-7b"},
                                {"gpu", "h100-sxm5-80gb"},
                                {"gpu_count", 2},
                                {"parallel", {{"tp", 2}}}};
  const ScenarioEdit eight{.gpu_count = 8, .default_split = true};
  const Scenario s = edit_of(serve, eight);
  EXPECT_TRUE(s.default_layout);
  EXPECT_EQ(s.parallel.tp, 1);
  EXPECT_EQ(s.parallel.dp, 8);
  expect_same(s, patched(serve, eight));
  EXPECT_EQ(to_patch(eight), nlohmann::json::parse(R"({"gpu_count": 8, "parallel": null})"));
  const nlohmann::json train = {{"model", "llama-2-7b"},
                                {"task", "full"},
                                {"gpu_count", 4},
                                {"parallel", {{"tp", 2}, {"pp", 2}, {"dp", 1}}}};
  const Scenario t = edit_of(train, eight);
  EXPECT_FALSE(t.default_layout);
  EXPECT_EQ(t.parallel.tp * t.parallel.pp, 1);
  EXPECT_EQ(t.parallel.dp, 8);
  expect_same(t, patched(train, eight));
}

// A gpu_count alone keeps the input's split fields, as the JSON with only gpu_count merged in:
// serving with dp 2 given on 8 GPUs keeps 2 replicas on 16 (the layout rule then splits each
// over 8); training with tp 2 given takes dp = 16 / 2 = 8. A rack cap on the GPUs per node is
// the input's gpus_per_node.
TEST(ScenarioEdit, CountKeepsTheInputsSplit) {
  const nlohmann::json serve = {{"model", "llama-2-7b"},
                                {"gpu", "h100-sxm5-80gb"},
                                {"gpu_count", 8},
                                {"parallel", {{"dp", 2}}}};
  const ScenarioEdit sixteen{.gpus_per_node = 4, .gpu_count = 16};
  const Scenario s = edit_of(serve, sixteen);
  EXPECT_TRUE(s.default_layout);
  EXPECT_EQ(s.requested_replicas, 2);
  EXPECT_EQ(s.gpus_per_node, 4);
  expect_same(s, patched(serve, sixteen));
  const nlohmann::json train = {
      {"model", "llama-2-7b"}, {"task", "full"}, {"gpu_count", 4}, {"parallel", {{"tp", 2}}}};
  const Scenario t = edit_of(train, sixteen);
  EXPECT_EQ(t.parallel.tp, 2);
  EXPECT_EQ(t.parallel.dp, 8);
  expect_same(t, patched(train, sixteen));
}

// A whole training layout as one edit (the layout search's kept layouts): Mixtral-8x7B (32
// layers, 8 experts) on 64 GPUs as tp 2 x pp 4 (interleave 2) x ep 2 x cp 2 x dp 2 = 64, with
// sequence parallelism, selective recomputation, ZeRO-1, micro-batch 2, accumulation 8 and
// global batch 64 (= 2 x 8 x dp 2 x ep 2, kept as given); and fp16 mixed precision.
TEST(ScenarioEdit, TrainingLayoutAndPrecision) {
  const nlohmann::json in = {{"model", "mixtral-8x7b"},
                             {"task", "pretrain"},
                             {"gpu", "h100-sxm5-80gb"},
                             {"seq_len", 4096}};
  const ScenarioEdit layout{.batch = 2,
                            .gpu_count = 64,
                            .tp = 2,
                            .pp = 4,
                            .dp = 2,
                            .ep = 2,
                            .cp = 2,
                            .pp_interleave = 2,
                            .sequence_parallel = true,
                            .default_split = true,
                            .recompute = Recompute::kSelective,
                            .zero_stage = 1,
                            .grad_accum = 8,
                            .global_batch = 64,
                            .mixed_precision = MixedPrecision::kFp16};
  const Scenario s = edit_of(in, layout);
  EXPECT_EQ(s.replica_gpus() * s.parallel.dp, 64);
  EXPECT_EQ(s.training.global_batch, 64);
  EXPECT_EQ(s.training.grad_accum, 8);
  EXPECT_EQ(s.training.recompute, Recompute::kSelective);
  EXPECT_EQ(s.training.mixed_precision, MixedPrecision::kFp16);
  expect_same(s, patched(in, layout));
  EXPECT_EQ(to_patch(layout)["training"]["gradient_checkpointing"], "selective");
  EXPECT_EQ(to_patch({.recompute = Recompute::kNone})["training"]["gradient_checkpointing"], false);
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
  const ScenarioEdit a{.weights = "int8", .recompute = Recompute::kFull};
  const ScenarioEdit b{.task = Task::kQlora, .weights = "nf4"};
  const nlohmann::json p = to_patch(merged(a, b));
  EXPECT_EQ(p, nlohmann::json({{"task", "qlora"},
                               {"weights", "nf4"},
                               {"training", {{"gradient_checkpointing", true}}}}));
  EXPECT_EQ(to_patch({}), nlohmann::json::object());
}

// Every field an edit or the layout step can change, and the rows and lookups behind them.
void expect_same_edit(const Scenario& a, const Scenario& b) {
  expect_same(a, b);
  EXPECT_EQ(a.engine_defaulted, b.engine_defaulted);
  EXPECT_EQ(a.weights->bits_per_value, b.weights->bits_per_value);
  EXPECT_EQ(a.weights->compute_dtype, b.weights->compute_dtype);
  EXPECT_EQ(a.kv_cache->bits_per_value, b.kv_cache->bits_per_value);
  EXPECT_EQ(a.gpu_memory_utilization, b.gpu_memory_utilization);
  EXPECT_EQ(a.lookups.engine, b.lookups.engine);
  EXPECT_EQ(a.lookups.speed, b.lookups.speed);
  EXPECT_EQ(a.lookups.weights->id, b.lookups.weights->id);
  EXPECT_EQ(a.model->id, b.model->id);
  EXPECT_EQ(a.notes, b.notes);
}

// One ScenarioEditor through a sequence of edits, a failing one among them, gives for each what
// a fresh edited() gives: it restores only the fields an edit changes, assigns a format only for
// another row and derives the default engine again only for another task, weights or GPU, so
// each of those paths is walked here. By hand: fp16 weights take an fp16 KV cache and int8 ones
// bf16 (formats follow default_kv_id); vLLM serves bf16 weights on an H100 and llama.cpp GGUF
// ones and everything on Apple (engines.json defaults); TP 64 exceeds the 32 heads. The KV row
// that follows the weights is kept while the weights row is the one it was derived for, and
// derived again after an edit that named one.
TEST(ScenarioEdit, EditorGivesEditedsScenarioForEveryEdit) {
  const nlohmann::json serve = {{"model", "llama-2-7b"},
                                {"weights", "fp16"},
                                {"gpu", "h100-sxm5-80gb"},
                                {"traffic", {{"requests_per_s", 2}}}};
  ScenarioGiven given;
  const Scenario parsed = parse_scenario(serve, cat(), given);
  ScenarioEditor editor(parsed, given, cat());
  const std::vector<ScenarioEdit> edits = {
      {},
      {.weights = "int8"},
      {.weights = "q4_k_m"},
      {.gpu = "apple-m2-ultra-192gb"},
      {.gpu_count = 64, .tp = 64, .pp = 1, .dp = 1},  // throws
      {.seq_len = 1024},
      {.weights = "int8", .gpu_count = 2, .tp = 2, .pp = 1, .dp = 1},
      {.kv_cache = "fp8"},
      {},
      {.weights = "int8"},                   // the KV row derived for int8 again after a named one
      {.weights = "int8", .seq_len = 2048},  // the same weights row: the KV row kept
      {.kv_cache = "fp8", .seq_len = 2048},
      {.weights = "int8"},
  };
  for (const ScenarioEdit& e : edits) {
    if (e.tp == 64) {
      EXPECT_THROW(editor.edit(e), InputError);
      continue;
    }
    expect_same_edit(editor.edit(e), edited(parsed, given, e, cat()));
  }
  EXPECT_EQ(editor.edit({.weights = "int8"}).kv_cache->id, "bf16");
  EXPECT_EQ(editor.edit({.weights = "q4_k_m"}).engine, "llama.cpp");
  EXPECT_EQ(editor.edit({.gpu = "apple-m2-ultra-192gb"}).engine, "llama.cpp");
  const Scenario& back = editor.edit({});
  EXPECT_EQ(back.kv_cache->id, "fp16");
  EXPECT_EQ(back.engine, "vllm");
  EXPECT_EQ(back.gpu->id, "h100-sxm5-80gb");
  EXPECT_EQ(back.traffic->prompt_len, static_cast<double>(parsed.prompt_len));
}

// The editor keeps the base's engine fields for the base's own task, weights and GPU when the
// input named neither the engine nor its release: derived again (rederive_engine, as edited()
// derives them) they are the same, since parse_scenario made them with the same steps from the
// same fields. Serving on an H100 (vLLM, its newest release 0.21), GGUF weights (llama.cpp, one
// rule set), an Apple GPU (llama.cpp), LoRA and full training (HF transformers, "all" releases but
// 4.35).
TEST(ScenarioEdit, BaseEngineIsTheDerivationForItsOwnKey) {
  const std::vector<nlohmann::json> inputs = {
      {{"model", "llama-2-7b"}, {"gpu", "h100-sxm5-80gb"}},
      {{"model", "llama-2-7b"}, {"weights", "q4_k_m"}, {"gpu", "rtx-4090-24gb"}},
      {{"model", "llama-2-7b"}, {"gpu", "apple-m2-ultra-192gb"}},
      {{"model", "llama-2-7b"}, {"task", "lora"}, {"gpu", "a100-sxm4-80gb"}},
      {{"model", "qwen3-32b"}, {"task", "full"}, {"gpu", "h100"}, {"gpu_count", 8}},
  };
  for (const nlohmann::json& input : inputs) {
    ScenarioGiven given;
    const Scenario parsed = parse_scenario(input, cat(), given);
    ASSERT_TRUE(parsed.engine_defaulted) << input.dump();
    ASSERT_FALSE(given.engine || given.engine_version) << input.dump();
    Scenario derived = parsed;
    rederive_engine(cat(), false, false, derived);
    EXPECT_EQ(derived.engine, parsed.engine) << input.dump();
    EXPECT_EQ(derived.engine_version, parsed.engine_version) << input.dump();
    EXPECT_EQ(derived.engine_basis, parsed.engine_basis) << input.dump();
    EXPECT_TRUE(derived.engine_defaulted) << input.dump();
    // Through the editor, back at the base's key after another engine's derivation.
    ScenarioEditor editor(parsed, given, cat());
    const Task other = is_training(parsed.task) ? Task::kQlora : Task::kInference;
    editor.edit({.task = other, .weights = is_training(parsed.task) ? "nf4" : "int8"});
    const Scenario& back = editor.edit({});
    EXPECT_EQ(back.engine, parsed.engine) << input.dump();
    EXPECT_EQ(back.engine_basis, parsed.engine_basis) << input.dump();
  }
  const Scenario serve = parse_scenario(inputs[0], cat());
  EXPECT_EQ(serve.engine, "vllm");
  EXPECT_EQ(serve.engine_version, "0.21");
}

// The editor's engine and release are those of the candidate's task, weights row and GPU row:
// edits of other fields (lengths, batch, split, training options) in between leave them, and an
// edit back to a key gives the fields that key had before. The change search keeps the engine's
// rules by these three (advisor/changes.cc RulesByKey). Serving with the engine unnamed (vLLM,
// llama.cpp for GGUF weights or an Apple GPU), with a release given, and LoRA training (QLoRA
// and full fine-tuning as other keys).
TEST(ScenarioEdit, EditorsEngineIsItsTaskWeightsAndGpus) {
  const std::vector<std::pair<nlohmann::json, std::vector<ScenarioEdit>>> cases = {
      {{{"model", "llama-2-7b"}, {"gpu", "h100-sxm5-80gb"}, {"batch", 8}},
       {{.seq_len = 1024},
        {.weights = "q4_k_m"},
        {.batch = 2},
        {.weights = "q4_k_m", .seq_len = 1024},
        {.gpu = "apple-m2-ultra-192gb"},
        {.weights = "int8", .gpu_count = 2, .tp = 2, .pp = 1, .dp = 1},
        {.kv_cache = "fp8", .batch = 4},
        {.batch = 2, .gpu = "apple-m2-ultra-192gb"},
        {.weights = "int8"}}},
      {{{"model", "llama-2-7b"}, {"engine", "vllm"}, {"engine_version", "0.10"}, {"gpu", "h100"}},
       {{.seq_len = 1024}, {.weights = "fp8"}, {.batch = 4}, {.weights = "fp8", .batch = 2}}},
      {{{"model", "llama-3.1-8b"}, {"task", "lora"}, {"gpu", "a100-80g"}, {"batch", 8}},
       {{.recompute = Recompute::kFull},
        {.task = Task::kQlora, .weights = "nf4", .recompute = Recompute::kFull},
        {.optimizer = Optimizer::kAdamw8bit},
        {.task = Task::kFull},
        {.gpu_count = 2, .tp = 1, .pp = 1, .dp = 2, .zero_stage = 3},
        {.task = Task::kQlora, .weights = "nf4", .seq_len = 1024},
        {.task = Task::kFull, .batch = 2},
        {.seq_len = 1024}}}};
  for (const auto& [input, edits] : cases) {
    ScenarioGiven given;
    const Scenario parsed = parse_scenario(input, cat(), given);
    ScenarioEditor editor(parsed, given, cat());
    struct Seen {
      Task task;
      const NumberFormat* weights;
      const Gpu* gpu;
      std::string engine, version;
    };
    std::vector<Seen> seen;
    for (int round = 0; round < 2; ++round)
      for (const ScenarioEdit& e : edits) {
        const Scenario& s = editor.edit(e);
        bool met = false;
        for (const Seen& k : seen)
          if (k.task == s.task && k.weights == s.weights.get() && k.gpu == s.gpu.get()) {
            EXPECT_EQ(s.engine, k.engine) << input.dump();
            EXPECT_EQ(s.engine_version, k.version) << input.dump();
            met = true;
          }
        if (!met)
          seen.push_back({s.task, s.weights.get(), s.gpu.get(), s.engine, s.engine_version});
      }
    EXPECT_GE(seen.size(), 2u) << input.dump();
  }
  // Not vacuous: the first base's keys have two engines.
  ScenarioGiven given;
  const Scenario serve = parse_scenario(cases[0].first, cat(), given);
  ScenarioEditor editor(serve, given, cat());
  EXPECT_EQ(editor.edit({.seq_len = 1024}).engine, "vllm");
  EXPECT_EQ(editor.edit({.weights = "q4_k_m"}).engine, "llama.cpp");
}

// A training base's defaulted engine serves every training task the editor meets: each is the
// catalog's training default at its newest release (HF transformers, "all" releases but 4.35),
// the fields parse_scenario gives the same JSON with the edit's patch, for full fine-tuning and
// LoRA bases edited to each other training task, one editor through all of them and back; with
// a release given, the release is kept as parse_scenario keeps it.
TEST(ScenarioEdit, TrainingTasksTakeTheBasesDefaultEngine) {
  const std::vector<nlohmann::json> inputs = {
      {{"model", "qwen3-32b"},
       {"task", "full"},
       {"gpu", "h100"},
       {"gpu_count", 8},
       {"training", {{"zero_stage", 3}}}},
      {{"model", "llama-3.1-8b"}, {"task", "lora"}, {"gpu", "a100-80g"}},
      {{"model", "llama-3.1-8b"},
       {"task", "lora"},
       {"engine_version", "4.35"},
       {"gpu", "a100-80g"}}};
  const std::vector<ScenarioEdit> edits = {
      {.task = Task::kLora},
      {.task = Task::kQlora, .weights = "nf4", .recompute = Recompute::kFull},
      {.task = Task::kFreeze},
      {.task = Task::kPretrain},
      {.task = Task::kFull},
      {.task = Task::kQlora, .weights = "nf4", .seq_len = 1024},
      {}};
  for (const nlohmann::json& input : inputs) {
    ScenarioGiven given;
    const Scenario parsed = parse_scenario(input, cat(), given);
    ScenarioEditor editor(parsed, given, cat());
    for (const ScenarioEdit& e : edits) {
      const Scenario& s = editor.edit(e);
      const Scenario expected = patched(input, e);
      EXPECT_EQ(s.task, expected.task) << input.dump();
      EXPECT_EQ(s.engine, "hf") << input.dump();
      EXPECT_EQ(s.engine, expected.engine) << input.dump();
      EXPECT_EQ(s.engine_version, expected.engine_version) << input.dump();
      EXPECT_EQ(s.engine_basis, expected.engine_basis) << input.dump();
      EXPECT_EQ(s.engine_defaulted, expected.engine_defaulted) << input.dump();
    }
  }
}

// An unnamed KV format is the default for the weights (fp16 for fp16, fp32 for fp32, else bf16),
// and the editor keeps the base's row for it when that row is the catalog's own with the
// default's id. Every default names a KV format, so the row is the one the lookup finds. A
// base whose row is built by hand (same id "bf16", 12 bits) is not kept: the edit takes the
// catalog's bf16 row (16 bits), as parse_scenario gives for the same JSON.
TEST(ScenarioEdit, UnnamedKvRowIsTheCatalogsDefault) {
  for (const NumberFormat& w : cat().formats()) {
    if (!w.usable_for_role("weights")) continue;
    EXPECT_TRUE(cat().format(default_kv_id(w), "kv", "kv_cache").usable_for_role("kv")) << w.id;
  }
  const nlohmann::json serve = {{"model", "llama-2-7b"}, {"gpu", "h100-sxm5-80gb"}};
  ScenarioGiven given;
  Scenario parsed = parse_scenario(serve, cat(), given);
  ASSERT_EQ(parsed.kv_cache->id, "bf16");
  ScenarioEditor editor(parsed, given, cat());
  EXPECT_EQ(editor.edit({.seq_len = 1024}).kv_cache.get(), parsed.kv_cache.get());
  EXPECT_EQ(editor.edit({.weights = "int8"}).kv_cache.get(), parsed.kv_cache.get());
  NumberFormat by_hand = *parsed.kv_cache;
  by_hand.bits_per_value = 12;
  parsed.kv_cache = by_hand;
  ScenarioEditor over_hand(parsed, given, cat());
  const Scenario& e = over_hand.edit({.seq_len = 1024});
  EXPECT_EQ(e.kv_cache.get(), &cat().format("bf16", "kv", "kv_cache"));
  EXPECT_EQ(e.kv_cache->bits_per_value, 16);
}

// The same for training with a release given and the default engine (HF transformers 4.35): the
// release stays through a change of method, and the layout and batch fields come back.
TEST(ScenarioEdit, EditorKeepsAGivenReleaseAndRestoresTheLayout) {
  const nlohmann::json train = {
      {"model", "llama-2-7b"},    {"task", "lora"}, {"gpu", "a100-sxm4-80gb"},
      {"engine_version", "4.35"}, {"batch", 8},     {"seq_len", 4096}};
  ScenarioGiven given;
  const Scenario parsed = parse_scenario(train, cat(), given);
  ScenarioEditor editor(parsed, given, cat());
  const std::vector<ScenarioEdit> edits = {
      {.task = Task::kQlora, .weights = "nf4", .recompute = Recompute::kFull},
      {.recompute = Recompute::kFull},
      {.gpu_count = 4, .tp = 1, .pp = 1, .dp = 4, .zero_stage = 3},
      {.batch = 2, .grad_accum = 4},
      {.task = Task::kQlora, .weights = "nf4", .seq_len = 1024},
      {},
  };
  for (const ScenarioEdit& e : edits)
    expect_same_edit(editor.edit(e), edited(parsed, given, e, cat()));
  const Scenario& back = editor.edit({});
  EXPECT_EQ(back.engine_version, "4.35");
  EXPECT_EQ(back.gpu_count, 1);
  EXPECT_EQ(back.training.zero_stage, 0);
  EXPECT_EQ(back.training.global_batch, 8);  // 8 x 1 x 1
}

}  // namespace
}  // namespace gpusizer

namespace gpusizer {
namespace {

// The field and message an edit throws, "" when it does not.
std::string error_of(const std::function<void()>& edit) {
  try {
    edit();
  } catch (const InputError& e) {
    return e.field() + " | " + e.what();
  }
  return "";
}

// Each edit through `editor` throws what edited() throws for it (which checks the scenario
// whole), and that error names `field` ("" for none).
void expect_edits_throw_as_edited(ScenarioEditor& editor, const Scenario& parsed,
                                  const ScenarioGiven& given,
                                  const std::vector<std::pair<ScenarioEdit, std::string>>& edits) {
  for (const auto& edit_and_field : edits) {
    // Named, not a structured binding: clang before 16 cannot capture one in a lambda.
    const auto& e = edit_and_field.first;
    const auto& field = edit_and_field.second;
    const std::string whole = error_of([&] { edited(parsed, given, e, cat()); });
    EXPECT_EQ(whole.substr(0, whole.find(" | ")), field);
    EXPECT_EQ(error_of([&] { editor.edit(e); }), whole);
  }
}

// Full fine-tuning of Llama-2-7B naming a LoRA target the model lacks (not checked for full).
nlohmann::json full_finetune_naming_a_missing_target() {
  return {{"model", "llama-2-7b"},
          {"task", "full"},
          {"gpu", "a100-sxm4-80gb"},
          {"training", {{"lora_targets", {"q_proj", "nonexistent_proj"}}}}};
}

// From its second edit on, an editor over a valid base makes only the checks that read a field
// the edit changed (src/scenario/validated.h); each edit still throws what edited() throws,
// which checks it whole. Full fine-tuning of Llama-2-7B names a LoRA target it lacks (not
// checked for full), so an edit to LoRA throws for the target; QLoRA on its bf16 weights throws
// for the weights first; TP 64 exceeds the 32 heads; vLLM serves and does not train LoRA.
TEST(ScenarioEdit, EditorChecksWhatAnEditChanges) {
  const nlohmann::json full = full_finetune_naming_a_missing_target();
  ScenarioGiven given;
  const Scenario parsed = parse_scenario(full, cat(), given);
  ScenarioEditor editor(parsed, given, cat());
  const std::vector<std::pair<ScenarioEdit, std::string>> edits = {
      {{}, ""},
      {{.batch = 2}, ""},
      {{.task = Task::kLora}, "training.lora_targets[1]"},
      {{.task = Task::kQlora}, "weights"},
      {{.task = Task::kQlora, .weights = "nf4"}, "training.lora_targets[1]"},
      {{.gpu_count = 64, .tp = 64, .pp = 1, .dp = 1}, "parallel.tp"},
      {{.gpu_count = 6, .tp = 4, .pp = 1, .dp = 1}, "gpu_count"},
      {{.seq_len = 1024}, ""},
  };
  expect_edits_throw_as_edited(editor, parsed, given, edits);
  const nlohmann::json serve = {{"model", "llama-2-7b"}, {"engine", "vllm"}, {"gpu", "h100"}};
  const Scenario served = parse_scenario(serve, cat(), given);
  ScenarioEditor serving(served, given, cat());
  EXPECT_EQ(error_of([&] { serving.edit({.batch = 2}); }), "");
  EXPECT_EQ(error_of([&] { serving.edit({.batch = 4}); }), "");
  const std::string lora = error_of([&] { serving.edit({.task = Task::kLora}); });
  EXPECT_EQ(lora.substr(0, lora.find(" | ")), "engine");
  EXPECT_EQ(lora, error_of([&] { edited(served, given, {.task = Task::kLora}, cat()); }));
}

// An editor in place writes its edits over the caller's resolved scenario and gives what edited()
// gives the parsed one (the resolved one with its layout fields put back); destroyed, it leaves
// the scenario as it was: vLLM serving on an H100 resolved to its layout and memory fraction
// (0.9), LoRA training with a given release and full fine-tuning with the default engine and
// release (the QLoRA edit derives another engine, the edits after it go back to the base's),
// each through edits of the weights, GPU, split, lengths, task and training options, one throwing
// (TP 64 over 32 heads).
TEST(ScenarioEdit, EditorInPlacePutsTheScenarioBack) {
  const std::vector<nlohmann::json> inputs = {
      {{"model", "llama-2-7b"},
       {"weights", "fp16"},
       {"engine", "vllm"},
       {"gpu", "h100-sxm5-80gb"},
       {"gpu_count", 2},
       {"traffic", {{"requests_per_s", 2}}}},
      {{"model", "llama-2-7b"},
       {"task", "lora"},
       {"gpu", "a100-sxm4-80gb"},
       {"engine_version", "4.35"},
       {"batch", 8}},
      {{"model", "llama-2-7b"}, {"task", "full"}, {"gpu", "a100-sxm4-80gb"}, {"gpu_count", 2}}};
  const std::vector<ScenarioEdit> edits = {
      {.weights = "int8"},
      {.gpu = "apple-m2-ultra-192gb"},
      {.gpu_count = 64, .tp = 64, .pp = 1, .dp = 1},  // throws
      {.seq_len = 1024},
      {.task = Task::kQlora, .weights = "nf4", .recompute = Recompute::kFull},
      {.gpu_count = 4, .tp = 1, .pp = 1, .dp = 4, .zero_stage = 3},
      {.batch = 2, .grad_accum = 4},
      {.kv_cache = "fp8"},
      {},
  };
  for (const nlohmann::json& input : inputs) {
    ScenarioGiven given;
    const Scenario parsed = parse_scenario(input, cat(), given);
    const Scenario before = resolved(parsed, cat());
    Scenario s = before;
    {
      ScenarioEditor editor(ScenarioEditor::InPlace{}, s, layout_fields(parsed), given, cat(),
                            /*base_valid=*/true);
      for (const ScenarioEdit& e : edits) {
        const std::string whole = error_of([&] { edited(parsed, given, e, cat()); });
        std::string in_place;
        try {
          const Scenario& got = editor.edit(e);
          EXPECT_EQ(&got, &s);
          expect_same_edit(got, edited(parsed, given, e, cat()));
        } catch (const InputError& error) {
          in_place = error.field() + " | " + error.what();
        }
        EXPECT_EQ(in_place, whole);
      }
    }
    expect_same(s, before);
    EXPECT_EQ(s.engine_defaulted, before.engine_defaulted);
    EXPECT_EQ(s.gpu_memory_utilization, before.gpu_memory_utilization);
    EXPECT_EQ(s.lookups.engine, before.lookups.engine);
    EXPECT_EQ(s.model->id, "llama-2-7b");
  }
}

// An editor told that its base is valid (a search over a scenario parse_scenario just returned)
// never checks the base: from the first edit on, its checks are those of the fields the edit
// changed, and each edit throws what edited() throws. The edits of the test above in another
// order, the throwing ones first; then a base that is not valid (6 GPUs for dp 4 x 1 GPU, as
// below) but said to be: an edit of the batch alone is not checked for the split.
TEST(ScenarioEdit, EditorToldItsBaseIsValidChecksOnlyTheEdits) {
  const nlohmann::json full = full_finetune_naming_a_missing_target();
  ScenarioGiven given;
  const Scenario parsed = parse_scenario(full, cat(), given);
  ScenarioEditor editor(parsed, layout_fields(parsed), given, cat(), /*base_valid=*/true);
  const std::vector<std::pair<ScenarioEdit, std::string>> edits = {
      {{.task = Task::kLora}, "training.lora_targets[1]"},
      {{.gpu_count = 64, .tp = 64, .pp = 1, .dp = 1}, "parallel.tp"},
      {{.task = Task::kQlora}, "weights"},
      {{.batch = 2}, ""},
      {{.gpu_count = 6, .tp = 4, .pp = 1, .dp = 1}, "gpu_count"},
      {{.task = Task::kQlora, .weights = "nf4"}, "training.lora_targets[1]"},
      {{.seq_len = 1024}, ""},
      {{}, ""},
  };
  expect_edits_throw_as_edited(editor, parsed, given, edits);
  Scenario wrong =
      parse_scenario({{"model", "llama-2-7b"}, {"gpu_count", 4}, {"task", "full"}}, cat(), given);
  wrong.gpu_count = 6;
  ScenarioEditor trusting(wrong, layout_fields(wrong), given, cat(), /*base_valid=*/true);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(error_of([&] { trusting.edit({.batch = 2}); }), "") << i;
}

// A base that fails validate() (changed by hand into a wrong split: 6 GPUs cannot hold dp 4
// replicas of 1 GPU) is checked whole at every edit, the second and later ones too.
TEST(ScenarioEdit, EditorOverAnInvalidBaseChecksEverything) {
  ScenarioGiven given;
  Scenario s =
      parse_scenario({{"model", "llama-2-7b"}, {"gpu_count", 4}, {"task", "full"}}, cat(), given);
  s.gpu_count = 6;
  ScenarioEditor editor(s, given, cat());
  for (int i = 0; i < 3; ++i) {
    const std::string error = error_of([&] { editor.edit({.batch = 2}); });
    EXPECT_EQ(error.substr(0, error.find(" | ")), "gpu_count") << i;
  }
}

}  // namespace
}  // namespace gpusizer
