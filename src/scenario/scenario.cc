// Scenario parsing: the contract's input JSON (docs/contract.md) -> a checked Scenario with every
// default applied. Every bad field is named; unknown fields become warnings.
#include "gpusizer/scenario.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "catalog/hub_names.h"
#include "core/json_fields.h"
#include "gpusizer/error.h"
#include "gpusizer/importers.h"
#include "gpusizer/json/importers.h"
#include "gpusizer/json/scenario.h"
#include "gpusizer/model_store.h"
#include "gpusizer/scenario_edit.h"
#include "scenario/config_cache.h"
#include "scenario/defaults.h"
#include "scenario/engine_choice.h"
#include "scenario/lookups.h"
#include "scenario/scenario_fields.h"
#include "scenario/traffic.h"
#include "scenario/validated.h"

namespace gpusizer {

// The defaults that follow other fields, shared by parse_scenario and edited()
// (scenario/defaults.h).

// The KV cache follows 16- and 32-bit float weights, else bf16.
std::string_view default_kv_id(const NumberFormat& weights) {
  // Compared as a view: a length test and one 4-byte compare, where std::string == const char*
  // measures the literal and calls compare() (~75 instructions; every candidate of a change
  // search asks, issue 18).
  const std::string_view id = weights.id;
  return id == "fp16" ? "fp16" : id == "fp32" ? "fp32" : "bf16";
}

// seq_len, prompt_len and output_len from the ones given: seq_len defaults to prompt + output,
// output to a quarter of seq_len (at most 512), prompt to the rest.
void derive_lengths(Scenario& s, bool has_seq, std::optional<int64_t> prompt,
                    std::optional<int64_t> output) {
  if (!has_seq && prompt) s.seq_len = *prompt + output.value_or(0);
  s.output_len = output.value_or(std::min<int64_t>(512, std::max<int64_t>(1, s.seq_len / 4)));
  if (!has_seq && prompt && output) s.seq_len = *prompt + *output;
  if (!has_seq && prompt && !output) s.seq_len = *prompt + s.output_len;
  s.prompt_len = prompt.value_or(std::max<int64_t>(0, s.seq_len - s.output_len));
}

// The global batch is batch x accumulation x dp unless given; given, the accumulation that
// reaches it unless that is given too.
void derive_batches(Scenario& s, const ScenarioGiven& given) {
  TrainingOptions& t = s.training;
  if (!given.global_batch)
    t.global_batch = s.batch * t.grad_accum * s.parallel.dp;
  else if (!given.grad_accum)
    t.grad_accum = std::max<int64_t>(
        1, (t.global_batch + s.batch * s.parallel.dp - 1) / (s.batch * s.parallel.dp));
}

// Serving on several GPUs with no split given: the estimate layer chooses the split per
// replica (estimate/layout.h), replicas taking the rest; until then, one GPU per replica.
void place_split(Scenario& s, std::optional<int64_t> count, bool tp_given, bool pp_given,
                 bool dp_given) {
  s.default_layout = count && *count > 1 && !tp_given && !pp_given && s.task == Task::kInference;
  s.requested_replicas = 0;
  if (s.default_layout && dp_given) {
    if (*count % s.parallel.dp != 0)
      throw InputError("parallel.dp",
                       fmt::format("{} replicas do not divide {} GPUs", s.parallel.dp, *count));
    s.requested_replicas = s.parallel.dp;
    dp_given = false;
  }
  const int64_t replica = s.replica_gpus();
  if (count) {
    if (*count % replica == 0 && !dp_given) s.parallel.dp = *count / replica;
    s.gpu_count = *count;
  } else {
    s.gpu_count = replica * s.parallel.dp;
  }
}

namespace {

constexpr int64_t kMaxTokens = 100'000'000;  // beyond any model's context (Llama 4 Scout: 10M)
constexpr int64_t kMaxSeqs = 1'000'000;      // sequences in one step: far beyond any engine's limit
constexpr int64_t kMaxBatch = 10'000'000;
constexpr int64_t kMaxRequests = 1'000'000'000'000;  // a trillion requests: beyond any job
constexpr int64_t kMaxGpus = 1'000'000;
constexpr int64_t kMaxParallel = 65'536;

// The roles and field names the catalog lookups take as strings, made once (issue 18: a string
// built from a literal on every lookup).
const std::string kModelField = "model", kGpuField = "gpu", kWeightsRole = "weights",
                  kWeightsField = "weights", kKvRole = "kv", kKvField = "kv_cache";

const std::vector<std::string> kTasks = {"inference", "lora",     "qlora",   "full",
                                         "freeze",    "pretrain", "cv-train"};

// A Llama-shaped stand-in for {"params": N}: weights, gradients and optimizer follow N exactly;
// KV cache and activations follow the assumed shape (d/L = 128 as in Llama-2-7B and -13B).
Model model_from_param_count(double params) {
  Model m;
  m.id = "custom";
  char label[48];
  std::snprintf(label, sizeof label, "custom (%.2fB)", params / 1e9);
  m.name = label;
  const int64_t layers =
      std::max<int64_t>(2, std::llround(std::cbrt(params / (12.0 * 128.0 * 128.0))));
  m.num_layers = layers;
  m.hidden_size = std::max<int64_t>(128, layers * 128);
  m.num_heads = m.hidden_size / 128;
  m.num_kv_heads = m.num_heads;
  m.head_dim = 128;
  m.intermediate_size = (m.hidden_size * 8 / 3 + 255) / 256 * 256;
  m.vocab_size = 32000;
  m.attention_type = "MHA";
  m.given_params = static_cast<int64_t>(params);
  m.given_active_params = static_cast<int64_t>(params);
  return m;
}

// A model given as a size: "24B", "1.5b", "500M", "1T" (parameters); nullopt for anything else.
std::optional<double> model_size_in(std::string_view name) {
  size_t i = 0;
  while (i < name.size() && (std::isdigit(static_cast<unsigned char>(name[i])) || name[i] == '.'))
    ++i;
  if (i == 0 || i + 1 != name.size()) return std::nullopt;
  const std::string number(name.substr(0, i));
  if (std::count(number.begin(), number.end(), '.') > 1 || number.front() == '.' ||
      number.back() == '.')
    return std::nullopt;
  const char unit = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  const double scale = unit == 'b' ? 1e9 : unit == 'm' ? 1e6 : unit == 't' ? 1e12 : 0;
  if (scale == 0) return std::nullopt;
  return std::stod(number) * scale;
}

// The weights format the model's checkpoint ships in (empty: 16-bit), and whether only its name
// says so (a re-upload's suffix, hub_names.h).
struct Checkpoint {
  std::string_view format;  ///< a catalog row's, the suffix table's or `imported`
  bool from_name = false;
  std::string imported;  ///< an imported model's, which `format` views
};

// A model named by a string: a size, a catalog name, a file or a local store's model, or a
// re-upload's id read as its catalog base model.
void resolve_model_name(const std::string& name, const Catalog& catalog, Scenario& s,
                        Checkpoint& checkpoint) {
  if (name.empty()) throw InputError("model", "must not be empty");
  std::optional<LocalModel> local;  // a model in a local store (docs/model-stores.md)
  // "24B": a model given by its parameter count.
  if (const auto size = model_size_in(name)) {
    if (*size < 1e6 || *size > 1e14)
      throw InputError("model", "a size must be between 1M and 100T parameters, not " + name);
    s.model = model_from_param_count(*size);
    s.notes.push_back(fmt::format(
        "model given as a size ({}): KV cache and activations assume a Llama-like shape of {} "
        "layers x {} hidden (MHA); give hf_config for exact figures",
        name, s.model->num_layers, s.model->hidden_size));
    s.model_origin = "params";
    return;
  }
  try {
    s.model = catalog.model_ref(name, kModelField);
    s.model_origin = "catalog";
    checkpoint.format = s.model->checkpoint_format;  // as its config.json would give it
    return;
  } catch (const InputError&) {
    std::error_code ec;
    if (!std::filesystem::exists(name, ec) &&
        !(local = find_local_model(name, catalog.model_stores()))) {
      // A re-upload's id, after any store or file of that name (they hold its own
      // config.json): its base model, in the format its name's suffix says it ships in.
      std::optional<ModelRef> base = catalog.reupload_base(name);
      if (!base) throw;
      s.model = std::move(*base);
      s.model_origin = "catalog";
      checkpoint.format = hub_suffix_format(name);
      checkpoint.from_name = !checkpoint.format.empty();
      if (!checkpoint.from_name) checkpoint.format = s.model->checkpoint_format;
      return;
    }
  }
  ImportedModel imported = local ? import_local_model(*local) : import_model_path(name);
  checkpoint.imported = imported_weights_format(imported, catalog);
  checkpoint.format = checkpoint.imported;
  s.model = std::move(imported.model);
  s.weights_file = std::move(imported.weights);
  s.notes.insert(s.notes.end(), imported.warnings.begin(), imported.warnings.end());
  s.model_origin = local ? std::string(store_id(local->store)) : "path";
  if (local) s.notes.emplace_back("model found in " + s.model_origin + ": " + local->path);
}

void resolve_model(const ScenarioFields& input, const Catalog& catalog, Scenario& s,
                   Checkpoint& checkpoint) {
  const nlohmann::json* it = input.given(key::model);
  if (!it)
    throw InputError("model",
                     "is required: a catalog id, a path, {\"hf_config\": {...}} or "
                     "{\"params\": N}");
  const nlohmann::json& v = *it;
  if (v.is_string()) {
    resolve_model_name(v.get_ref<const std::string&>(), catalog, s, checkpoint);
    return;
  }
  if (!v.is_object())
    throw InputError("model", "must be a string or an object, not " + std::string(v.type_name()));
  if (auto hf = v.find("hf_config"); hf != v.end()) {
    if (!hf->is_object())
      throw InputError("model.hf_config", "must be a JSON object holding a config.json");
    const auto imported = import_hf_config_cached(*hf, "model.hf_config");
    s.model = std::shared_ptr<const Model>(imported, &imported->model);  // the entry's, shared
    s.notes.insert(s.notes.end(), imported->warnings.begin(), imported->warnings.end());
    checkpoint.imported = imported_weights_format(*imported, catalog);
    checkpoint.format = checkpoint.imported;
    s.model_origin = "hf_config";
    return;
  }
  if (v.contains("params")) {
    const double params = *read_number(v, "params", "model", 1e6, 1e14);
    s.model = model_from_param_count(params);
    s.notes.emplace_back(
        "model given by parameter count only: KV cache and activations assume a Llama-like shape "
        "of " +
        std::to_string(s.model->num_layers) + " layers x " + std::to_string(s.model->hidden_size) +
        " hidden (MHA); give hf_config for exact figures");
    s.model_origin = "params";
    return;
  }
  throw InputError("model", "object must hold \"hf_config\" or \"params\"");
}

const std::vector<std::string> kRecompute = {"full", "selective", "none"};

// gradient_checkpointing as a list: Megatron-Core's recompute_modules (selective granularity),
// each a name of recompute_module_names(); at least one.
uint8_t parse_recompute_modules(const nlohmann::json& list) {
  const std::string field = "training.gradient_checkpointing";
  if (list.empty())
    throw InputError(field, "an empty list recomputes nothing: use false, or name modules");
  uint8_t bits = 0;
  for (const auto& v : list) {
    if (!v.is_string())
      throw InputError(field, "a list holds Megatron-Core recompute_modules names (strings)");
    bits |= static_cast<uint8_t>(
        1u << name_index(v.get<std::string>(), recompute_module_names(), field));
  }
  return bits;
}

void parse_training(const ScenarioFields& input, Scenario& s, ScenarioGiven& given) {
  const nlohmann::json* it = input.given(key::training);
  if (!it) return;
  if (!it->is_object()) throw InputError("training", "must be an object");
  namespace k = training_key;
  static const KeyIndex keys(scenario_keys().training);
  Members<k::kCount> t;
  read_members(*it, keys, t);
  given.grad_accum = t.has(k::grad_accum);
  given.zero_stage = t.given(k::zero_stage) != nullptr;
  given.recompute = t.given(k::gradient_checkpointing) != nullptr;
  const std::string_view p = "training";
  TrainingOptions& o = s.training;
  if (auto v = read_string_value(t.at[k::optimizer], "optimizer", p))
    o.optimizer = parse_optimizer(*v, "training.optimizer");
  if (auto v = read_string_value(t.at[k::mixed_precision], "mixed_precision", p))
    o.mixed_precision = parse_mixed_precision(*v, "training.mixed_precision");
  if (const nlohmann::json* gc = t.given(k::gradient_checkpointing)) {
    if (gc->is_boolean()) {
      o.recompute = gc->get<bool>() ? Recompute::kFull : Recompute::kNone;
    } else if (gc->is_array()) {
      o.recompute = Recompute::kSelective;
      o.recompute_modules = parse_recompute_modules(*gc);
    } else {
      const size_t v = *read_enum_index(gc, "gradient_checkpointing", p, kRecompute);
      o.recompute = v == 0 ? Recompute::kFull : v == 1 ? Recompute::kSelective : Recompute::kNone;
    }
  }
  if (auto v = read_bool_value(t.at[k::flash_attention], "flash_attention", p))
    o.flash_attention = *v;
  if (auto v = read_int_value(t.at[k::lora_rank], "lora_rank", p, 1, 65536)) o.lora_rank = *v;
  if (const nlohmann::json* lt = t.given(k::lora_targets)) {
    o.lora_targets.clear();
    if (lt->is_string()) {
      o.lora_targets.push_back(lt->get<std::string>());
    } else if (lt->is_array()) {
      for (size_t i = 0; i < lt->size(); ++i) {
        if (!(*lt)[i].is_string())
          throw InputError("training.lora_targets[" + std::to_string(i) + "]", "must be a string");
        o.lora_targets.push_back((*lt)[i].get<std::string>());
      }
      if (o.lora_targets.empty()) throw InputError("training.lora_targets", "must not be empty");
    } else {
      throw InputError("training.lora_targets", "must be \"all-linear\" or a list of module names");
    }
  }
  if (const nlohmann::json* ms = t.given(k::modules_to_save)) {
    if (!ms->is_array()) throw InputError("training.modules_to_save", "must be a list");
    for (size_t i = 0; i < ms->size(); ++i) {
      const auto& m = (*ms)[i];
      if (!m.is_string() || (m != "embed_tokens" && m != "lm_head"))
        throw InputError("training.modules_to_save[" + std::to_string(i) + "]",
                         "must be \"embed_tokens\" or \"lm_head\"");
      o.modules_to_save.push_back(m.get<std::string>());
    }
  }
  if (auto v = read_int_value(t.at[k::zero_stage], "zero_stage", p, 0, 3))
    o.zero_stage = static_cast<int>(*v);
  if (auto v = read_string_value(t.at[k::offload], "offload", p))
    o.offload = parse_offload(*v, "training.offload");
  if (auto v = read_int_value(t.at[k::grad_accum], "grad_accum", p, 1, kMaxBatch))
    o.grad_accum = *v;
  if (auto v = read_int_value(t.at[k::global_batch], "global_batch", p, 1, kMaxBatch * 1000))
    o.global_batch = *v, given.global_batch = true;
  if (auto v = read_number_value(t.at[k::tokens], "tokens", p, 1, 1e16)) o.tokens = *v;
  if (auto v = read_bool_value(t.at[k::chunked_loss], "chunked_loss", p)) o.chunked_loss = *v;
  if (auto v = read_bool_value(t.at[k::optimizer_in_backward], "optimizer_in_backward", p))
    o.optimizer_in_backward = *v;
  if (auto v = read_bool_value(t.at[k::activation_offload], "activation_offload", p))
    o.activation_offload = *v;
  if (auto v = read_bool_value(t.at[k::compile], "compile", p)) o.compile = *v;
  if (auto v = read_int_value(t.at[k::trainable_layers], "trainable_layers", p, 1, 100000))
    o.trainable_layers = *v;
  for (const std::string* u : t.unknown)
    s.notes.push_back(unknown_key_note(*u, p, scenario_keys().training));
}

// The checks below run on every line and, through validate_edit, on a change search's candidates:
// their string tests go through same_text, where std::string == const char* measures the literal
// and calls compare() out of line (issue 18: ~70 instructions a test, ~300 a line).

bool is_quantized_base(const NumberFormat& f) {
  return same_text(f.kind, "quant") || same_text(f.kind, "int") || same_text(f.kind, "gguf");
}

// Model::is_cv(), by same_text.
bool vision_model(const Model& m) {
  return same_text(m.kind, "cv");
}

void check_lora_targets(const Scenario& s) {
  if (s.task != Task::kLora && s.task != Task::kQlora) return;
  // "all-linear" (the default) names no module: the model's matrices are listed only for
  // targets that name some (issue 18: ~190 instructions of each LoRA candidate of a search).
  const std::vector<std::string>& targets = s.training.lora_targets;
  if (std::all_of(targets.begin(), targets.end(),
                  [](const std::string& t) { return same_text(t, "all-linear"); }))
    return;
  const auto mods = linear_modules(*s.model);
  for (size_t i = 0; i < targets.size(); ++i) {
    const std::string& t = targets[i];
    if (same_text(t, "all-linear")) continue;
    if (std::any_of(mods.begin(), mods.end(),
                    [&t](const auto& m) { return lora_target_matches(t, m.name); }))
      continue;
    // The names the message offers, listed only for a target that matches none.
    std::vector<std::string> names = {"all-linear"};
    for (const auto& m : mods) names.emplace_back(m.name);
    std::string msg = "no module named '" + t + "' in " + s.model->name;
    const auto near = closest_names(t, names);
    if (!near.empty()) {
      msg += "; did you mean ";
      for (size_t k = 0; k < near.size(); ++k) msg += (k ? ", " : "") + near[k];
      msg += "?";
    }
    throw InputError("training.lora_targets[" + std::to_string(i) + "]", msg, "unknown_name");
  }
}

// The cross-field checks (validate), each where parse_scenario first can make it.

void check_task_model(const Scenario& s) {
  if (vision_model(*s.model) != (s.task == Task::kCvTrain))
    throw InputError("task", vision_model(*s.model)
                                 ? "'" + s.model->name + "' is a vision model: use task cv-train"
                                 : "cv-train needs a vision model (yolov8m, resnet-50, vit-b/16)");
}

void check_qlora_base(const Scenario& s) {
  if (s.task == Task::kQlora && !is_quantized_base(*s.weights))
    throw InputError("weights",
                     "qlora trains adapters on a quantized base (nf4, int8, int4, "
                     "gptq-int4, awq-int4); '" +
                         s.weights->id + "' is not quantized");
}

// The FP8 recipes are modelled for full training (Transformer Engine / torchao quantize the
// trained linear layers' GEMMs) on GPUs with FP8 tensor cores; MXFP8 needs block-scaled ones.
void check_fp8_training(const Scenario& s) {
  const MixedPrecision mp = s.training.mixed_precision;
  if (!is_fp8(mp) || !is_training(s.task)) return;
  const std::string& name = to_string(mp);
  if (s.task != Task::kFull && s.task != Task::kPretrain)
    throw InputError("training.mixed_precision",
                     name + " training is modelled for tasks full and pretrain, not " +
                         to_string(s.task) + ": use bf16");
  if (!s.gpu) return;
  if (!s.gpu->supports("fp8"))
    throw InputError("training.mixed_precision",
                     s.gpu->name +
                         " has no FP8 tensor cores (Ada, Hopper, Blackwell, Instinct "
                         "MI300 or newer): use bf16");
  if (mp == MixedPrecision::kMxfp8 && !s.gpu->supports("mxfp8"))
    throw InputError("training.mixed_precision",
                     s.gpu->name +
                         " has no block-scaled (MX) tensor cores (Blackwell, Instinct "
                         "MI355X): use fp8");
}

void check_seq_len(const Scenario& s) {
  if (s.seq_len < 1) throw InputError("seq_len", "must be at least 1");
  // vLLM refuses a request longer than --max-model-len (and TensorRT-LLM one longer than the
  // engine's max_seq_len): the scenario's sequences could not run.
  if (s.max_model_len > 0 && s.seq_len > s.max_model_len)
    throw InputError("max_model_len", std::to_string(s.max_model_len) + " is below seq_len " +
                                          std::to_string(s.seq_len) +
                                          ": the engine refuses longer sequences");
}

// Serving engines spread experts over the replica's tensor-parallel ranks (vLLM
// FusedMoEParallelConfig); context parallelism is Megatron-Core's, for token sequences in training;
// gpu_count holds whole replicas (Scenario::replica_gpus).
void check_layout(const Scenario& s) {
  const bool serving = s.task == Task::kInference;
  const Parallelism& p = s.parallel;
  if (serving && p.ep > 1 && p.ep % p.tp != 0 && p.tp % p.ep != 0)
    throw InputError("parallel.ep",
                     "serving engines spread experts over the replica's tensor-parallel ranks and "
                     "attention data-parallel groups (ep = tp x groups): ep " +
                         std::to_string(p.ep) + " and tp " + std::to_string(p.tp) +
                         " do not divide each other");
  if (serving && p.ep > 1 && p.ep < p.tp)
    throw InputError("parallel.ep", "serving engines shard experts over all tp ranks: use ep = " +
                                        std::to_string(p.tp) + " (tp) or a multiple");
  if (p.cp > 1 && !is_training(s.task))
    throw InputError("parallel.cp", "context parallelism is modelled for training only");
  if (p.cp > 1 && s.task == Task::kCvTrain)
    throw InputError("parallel.cp",
                     "context parallelism splits a token sequence: not for cv-train");
  // Megatron-Core splits the sequence into 2 x cp chunks for causal load balancing
  // (get_batch_on_this_cp_rank): seq_len must be a multiple of 2 x cp.
  if (p.cp > 1 && s.seq_len % (2 * p.cp) != 0)
    throw InputError("parallel.cp",
                     fmt::format("seq_len {} is not a multiple of 2 x cp = {} (Megatron-Core "
                                 "splits each sequence into 2 x cp chunks)",
                                 s.seq_len, 2 * p.cp));
  // Megatron-LM arguments.py: "Tensor parallel communication/GEMM overlap can happen only when
  // sequence parallelism is enabled"; userbuffers pipeline its all-gathers and reduce-scatters.
  if (p.tp_comm_overlap && (serving || !p.sequence_parallel))
    throw InputError("parallel.tp_comm_overlap",
                     serving ? "overlaps training's tensor-parallel collectives: not for serving"
                             : "needs parallel.sequence_parallel: the overlap pipelines its "
                               "all-gathers and reduce-scatters with the GEMMs");
  const int64_t replica = s.replica_gpus();
  const char* rule = serving ? "pp*max(tp,ep)" : "tp*pp*ep*cp";
  if (s.gpu_count % replica != 0)
    throw InputError("gpu_count", fmt::format("{} GPUs cannot hold whole replicas of {} = {} GPUs",
                                              s.gpu_count, rule, replica));
  if (s.gpu_count != replica * p.dp)
    throw InputError("gpu_count", fmt::format("must equal dp*{} = {}", rule, replica * p.dp));
}

// The split against the model: heads for tensor parallelism (Megatron-LM, Shoeybi et al. 2019,
// sec. 3), layers for pipeline stages, experts for expert parallelism.
void check_model_split(const Scenario& s) {
  const Parallelism& p = s.parallel;
  // A vision model has no experts to split; its other splits are left to the CV estimators.
  if (vision_model(*s.model)) {
    if (p.ep > 1)
      throw InputError("parallel.ep", "expert parallelism needs a mixture-of-experts model");
    return;
  }
  if (p.tp > s.model->num_heads)
    throw InputError("parallel.tp", "tensor parallelism of " + std::to_string(p.tp) +
                                        " exceeds the model's " +
                                        std::to_string(s.model->num_heads) + " attention heads");
  if (p.pp > s.model->num_layers)
    throw InputError("parallel.pp", "pipeline of " + std::to_string(p.pp) +
                                        " stages exceeds the model's " +
                                        std::to_string(s.model->num_layers) + " layers");
  if (p.ep > 1 && (!s.model->is_moe() || s.model->num_experts % p.ep != 0))
    throw InputError("parallel.ep",
                     s.model->is_moe()
                         ? "must divide the " + std::to_string(s.model->num_experts) + " experts"
                         : "expert parallelism needs a mixture-of-experts model");
}

// The steps of parse_scenario, in order.

void parse_task(const ScenarioFields& input, Scenario& s) {
  if (auto v = read_enum_index(input.at[key::task], "task", "", kTasks))
    s.task = static_cast<Task>(*v);
  check_task_model(s);
}

// The weights format unless the scenario names one. The checkpoint's format (its config.json's
// quantization_config, its files' dtypes or the catalog row's) is what loading it gives, so
// serving defaults to it (vLLM reads the quantization_config,
// vllm/model_executor/layers/quantization). QLoRA takes it when it is a quantized base (PEFT
// trains adapters on GPTQ and AWQ layers) and otherwise quantizes to NF4 (bitsandbytes
// load_in_4bit). Other training upcasts a quantized checkpoint to 16 bits first: the published
// gpt-oss fine-tuning recipes convert its MXFP4 experts to bf16 (LMSYS/NVIDIA ModelOpt blog,
// 2025-08-28), and a full fine-tune updates a 16-bit copy.
FormatRef default_weights(Task task, std::string_view checkpoint_format, const Catalog& catalog) {
  const bool as_shipped = task == Task::kInference || task == Task::kQlora;
  if (as_shipped && !checkpoint_format.empty()) {
    FormatRef f = catalog.format_ref(checkpoint_format, kWeightsRole, kWeightsField);
    if (task != Task::kQlora || is_quantized_base(*f)) return f;
  }
  return catalog.format_ref(task == Task::kQlora ? "nf4" : "bf16", kWeightsRole, kWeightsField);
}

void parse_formats(const ScenarioFields& input, const Catalog& catalog,
                   const Checkpoint& checkpoint, Scenario& s, ScenarioGiven& given) {
  if (auto v = read_string_value(input.at[key::weights], "weights", "")) {
    s.weights = catalog.format_ref(*v, kWeightsRole, kWeightsField);
  } else {
    s.weights = default_weights(s.task, checkpoint.format, catalog);
    if (checkpoint.from_name && s.weights->id == checkpoint.format)
      s.notes.push_back(fmt::format(
          "weights {}: the format the model name's suffix says it ships in", checkpoint.format));
  }
  check_qlora_base(s);
  std::string_view kv_id = default_kv_id(*s.weights);
  if (auto v = read_string_value(input.at[key::kv_cache], "kv_cache", ""))
    kv_id = *v, given.kv_cache = true;
  s.kv_cache = catalog.format_ref(kv_id, kKvRole, kKvField);
}

void note_context(Scenario& s) {
  if (s.model->max_position_embeddings > 0 && s.seq_len > s.model->max_position_embeddings &&
      !vision_model(*s.model))
    // A warning, not an error: RoPE scaling runs models past their trained context (YaRN, Peng
    // et al. 2023, took Llama 2 from 4k to 128k tokens, 32x), so no ratio is impossible.
    s.notes.push_back(fmt::format(
        "seq_len {} exceeds the model's context of {} tokens (its maximum, "
        "max_position_embeddings) {:.3g}x: the figures are for a context the model was not "
        "trained for",
        s.seq_len, s.model->max_position_embeddings,
        static_cast<double>(s.seq_len) / static_cast<double>(s.model->max_position_embeddings)));
}

void parse_lengths(const ScenarioFields& input, Scenario& s, ScenarioGiven& given) {
  const bool has_seq = input.given(key::seq_len) != nullptr;
  if (auto v = read_int_value(input.at[key::seq_len], "seq_len", "", 1, kMaxTokens)) s.seq_len = *v;
  auto output = read_int_value(input.at[key::output_len], "output_len", "", 0, kMaxTokens);
  auto prompt = read_int_value(input.at[key::prompt_len], "prompt_len", "", 0, kMaxTokens);
  given.seq_len = has_seq;
  given.prompt_len = prompt.has_value();
  given.output_len = output.has_value();
  derive_lengths(s, has_seq, prompt, output);
  check_seq_len(s);
  if (s.prompt_len + s.output_len > s.seq_len && has_seq)
    s.notes.emplace_back(
        "prompt_len + output_len exceed seq_len: memory uses seq_len, speed uses "
        "prompt_len and output_len");
  note_context(s);
}

// Engine: the one named, else the default for the task, GPU and weights (engine_choice.cc).
void parse_engine(const ScenarioFields& input, const Catalog& catalog, Scenario& s,
                  ScenarioGiven& given) {
  given.engine = input.given(key::engine) != nullptr;
  given.engine_version = input.given(key::engine_version) != nullptr;
  // The engine's profile, as catalog.engine(s.engine) finds it (not looked up again).
  const EngineProfile& engine = resolve_engine(input, catalog, s);
  if (auto v = read_number_value(input.at[key::gpu_memory_utilization], "gpu_memory_utilization",
                                 "", 0.05, 1.0)) {
    s.gpu_memory_utilization = *v;
    s.gpu_memory_utilization_given = true;
  }
  if (auto v = read_int_value(input.at[key::max_num_batched_tokens], "max_num_batched_tokens", "",
                              1, kMaxTokens))
    s.max_num_batched_tokens = *v;
  // An engine without these settings ignores them (note_ignored_knobs says so).
  if (auto v = read_int_value(input.at[key::max_num_seqs], "max_num_seqs", "", 1, kMaxSeqs))
    s.max_num_seqs = engine.honours("max_num_seqs") ? *v : 0;
  if (auto v = read_int_value(input.at[key::max_model_len], "max_model_len", "", 1, kMaxTokens))
    s.max_model_len = engine.honours("max_model_len") ? *v : 0;
  check_seq_len(s);  // now against max_model_len too
  if (s.max_num_seqs > 0 && s.batch > s.max_num_seqs)
    s.notes.push_back("batch " + std::to_string(s.batch) + " exceeds max_num_seqs " +
                      std::to_string(s.max_num_seqs) + ": the engine runs at most " +
                      std::to_string(s.max_num_seqs) + " sequences a step, the rest wait");
  note_ignored_knobs(input, catalog, engine, s);
}

void parse_training_options(const ScenarioFields& input, Scenario& s, ScenarioGiven& given) {
  parse_training(input, s, given);
  // Copied from a list made once (issue 18: the list built from its literal, a string made and
  // freed besides the list's own, ~80 instructions a line).
  static const std::vector<std::string> kAllLinear = {"all-linear"};
  if (s.training.lora_targets.empty()) s.training.lora_targets = kAllLinear;
  check_lora_targets(s);
  if (computes_in_bf16(s.training.mixed_precision))
    if (is_training(s.task) && s.task != Task::kCvTrain && same_text(s.weights->id, "fp16"))
      s.notes.emplace_back("weights fp16 with bf16 training: the working copy is taken as bf16");
}

struct SplitGiven {
  bool tp = false, pp = false, dp = false;
};

SplitGiven parse_parallel(const ScenarioFields& input, Scenario& s) {
  SplitGiven given;
  const nlohmann::json* it = input.given(key::parallel);
  if (!it) return given;
  if (!it->is_object()) throw InputError("parallel", "must be an object");
  namespace k = parallel_key;
  static const KeyIndex keys(scenario_keys().parallel);
  Members<k::kCount> p;
  read_members(*it, keys, p);
  const std::string_view at = "parallel";
  if (auto v = read_int_value(p.at[k::tp], "tp", at, 1, kMaxParallel))
    s.parallel.tp = *v, given.tp = true;
  if (auto v = read_int_value(p.at[k::pp], "pp", at, 1, kMaxParallel))
    s.parallel.pp = *v, given.pp = true;
  if (auto v = read_int_value(p.at[k::dp], "dp", at, 1, kMaxGpus))
    s.parallel.dp = *v, given.dp = true;
  if (auto v = read_int_value(p.at[k::ep], "ep", at, 1, kMaxParallel)) s.parallel.ep = *v;
  if (auto v = read_bool_value(p.at[k::sequence_parallel], "sequence_parallel", at))
    s.parallel.sequence_parallel = *v;
  if (auto v = read_int_value(p.at[k::pp_interleave], "pp_interleave", at, 1, 1024))
    s.parallel.pp_interleave = *v;
  if (auto v = read_int_value(p.at[k::cp], "cp", at, 1, kMaxParallel)) s.parallel.cp = *v;
  if (auto v = read_bool_value(p.at[k::tp_comm_overlap], "tp_comm_overlap", at))
    s.parallel.tp_comm_overlap = *v;
  for (const std::string* u : p.unknown)
    s.notes.push_back(unknown_key_note(*u, at, scenario_keys().parallel));
  return given;
}

// The GPUs and their split: gpu_count whole replicas, dp the rest of them.
void parse_system(const ScenarioFields& input, const Catalog& catalog, SplitGiven split,
                  Scenario& s) {
  // A serving scenario naming no engine has its GPU already (resolve_engine looked it up).
  if (auto v = read_string_value(input.at[key::gpu], "gpu", "")) {
    if (!s.gpu) s.gpu = catalog.gpu_ref(*v, kGpuField);
    // A name only part of an id matched is said: a card the catalog lacks ("5070") must not
    // pass silently for the one it found (the RTX 5070 Ti).
    if (!catalog.names_exactly(*v, *s.gpu))
      s.notes.push_back(fmt::format("gpu '{}' read as {} ({}), the catalog's closest match",
                                    shown_input(*v), s.gpu->id, s.gpu->name));
  }
  auto count = read_int_value(input.at[key::gpu_count], "gpu_count", "", 1, kMaxGpus);
  if (auto v = read_int_value(input.at[key::gpus_per_node], "gpus_per_node", "", 1, 1024))
    s.gpus_per_node = *v;
  place_split(s, count, split.tp, split.pp, split.dp);
  check_layout(s);
  check_model_split(s);
  check_fp8_training(s);
  if (!vision_model(*s.model) && s.model->num_heads % s.parallel.tp != 0)
    s.notes.emplace_back("tp does not divide the " + std::to_string(s.model->num_heads) +
                         " attention heads: most engines refuse this split");
  if (s.training.zero_stage > 0 && s.parallel.dp == 1)
    s.notes.emplace_back("ZeRO shards over data-parallel ranks: with dp = 1 it saves nothing");
}

// Vision training. The fields are checked whatever the task, so that a wrong value is never
// accepted silently; they apply to cv-train only.
void parse_vision(const ScenarioFields& input, Scenario& s) {
  const auto image_size = read_int_value(input.at[key::image_size], "image_size", "", 16, 16384);
  const auto dataset_items =
      read_int_value(input.at[key::dataset_items], "dataset_items", "", 1, 1'000'000'000'000);
  const auto epochs = read_int_value(input.at[key::epochs], "epochs", "", 1, 100000);
  if (s.task == Task::kCvTrain) {
    s.image_size = image_size.value_or(s.model->cv_resolution);
    if (dataset_items) s.dataset_items = *dataset_items;
    if (epochs) s.epochs = *epochs;
  } else if (image_size || dataset_items || epochs) {
    s.notes.emplace_back(
        "image_size, dataset_items and epochs apply to task cv-train only: ignored");
  }
}

// Site overrides; their fields are checked by the cost and power estimators.
void parse_site(const ScenarioFields& input, Scenario& s) {
  if (const nlohmann::json* v = input.given(key::costs)) {
    if (!v->is_object()) throw InputError("costs", "must be an object");
    s.costs = *v;
  }
  if (const nlohmann::json* v = input.given(key::facility)) {
    if (!v->is_object()) throw InputError("facility", "must be an object");
    s.facility = *v;
  }
}

}  // namespace

std::string to_string(Task task) {
  return kTasks[static_cast<size_t>(task)];
}

std::string_view task_name(Task task) {
  return kTasks[static_cast<size_t>(task)];
}

bool lora_target_matches(std::string_view target, std::string_view module) {
  if (target == "all-linear") return module != "router";
  if (module == target) return true;
  return module.size() > target.size() + 1 &&
         module.compare(module.size() - target.size(), target.size(), target) == 0 &&
         module[module.size() - target.size() - 1] == '.';
}

const ScenarioKeys& scenario_keys() {
  static const ScenarioKeys keys = {
      .top = {"model",
              "task",
              "weights",
              "kv_cache",
              "batch",
              "seq_len",
              "prompt_len",
              "output_len",
              "engine",
              "engine_version",
              "gpu_memory_utilization",
              "max_num_batched_tokens",
              "max_num_seqs",
              "max_model_len",
              "training",
              "parallel",
              "gpu",
              "gpu_count",
              "gpus_per_node",
              "image_size",
              "dataset_items",
              "epochs",
              "method",   // read by the API and CLI (analytic | rule-of-thumb), not here
              "changes",  // read by the estimate answer (false: no "what to change"), not here
              "basis",    // read by the estimate answer (false: no basis texts), not here
              "costs",
              "facility",
              "traffic",
              "slo",
              "offline_requests"},
      .model = {"hf_config", "params"},
      .training = {"optimizer", "mixed_precision", "gradient_checkpointing", "flash_attention",
                   "lora_rank", "lora_targets", "modules_to_save", "zero_stage", "offload",
                   "grad_accum", "global_batch", "tokens", "chunked_loss", "optimizer_in_backward",
                   "activation_offload", "compile", "trainable_layers"},
      .parallel = {"tp", "pp", "dp", "ep", "sequence_parallel", "pp_interleave", "cp",
                   "tp_comm_overlap"},
  };
  return keys;
}

Scenario parse_scenario(const nlohmann::json& input, const Catalog& catalog) {
  ScenarioGiven given;
  return parse_scenario(input, catalog, given);
}

ScenarioFields scenario_fields(const nlohmann::json& input) {
  if (!input.is_object())
    throw InputError("", "a scenario must be a JSON object, not " + std::string(input.type_name()));
  static const KeyIndex keys(scenario_keys().top);
  ScenarioFields fields;
  read_members(input, keys, fields);
  return fields;
}

Scenario parse_scenario(const nlohmann::json& input, const Catalog& catalog, ScenarioGiven& given) {
  return parse_scenario(scenario_fields(input), catalog, given);
}

Scenario parse_scenario(const ScenarioFields& input, const Catalog& catalog, ScenarioGiven& given) {
  given = ScenarioGiven{};
  Scenario s;
  Checkpoint checkpoint;
  resolve_model(input, catalog, s, checkpoint);
  parse_task(input, s);
  parse_formats(input, catalog, checkpoint, s, given);
  parse_lengths(input, s, given);
  if (auto v = read_int_value(input.at[key::batch], "batch", "", 1, kMaxBatch)) s.batch = *v;
  parse_engine(input, catalog, s, given);
  parse_training_options(input, s, given);
  const SplitGiven split = parse_parallel(input, s);
  given.parallel = input.given(key::parallel) != nullptr;
  given.tp = split.tp, given.pp = split.pp, given.dp = split.dp;
  parse_system(input, catalog, split, s);
  derive_batches(s, given);
  parse_vision(input, s);
  parse_site(input, s);
  parse_traffic(input, s);  // serving traffic and its service level (scenario/traffic.h)
  if (auto v = read_int_value(input.at[key::offline_requests], "offline_requests", "", 1,
                              kMaxRequests)) {
    if (s.task != Task::kInference)
      throw InputError("offline_requests",
                       "applies to serving (task inference), not " + to_string(s.task));
    s.offline_requests = *v;
  }
  if (const nlohmann::json* t = input.at[key::traffic]; t && t->is_object()) {
    given.traffic_prompt_len = t->contains("prompt_len") && !(*t)["prompt_len"].is_null();
    given.traffic_output_len = t->contains("output_len") && !(*t)["output_len"].is_null();
  }
  for (const std::string* u : input.unknown)
    s.notes.push_back(unknown_key_note(*u, "", scenario_keys().top));
  resolve_lookups(s, catalog);
  return s;
}

void validate(const Scenario& s, const Catalog& catalog) {
  check_task_model(s);
  check_qlora_base(s);
  check_fp8_training(s);
  check_seq_len(s);
  check_engine_runs_task(catalog.engine(s.engine, "engine"), s);
  check_lora_targets(s);
  check_layout(s);
  check_model_split(s);
}

// What each check reads besides the model and the LoRA targets (an edit's base's): the task
// (check_task_model, check_lora_targets), the task and the weights (check_qlora_base), the
// sequence length (check_seq_len), the engine and the task (check_engine_runs_task), the task,
// the split, the sequence length and the GPU count (check_layout), the split (check_model_split).
template <typename Base>
void validate_edit(const Scenario& s, const Base& base, const LayoutFields& layout,
                   const Catalog& catalog, bool engine_is_base, bool engine_runs_task) {
  const Parallelism &p = s.parallel, &b = layout.parallel;
  const bool task = s.task != base.task;
  const bool weights = s.weights.get() != base.weights.get() &&
                       (s.weights->id != base.weights->id || s.weights->kind != base.weights->kind);
  const bool split = p.tp != b.tp || p.pp != b.pp || p.dp != b.dp || p.ep != b.ep || p.cp != b.cp ||
                     p.pp_interleave != b.pp_interleave ||
                     p.sequence_parallel != b.sequence_parallel;
  if (task) check_task_model(s);
  if (task || weights) check_qlora_base(s);
  if (task && is_fp8(s.training.mixed_precision)) check_fp8_training(s);
  // The lengths' check reads seq_len and max_model_len, and no edit sets the latter: the base's
  // passed (issue 18: ~20 instructions of each candidate).
  if (s.seq_len != base.seq_len) check_seq_len(s);
  if (!engine_runs_task && (task || (!engine_is_base && s.engine != base.engine)))
    check_engine_runs_task(catalog.engine(s.engine, "engine"), s);
  if (task) check_lora_targets(s);
  if (task || split || s.seq_len != base.seq_len || s.gpu_count != base.gpu_count) check_layout(s);
  if (split) check_model_split(s);
}

// The editor's two bases (scenario_edit.cc).
template void validate_edit(const Scenario&, const Scenario&, const LayoutFields&, const Catalog&,
                            bool, bool);
template void validate_edit(const Scenario&, const ScenarioEditor::BaseFields&, const LayoutFields&,
                            const Catalog&, bool, bool);

}  // namespace gpusizer
