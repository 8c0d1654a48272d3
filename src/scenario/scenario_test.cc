// Scenario parsing: defaults, and one clear InputError naming the field for every bad input.
#include "gpusizer/scenario.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>

#include "gpusizer/error.h"
#include "scenario/scenario_fields.h"

namespace gpusizer {
namespace {

Scenario parse(const nlohmann::json& j) {
  return parse_scenario(j, Catalog::builtin());
}

// Expects an InputError whose field is `field` and whose message contains `text`.
void expect_error(const nlohmann::json& j, const std::string& field, const std::string& text = "") {
  try {
    parse(j);
    ADD_FAILURE() << "no error for " << j.dump();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(Scenario, ContractDefaults) {
  const Scenario s = parse({{"model", "llama-2-7b"}});
  EXPECT_EQ(s.task, Task::kInference);
  EXPECT_EQ(s.weights->id, "bf16");
  EXPECT_EQ(s.kv_cache->id, "bf16");
  EXPECT_EQ(s.batch, 1);
  EXPECT_EQ(s.seq_len, 2048);
  EXPECT_EQ(s.prompt_len, 1536);
  EXPECT_EQ(s.output_len, 512);
  // Serving defaults to vLLM (issue 12 item 7; engines.json defaults), its newest release.
  EXPECT_EQ(s.engine, "vllm");
  EXPECT_EQ(s.engine_version, "0.21");
  EXPECT_DOUBLE_EQ(s.gpu_memory_utilization, 0.9);
  EXPECT_EQ(s.gpu_count, 1);
}

TEST(Scenario, NamesAreCaseInsensitiveAndTakeAliases) {
  EXPECT_EQ(parse({{"model", "meta-llama/Llama-2-7b-hf"}}).model->id, "llama-2-7b");
  EXPECT_EQ(parse({{"model", "LLAMA-2-7B"}, {"gpu", "A100-80G"}}).gpu->id, "a100-sxm4-80gb");
  EXPECT_EQ(parse({{"model", "llama-2-7b"}, {"gpu", "4090"}}).gpu->id, "rtx-4090-24gb");
}

// The scenario's model is the catalog's own row, shared, not copied (issue 18); a change is made
// on a copy (ModelRef::edit), which leaves the catalog's row and the scenarios sharing it as they
// were.
TEST(Scenario, HoldsTheCatalogsModelRowAndChangesACopy) {
  const Catalog& catalog = Catalog::builtin();
  Scenario s = parse({{"model", "llama-2-7b"}});
  const Model* row = &catalog.model("llama-2-7b");
  EXPECT_EQ(s.model.get(), row);
  EXPECT_EQ(parse({{"model", "meta-llama/Llama-2-7b-hf"}}).model.get(), row);
  const Scenario copy = s;
  EXPECT_EQ(copy.model.get(), row);
  s.model.edit().num_layers = 16;
  EXPECT_NE(s.model.get(), row);
  EXPECT_EQ(s.model->num_layers, 16);
  EXPECT_EQ(s.model->id, "llama-2-7b");
  EXPECT_EQ(row->num_layers, 32);  // Llama-2-7B's config.json: num_hidden_layers 32
  EXPECT_EQ(copy.model->num_layers, 32);
  EXPECT_EQ(parse({{"model", "llama-2-7b"}}).model->num_layers, 32);
}

// An inline hf_config's model is the import cache's entry, shared by every line that repeats it.
TEST(Scenario, SharesAnInlineConfigsImportedModel) {
  const nlohmann::json config = {{"architectures", {"LlamaForCausalLM"}},
                                 {"model_type", "llama"},
                                 {"hidden_size", 4096},
                                 {"intermediate_size", 11008},
                                 {"num_attention_heads", 32},
                                 {"num_hidden_layers", 32},
                                 {"vocab_size", 32000}};
  const Scenario a = parse({{"model", {{"hf_config", config}}}});
  Scenario b = parse({{"model", {{"hf_config", config}}}});
  EXPECT_EQ(a.model.get(), b.model.get());
  b.model.edit().num_layers = 16;
  EXPECT_EQ(a.model->num_layers, 32);
  EXPECT_EQ(parse({{"model", {{"hf_config", config}}}}).model->num_layers, 32);
}

// Two Mistral 7B releases differ in their window and vocabulary: the bare name is the current
// release (v0.3, data/aliases.csv), v0.1's hub ids are v0.1, and v0.2 has v0.3's shapes.
TEST(Scenario, MistralSevenBNamesTheCurrentReleaseUnlessV01IsNamed) {
  EXPECT_EQ(parse({{"model", "mistral-7b"}}).model->id, "mistral-7b-v0.3");
  EXPECT_EQ(parse({{"model", "mistralai/Mistral-7B-v0.1"}}).model->id, "mistral-7b-v0.1");
  EXPECT_EQ(parse({{"model", "mistralai/Mistral-7B-Instruct-v0.1"}}).model->id, "mistral-7b-v0.1");
  EXPECT_EQ(parse({{"model", "mistralai/Mistral-7B-Instruct-v0.2"}}).model->id, "mistral-7b-v0.3");
  EXPECT_EQ(parse({{"model", "mistral-7b-v0.1"}}).model->sliding_window, 4096);
}

TEST(Scenario, QloraDefaultsToNf4) {
  EXPECT_EQ(parse({{"model", "llama-2-7b"}, {"task", "qlora"}}).weights->id, "nf4");
}

// Serving defaults to the format the checkpoint ships in. DeepSeek-V3's config.json holds
// quantization_config {quant_method: fp8, weight_block_size [128, 128]}, which vLLM loads as FP8;
// gpt-oss ships its routed experts in MXFP4. Training upcasts to 16 bits (LoRA and full
// fine-tuning alike), and QLoRA quantizes an FP8 base to NF4 but keeps a GPTQ one.
TEST(Scenario, WeightsDefaultToTheCheckpointsFormatWhereTheTaskLoadsItAsShipped) {
  EXPECT_EQ(parse({{"model", "deepseek-v3"}}).weights->id, "fp8");
  EXPECT_EQ(parse({{"model", "deepseek-ai/DeepSeek-R1"}}).weights->id, "fp8");
  EXPECT_EQ(parse({{"model", "gpt-oss-120b"}}).weights->id, "mxfp4");
  EXPECT_EQ(parse({{"model", "deepseek-v3"}, {"task", "lora"}}).weights->id, "bf16");
  EXPECT_EQ(parse({{"model", "deepseek-v3"}, {"task", "full"}}).weights->id, "bf16");
  EXPECT_EQ(parse({{"model", "deepseek-v3"}, {"task", "qlora"}}).weights->id, "nf4");
  EXPECT_EQ(parse({{"model", "deepseek-v3"}, {"weights", "bf16"}}).weights->id, "bf16");
  EXPECT_EQ(parse({{"model", "llama-3.1-8b"}}).weights->id, "bf16");
  // The same rule for a config.json given inline: QLoRA of an FP8 checkpoint was refused with an
  // error on "weights", a field the scenario did not set.
  const nlohmann::json fp8_config = {
      {"model_type", "llama"},      {"hidden_size", 4096},
      {"intermediate_size", 14336}, {"num_hidden_layers", 32},
      {"num_attention_heads", 32},  {"num_key_value_heads", 8},
      {"vocab_size", 128256},       {"quantization_config", {{"quant_method", "fp8"}}}};
  const nlohmann::json inline_model = {{"hf_config", fp8_config}};
  EXPECT_EQ(parse({{"model", inline_model}}).weights->id, "fp8");
  EXPECT_EQ(parse({{"model", inline_model}, {"task", "qlora"}}).weights->id, "nf4");
  EXPECT_EQ(parse({{"model", inline_model}, {"task", "full"}}).weights->id, "bf16");
  nlohmann::json gptq_config = fp8_config;
  gptq_config["quantization_config"] = {{"quant_method", "gptq"}, {"bits", 4}};
  const nlohmann::json gptq_model = {{"hf_config", gptq_config}};
  EXPECT_EQ(parse({{"model", gptq_model}, {"task", "qlora"}}).weights->id, "gptq-int4");
  EXPECT_EQ(parse({{"model", gptq_model}}).weights->id, "gptq-int4");
}

// gpt-oss-120b's model card gives its checkpoint as 60.8 GiB: the routed experts in MXFP4 (4 bits
// and an 8-bit scale per 32 values, 4.25 bits) and attention, router, embeddings and head in bf16.
TEST(Scenario, GptOssWeightsAsShippedMatchTheModelCardsCheckpointSize) {
  const Estimate e = estimate(
      resolve_scenario({{"model", "gpt-oss-120b"}, {"gpu", "h100-sxm5-80gb"}}, Catalog::builtin()),
      Catalog::builtin(), Detail::kMemory);
  EXPECT_NEAR(e.memory.weights / (1024.0 * 1024.0 * 1024.0), 60.8, 0.6);
}

TEST(Scenario, GpuCountLeavesTheServingSplitToTheLayoutRule) {
  // parse_scenario marks the split as the layout rule's to choose (estimate/layout.h); with no
  // GPU to check the fit against, the rule spreads the model over all GPUs as the engine splits.
  const Scenario parsed = parse({{"model", "llama-2-70b"}, {"engine", "vllm"}, {"gpu_count", 4}});
  EXPECT_TRUE(parsed.default_layout);
  const Scenario vllm = resolve_scenario(
      {{"model", "llama-2-70b"}, {"engine", "vllm"}, {"gpu_count", 4}}, Catalog::builtin());
  EXPECT_EQ(vllm.parallel.tp, 4);
  const Scenario hf = resolve_scenario(
      {{"model", "llama-2-70b"}, {"engine", "hf"}, {"gpu_count", 2}}, Catalog::builtin());
  EXPECT_EQ(hf.parallel.pp, 2);
  const Scenario train = parse({{"model", "llama-2-7b"}, {"task", "full"}, {"gpu_count", 8}});
  EXPECT_EQ(train.parallel.dp, 8);
}

TEST(Scenario, UnknownNamesSuggestTheClosest) {
  expect_error({{"model", "lama-2-7b"}}, "model", "did you mean llama-2-7b");
  expect_error({{"model", "llama-2-7"}}, "model", "ambiguous");
  expect_error({{"model", "llama-2-7b"}, {"gpu", "a100-sxm-80gb"}}, "gpu", "a100-sxm4-80gb");
  expect_error({{"model", "llama-2-7b"}, {"weights", "bf61"}}, "weights", "bf16");
  expect_error({{"model", "llama-2-7b"}, {"task", "infer"}}, "task", "inference");
  expect_error({{"model", "llama-2-7b"}, {"engine", "vllmm"}}, "engine", "vllm");
}

TEST(Scenario, AmbiguousShortAliasListsTheMatches) {
  expect_error({{"model", "llama-2-7b"}, {"gpu", "a100"}}, "gpu", "ambiguous");
}

// A card named without its memory size is that card, not a variant that adds a word: "rtx-3090"
// is the RTX 3090 24GB beside the 3090 Ti, "GeForce RTX 4090" (the name less its "24GB") the
// 4090 beside the 4090 D; "a100" names four cards of two forms and two sizes and stays ambiguous.
TEST(Scenario, CardNamedWithoutItsMemorySizeIsThatCard) {
  auto gpu_of = [](const char* name) {
    return parse({{"model", "llama-2-7b"}, {"gpu", name}}).gpu->id;
  };
  EXPECT_EQ(gpu_of("rtx-3090"), "rtx-3090-24gb");
  EXPECT_EQ(gpu_of("RTX 3090 Ti"), "rtx-3090-ti-24gb");
  EXPECT_EQ(gpu_of("GeForce RTX 4090"), "rtx-4090-24gb");
  EXPECT_EQ(gpu_of("l40"), "l40-48gb");
}

// A name only part of an id matched is said: the catalog has the RTX 5070 Ti and not the RTX
// 5070, so "5070" is read as the Ti with a note; names, ids, aliases and ids without their
// memory size pass without one ("4080" is the alias of the plain RTX 4080, "4080 super" the
// only card whose id holds those words).
TEST(Scenario, PartialNameIsSaid) {
  const Scenario partial = parse({{"model", "qwen3-235b"}, {"gpu", "5070"}});
  EXPECT_EQ(partial.gpu->id, "rtx-5070-ti-16gb");
  ASSERT_EQ(partial.notes.size(), 1u);  // the model's own: report/api.cc names_entry
  EXPECT_NE(partial.notes[0].find("gpu '5070' read as rtx-5070-ti-16gb"), std::string::npos);
  EXPECT_EQ(parse({{"model", "llama-2-7b"}, {"gpu", "4080"}}).gpu->id, "rtx-4080-16gb");
  EXPECT_EQ(parse({{"model", "llama-2-7b"}, {"gpu", "4080 super"}}).gpu->id, "rtx-4080-super-16gb");
  for (const char* name : {"h100", "rtx-4080-super-16gb", "rtx-3090", "GeForce RTX 4090", "4080"})
    EXPECT_TRUE(parse({{"model", "llama-2-7b"}, {"gpu", name}}).notes.empty()) << name;
}

TEST(Scenario, BadNumbersNameTheField) {
  const nlohmann::json base = {{"model", "llama-2-7b"}};
  auto with = [&](const char* key, nlohmann::json v) {
    nlohmann::json j = base;
    j[key] = v;
    return j;
  };
  expect_error(with("batch", 0), "batch", "between");
  expect_error(with("batch", -4), "batch");
  expect_error(with("batch", 1.5), "batch", "whole");
  expect_error(with("batch", "8"), "batch", "number");
  expect_error(with("batch", 1e30), "batch");
  expect_error(with("seq_len", std::numeric_limits<double>::quiet_NaN()), "seq_len", "finite");
  expect_error(with("seq_len", std::numeric_limits<double>::infinity()), "seq_len", "finite");
  expect_error(with("gpu_memory_utilization", 1.5), "gpu_memory_utilization");
  expect_error({{"model", "llama-2-7b"}, {"training", {{"lora_rank", 0}}}}, "training.lora_rank");
  expect_error({{"model", "llama-2-7b"}, {"training", {{"zero_stage", 4}}}}, "training.zero_stage");
}

TEST(Scenario, CombinationsThatMakeNoSense) {
  expect_error({{"model", "llama-2-7b"}, {"task", "qlora"}, {"weights", "fp32"}}, "weights",
               "quantized");
  expect_error({{"model", "llama-2-7b"}, {"parallel", {{"tp", 64}}}}, "parallel.tp", "heads");
  expect_error({{"model", "llama-2-7b"}, {"parallel", {{"pp", 33}}}}, "parallel.pp", "layers");
  expect_error({{"model", "llama-2-7b"}, {"parallel", {{"ep", 2}}}}, "parallel.ep");
  // A vision model has no experts either (a hostile line once sized a CNN's gradient buckets
  // and communicators for three expert ranks).
  expect_error({{"model", "yolov8m"}, {"task", "cv-train"}, {"parallel", {{"ep", 3}}}},
               "parallel.ep", "mixture-of-experts");
  expect_error({{"model", "llama-2-7b"}, {"engine", "vllm"}, {"task", "full"}}, "engine");
  expect_error({{"model", "llama-2-7b"}, {"task", "cv-train"}}, "task");
  expect_error({{"model", "yolov8m"}}, "task", "cv-train");
  expect_error({{"model", "llama-2-7b"}, {"gpu_count", 3}, {"parallel", {{"tp", 2}}}}, "gpu_count");
  expect_error(
      {{"model", "llama-2-7b"}, {"task", "lora"}, {"training", {{"lora_targets", {"q_prj"}}}}},
      "training.lora_targets[0]", "q_proj");
  // After "all-linear", which names no module, a target that names none is still refused.
  expect_error({{"model", "llama-2-7b"},
                {"task", "qlora"},
                {"training", {{"lora_targets", {"all-linear", "v_prj"}}}}},
               "training.lora_targets[1]", "v_proj");
}

TEST(Scenario, MissingOrMalformedModel) {
  expect_error(nlohmann::json::object(), "model", "required");
  expect_error({{"model", 7}}, "model", "string or an object");
  expect_error({{"model", {{"params", -1}}}}, "model.params");
  expect_error({{"model", {{"foo", 1}}}}, "model");
  expect_error(nlohmann::json::array(), "", "object");
}

TEST(Scenario, UnknownFieldsBecomeWarningsWithSuggestions) {
  const Scenario s = parse({{"model", "llama-2-7b"}, {"seq_length", 4096}});
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_NE(s.notes[0].find("seq_len"), std::string::npos);
}

TEST(Scenario, UnknownFieldsInsideTrainingAndParallel) {
  const Scenario s = parse({{"model", "llama-2-7b"},
                            {"task", "lora"},
                            {"training", {{"lora_rnk", 4}}},
                            {"parallel", {{"tpp", 1}}}});
  ASSERT_EQ(s.notes.size(), 2u);
  EXPECT_NE(s.notes[0].find("'training.lora_rnk' (did you mean 'lora_rank'?)"), std::string::npos)
      << s.notes[0];
  EXPECT_NE(s.notes[1].find("'parallel.tpp'"), std::string::npos) << s.notes[1];
}

// Every key of the contract's scenario example (docs/contract.md) is one parse_scenario knows.
TEST(Scenario, KeysCoverTheContract) {
  std::ifstream in(std::string(GPUSIZER_SOURCE_DIR) + "/docs/contract.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t begin = doc.find("## Scenario (input JSON)");
  const size_t end = doc.find("\n## ", begin + 1);
  ASSERT_NE(begin, std::string::npos);
  const std::string section = doc.substr(begin, end - begin);

  const ScenarioKeys& keys = scenario_keys();
  std::vector<std::string> known;
  for (const auto* list : {&keys.top, &keys.model, &keys.training, &keys.parallel})
    known.insert(known.end(), list->begin(), list->end());
  const std::regex key(R"re("([a-z_]+)":)re");
  size_t found = 0;
  for (auto it = std::sregex_iterator(section.begin(), section.end(), key);
       it != std::sregex_iterator(); ++it, ++found)
    EXPECT_NE(std::find(known.begin(), known.end(), (*it)[1].str()), known.end())
        << (*it)[1].str() << " is in docs/contract.md but not in scenario_keys()";
  EXPECT_GT(found, 30u);
}

// The slots parse_scenario reads each field from (scenario/scenario_fields.h) are the lists'
// positions of those names.
TEST(Scenario, FieldSlotsAreTheKeyListsPositions) {
  const ScenarioKeys& keys = scenario_keys();
  ASSERT_EQ(keys.top.size(), key::kTopCount);
  EXPECT_EQ(keys.top[key::model], "model");
  EXPECT_EQ(keys.top[key::task], "task");
  EXPECT_EQ(keys.top[key::weights], "weights");
  EXPECT_EQ(keys.top[key::kv_cache], "kv_cache");
  EXPECT_EQ(keys.top[key::batch], "batch");
  EXPECT_EQ(keys.top[key::seq_len], "seq_len");
  EXPECT_EQ(keys.top[key::prompt_len], "prompt_len");
  EXPECT_EQ(keys.top[key::output_len], "output_len");
  EXPECT_EQ(keys.top[key::engine], "engine");
  EXPECT_EQ(keys.top[key::engine_version], "engine_version");
  EXPECT_EQ(keys.top[key::gpu_memory_utilization], "gpu_memory_utilization");
  EXPECT_EQ(keys.top[key::max_num_batched_tokens], "max_num_batched_tokens");
  EXPECT_EQ(keys.top[key::training], "training");
  EXPECT_EQ(keys.top[key::parallel], "parallel");
  EXPECT_EQ(keys.top[key::gpu], "gpu");
  EXPECT_EQ(keys.top[key::gpu_count], "gpu_count");
  EXPECT_EQ(keys.top[key::gpus_per_node], "gpus_per_node");
  EXPECT_EQ(keys.top[key::image_size], "image_size");
  EXPECT_EQ(keys.top[key::dataset_items], "dataset_items");
  EXPECT_EQ(keys.top[key::epochs], "epochs");
  EXPECT_EQ(keys.top[key::method], "method");
  EXPECT_EQ(keys.top[key::changes], "changes");
  EXPECT_EQ(keys.top[key::basis], "basis");
  EXPECT_EQ(keys.top[key::costs], "costs");
  EXPECT_EQ(keys.top[key::facility], "facility");
  EXPECT_EQ(keys.top[key::traffic], "traffic");
  EXPECT_EQ(keys.top[key::slo], "slo");
  EXPECT_EQ(keys.top[key::offline_requests], "offline_requests");

  ASSERT_EQ(keys.training.size(), training_key::kCount);
  EXPECT_EQ(keys.training[training_key::optimizer], "optimizer");
  EXPECT_EQ(keys.training[training_key::mixed_precision], "mixed_precision");
  EXPECT_EQ(keys.training[training_key::gradient_checkpointing], "gradient_checkpointing");
  EXPECT_EQ(keys.training[training_key::flash_attention], "flash_attention");
  EXPECT_EQ(keys.training[training_key::lora_rank], "lora_rank");
  EXPECT_EQ(keys.training[training_key::lora_targets], "lora_targets");
  EXPECT_EQ(keys.training[training_key::modules_to_save], "modules_to_save");
  EXPECT_EQ(keys.training[training_key::zero_stage], "zero_stage");
  EXPECT_EQ(keys.training[training_key::offload], "offload");
  EXPECT_EQ(keys.training[training_key::grad_accum], "grad_accum");
  EXPECT_EQ(keys.training[training_key::global_batch], "global_batch");
  EXPECT_EQ(keys.training[training_key::tokens], "tokens");
  EXPECT_EQ(keys.training[training_key::chunked_loss], "chunked_loss");
  EXPECT_EQ(keys.training[training_key::optimizer_in_backward], "optimizer_in_backward");
  EXPECT_EQ(keys.training[training_key::activation_offload], "activation_offload");
  EXPECT_EQ(keys.training[training_key::compile], "compile");
  EXPECT_EQ(keys.training[training_key::trainable_layers], "trainable_layers");

  ASSERT_EQ(keys.parallel.size(), parallel_key::kCount);
  EXPECT_EQ(keys.parallel[parallel_key::tp], "tp");
  EXPECT_EQ(keys.parallel[parallel_key::pp], "pp");
  EXPECT_EQ(keys.parallel[parallel_key::dp], "dp");
  EXPECT_EQ(keys.parallel[parallel_key::ep], "ep");
  EXPECT_EQ(keys.parallel[parallel_key::sequence_parallel], "sequence_parallel");
  EXPECT_EQ(keys.parallel[parallel_key::pp_interleave], "pp_interleave");
  EXPECT_EQ(keys.parallel[parallel_key::cp], "cp");
}

// Null reads as absent everywhere, but a knob the engine lacks is noted even when null (as
// before the one-pass reader: the note asked whether the key was there).
TEST(Scenario, NullFieldsAreAbsentButANullKnobIsStillNoted) {
  const Scenario s = parse({{"model", "llama-2-7b"},
                            {"engine", "hf"},
                            {"batch", nullptr},
                            {"seq_len", nullptr},
                            {"gpu_memory_utilization", nullptr}});
  EXPECT_EQ(s.batch, 1);
  EXPECT_EQ(s.seq_len, 2048);
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_EQ(s.notes[0].rfind("gpu_memory_utilization is ignored: hf has no such setting", 0), 0u)
      << s.notes[0];
}

// Two bad fields: the one read first is named, in parse_scenario's order (the model, the task,
// the formats, the lengths, the batch, the engine, ...), not in the object's key order.
TEST(Scenario, TheFirstFieldReadIsTheOneNamed) {
  expect_error({{"model", "llama-2-7b"}, {"batch", 0}, {"seq_len", 0}}, "seq_len");
  expect_error({{"model", "llama-2-7b"}, {"batch", 0}, {"weights", 4}}, "weights");
  expect_error({{"model", "llama-2-7b"}, {"engine", 1}, {"batch", "x"}}, "batch");
  expect_error({{"model", "llama-2-7b"}, {"epochs", 0}, {"gpu", 3}}, "gpu");
  expect_error({{"model", 1}, {"task", "x"}}, "model");
  expect_error({{"model", "llama-2-7b"},
                {"training", {{"zero_stage", 9}, {"optimizer", "sgdd"}}},
                {"parallel", {{"tp", 0}}}},
               "training.optimizer");
  expect_error({{"model", "llama-2-7b"}, {"parallel", {{"tp", 0}, {"dp", 0}}}}, "parallel.tp");
}

}  // namespace
}  // namespace gpusizer
