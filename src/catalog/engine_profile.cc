// Reads data/engines.json into typed profiles once (strict keys: a misspelt key is an error
// naming the file and key, never a silent C++ default).
#include "gpusizer/engine_profile.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <vector>

#include "catalog/data_json.h"
#include "core/json_fields.h"
#include "core/same_text.h"
#include "gpusizer/error.h"
#include "gpusizer/json/engine_profile.h"
#include "gpusizer/names.h"

namespace gpusizer {
namespace {

// "0.16.0" -> {0, 16, 0}; nullopt for anything but dotted numbers (at most 6 of 6 digits).
std::optional<std::vector<int64_t>> version_parts(std::string_view v) {
  std::vector<int64_t> parts;
  size_t i = 0;
  while (i < v.size() && parts.size() < 6) {
    size_t j = i;
    int64_t n = 0;
    while (j < v.size() && j - i < 6 && std::isdigit(static_cast<unsigned char>(v[j])))
      n = n * 10 + (v[j++] - '0');
    if (j == i) return std::nullopt;
    parts.push_back(n);
    if (j == v.size()) return parts;
    if (v[j] != '.') return std::nullopt;
    i = j + 1;
  }
  return std::nullopt;
}

// The sign of v against a range's last version, compared on last's own parts (v's missing parts
// count as 0), so that a last of "0.21" takes in 0.21.1: -1 before, 0 inside, 1 after.
int against_last(const std::vector<int64_t>& last, const std::vector<int64_t>& v) {
  for (size_t i = 0; i < last.size(); ++i) {
    const int64_t part = i < v.size() ? v[i] : 0;
    if (part != last[i]) return part < last[i] ? -1 : 1;
  }
  return 0;
}

// first <= v (missing parts count as 0) and v <= last on last's own parts (against_last).
bool in_version_range(std::string_view first, std::string_view last, std::string_view v) {
  const auto f = version_parts(first), l = version_parts(last), x = version_parts(v);
  if (!f || !l || !x) return false;
  const auto part = [](const std::vector<int64_t>& p, size_t i) {
    return i < p.size() ? p[i] : int64_t{0};
  };
  for (size_t i = 0; i < std::max(f->size(), x->size()); ++i) {
    if (part(*x, i) != part(*f, i)) {
      if (part(*x, i) < part(*f, i)) return false;
      break;
    }
  }
  return against_last(*l, *x) <= 0;
}

// v above last on last's own parts ("0.29" after "0.28"; "0.28.3" is not: the last takes in its
// patch releases).
bool after_version_range(std::string_view last, std::string_view v) {
  const auto l = version_parts(last), x = version_parts(v);
  return l && x && against_last(*l, *x) > 0;
}

constexpr double kMaxBytes = 1e15;
constexpr double kMaxTokens = 1e9;

std::vector<std::string> strings(const nlohmann::json& o, const char* key, const std::string& where,
                                 bool required) {
  std::vector<std::string> out;
  if (!o.contains(key)) {
    if (required) throw InputError(where + "." + key, "is missing", "bad_file");
    return out;
  }
  const auto& a = o.at(key);
  if (!a.is_array()) throw InputError(where + "." + key, "must be a list of names", "bad_file");
  for (const auto& v : a) {
    if (!v.is_string()) throw InputError(where + "." + key, "must be a list of names", "bad_file");
    out.push_back(v.get<std::string>());
  }
  return out;
}

int64_t count(const nlohmann::json& o, const char* key, const std::string& where, bool required) {
  const double x = required ? data::required_number(o, key, where, 0, kMaxTokens)
                            : data::number_or(o, key, where, 0, kMaxTokens, 0);
  return static_cast<int64_t>(x);
}

PoolRule pool_rule(const nlohmann::json& r, const std::string& where) {
  if (!r.contains("pool_rule") || !r.at("pool_rule").is_string())
    throw InputError(where + ".pool_rule", "is missing", "bad_file");
  const std::string v = r.at("pool_rule").get<std::string>();
  if (v == "share_of_total") return PoolRule::kShareOfTotal;
  if (v == "static_share_of_total") return PoolRule::kStaticShareOfTotal;
  if (v == "share_of_free") return PoolRule::kShareOfFree;
  throw InputError(where + ".pool_rule",
                   "must be share_of_total, static_share_of_total or share_of_free", "bad_file");
}

const std::vector<std::string> kPreallocatingReleaseKeys = {"version",
                                                            "covers",
                                                            "engine_path",
                                                            "pool_rule",
                                                            "memory_fraction",
                                                            "memory_fraction_by_tp",
                                                            "reserved_memory",
                                                            "non_torch_bytes",
                                                            "non_torch_tp_extra_bytes",
                                                            "cuda_graph_bytes",
                                                            "cuda_graphs_in_budget",
                                                            "baseline_outside_budget",
                                                            "profile_tokens",
                                                            "profile_seqs",
                                                            "profile_covers_max_model_len",
                                                            "chunked_prefill_above",
                                                            "chunked_tokens",
                                                            "large_gpu_min_gib",
                                                            "large_gpu_excluded",
                                                            "large_gpu_tokens",
                                                            "large_gpu_seqs",
                                                            "sampler_bytes_per_logit",
                                                            "runtime_max_batch",
                                                            "runtime_bytes_per_seq_logit",
                                                            "runtime_bytes_per_seq_token",
                                                            "runtime_bytes_per_seq"};

// One GPU class of reserved_memory.gpu_classes: {"below_gib", "chunked_prefill_size",
// "cuda_graph_max_bs": [below large_tp, from large_tp]}.
GpuClassDefaults read_gpu_class(const nlohmann::json& c, const std::string& where) {
  if (!c.is_object()) throw InputError(where, "must be an object", "bad_file");
  data::reject_unknown_keys(c, where, {"below_gib", "chunked_prefill_size", "cuda_graph_max_bs"});
  GpuClassDefaults g;
  g.below_gib = data::number_or(c, "below_gib", where, 0, 1e6, 0);
  g.chunk_tokens = count(c, "chunked_prefill_size", where, true);
  const auto& bs = c.contains("cuda_graph_max_bs") ? c.at("cuda_graph_max_bs") : nlohmann::json();
  if (!bs.is_array() || bs.size() != 2 || !bs[0].is_number_integer() ||
      !bs[1].is_number_integer() || bs[0].get<int64_t>() < 1 || bs[1].get<int64_t>() < 1)
    throw InputError(where + ".cuda_graph_max_bs",
                     "must be [below large_tp, from large_tp]: batch sizes of at least 1",
                     "bad_file");
  g.graph_bs = bs[0].get<int64_t>();
  g.graph_bs_large_tp = bs[1].get<int64_t>();
  if (g.chunk_tokens < 1) throw InputError(where, "chunked_prefill_size must be at least 1");
  return g;
}

// SGLang's piecewise CUDA graphs (PrefillGraphRule), absent meaning none: {"per_size_mib",
// "mla_max_tokens", "sizes": [[first, last (0: up to the largest), step], ...]}.
PrefillGraphRule read_prefill_graphs(const nlohmann::json& o, const std::string& at) {
  PrefillGraphRule g;
  if (!o.contains("prefill_graphs")) return g;
  const std::string where = at + ".prefill_graphs";
  const auto& p = data::required_object(o, "prefill_graphs", at);
  data::reject_unknown_keys(p, where, {"per_size_mib", "mla_max_tokens", "sizes"});
  g.per_size_mib = data::required_number(p, "per_size_mib", where, 0, 1e3);
  g.mla_max_tokens = count(p, "mla_max_tokens", where, true);
  const auto& sizes = p.contains("sizes") ? p.at("sizes") : nlohmann::json();
  if (!sizes.is_array() || sizes.empty())
    throw InputError(where + ".sizes", "must be a list of [first, last, step]", "bad_file");
  for (const auto& r : sizes) {
    if (!r.is_array() || r.size() != 3 || !r[0].is_number_integer() || !r[1].is_number_integer() ||
        !r[2].is_number_integer() || r[0].get<int64_t>() < 1 || r[1].get<int64_t>() < 0 ||
        r[2].get<int64_t>() < 1)
      throw InputError(where + ".sizes",
                       "each range must be [first, last (0: open), step]: first and step of at "
                       "least 1",
                       "bad_file");
    g.ranges.push_back({r[0].get<int64_t>(), r[1].get<int64_t>(), r[2].get<int64_t>()});
  }
  return g;
}

// A release whose reserved_memory names "same_as" another release takes that release's rule with
// its own piecewise graphs (SGLang 0.5.10 as 0.5.3), so engines.json states the classes once.
void inherit_reserved_memory(const nlohmann::json& releases, std::vector<EngineRelease>& out,
                             const std::string& where) {
  for (size_t i = 0; i < out.size(); ++i) {
    const auto& r = releases.at(i);
    if (!r.contains("reserved_memory") || !r.at("reserved_memory").contains("same_as")) continue;
    const auto& name = r.at("reserved_memory").at("same_as");
    const EngineRelease* base = nullptr;
    for (const auto& b : out)
      if (name.is_string() && b.version == name.get<std::string>() &&
          !b.reserved_memory.classes.empty())
        base = &b;
    if (!base)
      throw InputError(where + ".releases[" + std::to_string(i) + "].reserved_memory.same_as",
                       "must name a release with its own reserved_memory", "bad_file");
    PrefillGraphRule own = std::move(out[i].reserved_memory.prefill_graphs);
    out[i].reserved_memory = base->reserved_memory;
    out[i].reserved_memory.prefill_graphs = std::move(own);
  }
}

// SGLang's reserved memory (ReservedMemoryRule), absent meaning none.
ReservedMemoryRule read_reserved_memory(const nlohmann::json& r, const std::string& at) {
  ReservedMemoryRule m;
  if (!r.contains("reserved_memory")) return m;
  const std::string where = at + ".reserved_memory";
  const auto& o = data::required_object(r, "reserved_memory", at);
  data::reject_unknown_keys(o, where,
                            {"_source", "base_mib", "per_chunk_token_mib", "min_chunk_tokens",
                             "per_graph_seq_mib", "per_rank_mib", "floor_mib", "floor_above_gib",
                             "large_tp", "gpu_classes", "prefill_graphs", "same_as"});
  // "same_as": another release's rule (inherit_reserved_memory), with its own piecewise graphs.
  if (o.contains("same_as")) {
    m.prefill_graphs = read_prefill_graphs(o, where);
    return m;
  }
  m.base_mib = data::required_number(o, "base_mib", where, 0, 1e6);
  m.per_chunk_token_mib = data::required_number(o, "per_chunk_token_mib", where, 0, 1e3);
  m.min_chunk_tokens = count(o, "min_chunk_tokens", where, true);
  m.per_graph_seq_mib = data::required_number(o, "per_graph_seq_mib", where, 0, 1e3);
  m.per_rank_mib = data::required_number(o, "per_rank_mib", where, 0, 1e6);
  m.floor_mib = data::required_number(o, "floor_mib", where, 0, 1e6);
  m.floor_above_gib = data::required_number(o, "floor_above_gib", where, 0, 1e6);
  m.large_tp = count(o, "large_tp", where, true);
  if (!o.contains("gpu_classes") || !o.at("gpu_classes").is_array() || o.at("gpu_classes").empty())
    throw InputError(where + ".gpu_classes", "must be a list of GPU classes", "bad_file");
  for (const auto& c : o.at("gpu_classes"))
    m.classes.push_back(read_gpu_class(c, where + ".gpu_classes[]"));
  // Ascending limits, and the last class takes every larger GPU.
  for (size_t i = 0; i + 1 < m.classes.size(); ++i)
    if (m.classes[i].below_gib <= 0 ||
        (i > 0 && m.classes[i].below_gib <= m.classes[i - 1].below_gib))
      throw InputError(where + ".gpu_classes", "below_gib must ascend", "bad_file");
  if (m.classes.back().below_gib != 0)
    throw InputError(where + ".gpu_classes", "the last class has no below_gib", "bad_file");
  m.prefill_graphs = read_prefill_graphs(o, where);
  return m;
}

// The runtime's own buffers (TensorRT-LLM's C++ runtime, memory/trt_runtime.h), absent meaning
// none modelled.
void read_runtime_buffers(const nlohmann::json& r, const std::string& where, EngineRelease& e) {
  e.runtime_max_batch = count(r, "runtime_max_batch", where, false);
  e.runtime_bytes_per_seq_logit =
      data::number_or(r, "runtime_bytes_per_seq_logit", where, 0, 1e3, 0);
  e.runtime_bytes_per_seq_token =
      data::number_or(r, "runtime_bytes_per_seq_token", where, 0, 1e3, 0);
  e.runtime_bytes_per_seq = data::number_or(r, "runtime_bytes_per_seq", where, 0, 1e9, 0);
}

// A release's engine_path: a short name ("V0", "V1"), "" when absent.
std::string engine_path(const nlohmann::json& r, const std::string& where) {
  if (!r.contains("engine_path")) return "";
  const auto& path = r.at("engine_path");
  if (!path.is_string() || path.get<std::string>().empty() || path.get<std::string>().size() > 16)
    throw InputError(where + ".engine_path", "must be a short name (\"V0\", \"V1\")", "bad_file");
  return path.get<std::string>();
}

EngineRelease read_release(const nlohmann::json& r, bool preallocates, const std::string& where) {
  if (!preallocates) {
    data::reject_unknown_keys(r, where, {"version", "covers", "rope_cache_families"});
  } else {
    data::reject_unknown_keys(r, where, kPreallocatingReleaseKeys);
  }
  EngineRelease e;
  if (!r.contains("version") || !r.at("version").is_string() ||
      r.at("version").get<std::string>().empty())
    throw InputError(where + ".version", "is missing", "bad_file");
  e.version = r.at("version").get<std::string>();
  if (r.contains("covers")) {
    const std::vector<std::string> ends = strings(r, "covers", where, true);
    // In range around its own version: dotted numbers, first <= last.
    if (ends.size() != 2 || !in_version_range(ends[0], ends[1], e.version))
      throw InputError(where + ".covers",
                       "must be [first, last]: dotted version numbers, first <= last, around "
                       "the release's own version",
                       "bad_file");
    e.covers_first = ends[0];
    e.covers_last = ends[1];
  }
  if (!preallocates) {
    e.rope_cache_families = strings(r, "rope_cache_families", where, false);
    return e;
  }
  e.engine_path = engine_path(r, where);
  e.pool_rule = pool_rule(r, where);
  e.memory_fraction = data::required_number(r, "memory_fraction", where, 0.05, 1);
  if (r.contains("memory_fraction_by_tp")) {
    const auto& t = r.at("memory_fraction_by_tp");
    if (!t.is_object()) throw InputError(where + ".memory_fraction_by_tp", "must be an object");
    for (const auto& [tp, f] : t.items()) {
      int64_t n = 0;
      for (char ch : tp) {
        if (!std::isdigit(static_cast<unsigned char>(ch)) || n > 1'000'000)
          throw InputError(where + ".memory_fraction_by_tp", "keys are TP sizes", "bad_file");
        n = n * 10 + (ch - '0');
      }
      if (n < 1 || !f.is_number() || f.get<double>() < 0.05 || f.get<double>() > 1)
        throw InputError(where + ".memory_fraction_by_tp." + tp, "must be a fraction in [0.05, 1]",
                         "bad_file");
      e.memory_fraction_by_tp.emplace_back(n, f.get<double>());
    }
    std::sort(e.memory_fraction_by_tp.begin(), e.memory_fraction_by_tp.end());
  }
  e.reserved_memory = read_reserved_memory(r, where);
  e.non_torch_bytes = data::required_number(r, "non_torch_bytes", where, 0, kMaxBytes);
  e.non_torch_tp_extra_bytes =
      data::required_number(r, "non_torch_tp_extra_bytes", where, 0, kMaxBytes);
  e.cuda_graph_bytes = data::required_number(r, "cuda_graph_bytes", where, 0, kMaxBytes);
  e.cuda_graphs_in_budget = data::bool_or(r, "cuda_graphs_in_budget", where, false);
  // Only vLLM's rule subtracts its graphs from the pool (memory_estimate.cc pool_size); under
  // another rule the flag would drop them from the total without taking them from the pool.
  if (e.cuda_graphs_in_budget && e.pool_rule != PoolRule::kShareOfTotal)
    throw InputError(where + ".cuda_graphs_in_budget", "is for pool_rule share_of_total",
                     "bad_file");
  e.baseline_outside_budget = data::required_bool(r, "baseline_outside_budget", where);
  e.profile_tokens = count(r, "profile_tokens", where, true);
  e.profile_seqs = count(r, "profile_seqs", where, true);
  if (e.profile_tokens < 1 || e.profile_seqs < 1)
    throw InputError(where, "profile_tokens and profile_seqs must be at least 1", "bad_file");
  e.profile_covers_max_model_len = data::required_bool(r, "profile_covers_max_model_len", where);
  // Features a release may not have, absent meaning none: no chunked-prefill threshold (0 =
  // never), no large-GPU defaults (0 = no such class), no per-TP fraction table (above).
  e.chunked_prefill_above = count(r, "chunked_prefill_above", where, false);
  e.chunked_tokens = count(r, "chunked_tokens", where, e.chunked_prefill_above > 0);
  e.large_gpu_min_gib = data::number_or(r, "large_gpu_min_gib", where, 0, 1e6, 0);
  e.large_gpu_excluded = strings(r, "large_gpu_excluded", where, false);
  e.large_gpu_tokens = count(r, "large_gpu_tokens", where, e.large_gpu_min_gib > 0);
  e.large_gpu_seqs = count(r, "large_gpu_seqs", where, e.large_gpu_min_gib > 0);
  e.sampler_bytes_per_logit = data::required_number(r, "sampler_bytes_per_logit", where, 0, 1e3);
  read_runtime_buffers(r, where, e);
  return e;
}

const std::vector<std::string> kEngineKeys = {"kind",
                                              "tasks",
                                              "preallocates",
                                              "splits_tensors",
                                              "caches_mla_latent",
                                              "kv_grows_by_concat",
                                              "pp_uses_nccl",
                                              "naive_pipeline",
                                              "persistent_grad_buffers",
                                              "ddp_grad_buckets",
                                              "own_zero3",
                                              "trains_on_apple",
                                              "language_models_only",
                                              "fp8_kv_cache",
                                              "fp8_kv_any_gpu",
                                              "max_zero_stage",
                                              "vendors",
                                              "weight_kinds",
                                              "knobs",
                                              "norm_saves_fp32_input",
                                              "logits_all_positions_in_generate",
                                              "loss_bytes_per_logit",
                                              "loss_bytes_per_logit_16bit",
                                              "allocator_overhead_fraction",
                                              "kbit_training_fp32_upcast",
                                              "adapters_fp32",
                                              "fp8_saves_quantized_inputs",
                                              "fp8_weights",
                                              "fused_swiglu",
                                              "optimizer_step_temporaries",
                                              "default_ubatch",
                                              "activation_bytes",
                                              "cuda_context_bytes",
                                              "releases",
                                              "zero3",
                                              "training_levers"};

// ENGINE.training_levers: the layout search's levers, required for engines that train.
TrainingLevers read_training_levers(const nlohmann::json& o, int max_zero_stage,
                                    const std::string& where) {
  data::reject_unknown_keys(o, where,
                            {"tp", "pp", "sp", "cp", "ep", "selective_recompute", "max_interleave",
                             "zero_stages", "offloads", "source"});
  TrainingLevers l;
  l.tp = data::required_bool(o, "tp", where);
  l.pp = data::required_bool(o, "pp", where);
  l.sp = data::required_bool(o, "sp", where);
  l.cp = data::required_bool(o, "cp", where);
  l.ep = data::required_bool(o, "ep", where);
  l.selective = data::required_bool(o, "selective_recompute", where);
  l.max_interleave =
      static_cast<int64_t>(data::required_number(o, "max_interleave", where, 1, 1024));
  if (!o.contains("zero_stages") || !o.at("zero_stages").is_array() || o.at("zero_stages").empty())
    throw InputError(where + ".zero_stages", "must list ZeRO stages", "bad_file");
  l.zero_stages.clear();
  for (const auto& z : o.at("zero_stages")) {
    if (!z.is_number_integer() || z.get<int>() < 0 || z.get<int>() > max_zero_stage ||
        (!l.zero_stages.empty() && z.get<int>() <= l.zero_stages.back()))
      throw InputError(
          where + ".zero_stages",
          "must be ascending stages from 0 to max_zero_stage " + std::to_string(max_zero_stage),
          "bad_file");
    l.zero_stages.push_back(z.get<int>());
  }
  const std::vector<std::string> offloads = strings(o, "offloads", where, true);
  if (offloads.empty() || offloads.front() != "none")
    throw InputError(where + ".offloads", "must start with none", "bad_file");
  const auto& names = offload_names();
  l.offloads.clear();
  for (const auto& off : offloads) {
    const auto it = std::find(names.begin(), names.end(), off);
    if (it == names.end())
      throw InputError(where + ".offloads", "must be none, optimizer or optimizer+params",
                       "bad_file");
    l.offloads.push_back(static_cast<Offload>(it - names.begin()));
  }
  return l;
}

bool trains(const EngineProfile& p) {
  return std::any_of(p.tasks.begin(), p.tasks.end(),
                     [](const std::string& t) { return t != "inference"; });
}

// The keys an engine may leave out, each by a rule rather than a C++ figure: what only
// another kind of engine has (a loss and ZeRO stages for trainers, ubatches and ggml
// activations for llama.cpp) is required there and 0 (or rejected) elsewhere; the 16-bit loss
// figure is the loss figure unless the engine states its own; a CUDA context of 0 is the
// "device" section's figure of the same file.
void read_optional_figures(const nlohmann::json& o, const std::string& where, EngineProfile& p) {
  const bool trainer = trains(p);
  p.loss_bytes_per_logit = trainer ? data::required_number(o, "loss_bytes_per_logit", where, 0, 64)
                                   : data::number_or(o, "loss_bytes_per_logit", where, 0, 64, 0);
  p.loss_bytes_per_logit_16bit =
      data::number_or(o, "loss_bytes_per_logit_16bit", where, 0, 64, p.loss_bytes_per_logit);
  const bool llama = p.kind == EngineKind::kLlamaCpp;
  p.default_ubatch = count(o, "default_ubatch", where, llama);
  p.activation_bytes = llama ? data::required_number(o, "activation_bytes", where, 1, 8)
                             : data::number_or(o, "activation_bytes", where, 1, 8, 0);
  p.cuda_context_bytes = data::number_or(o, "cuda_context_bytes", where, 0, kMaxBytes, 0);
  if (trainer)
    p.max_zero_stage = static_cast<int>(data::required_number(o, "max_zero_stage", where, 0, 3));
  else if (o.contains("max_zero_stage"))
    throw InputError(where + ".max_zero_stage", "is for engines that train", "bad_file");
}

EngineProfile read_engine(const std::string& name, const nlohmann::json& o,
                          const std::string& file) {
  const std::string where = file + " " + name;
  data::reject_unknown_keys(o, where, kEngineKeys);
  EngineProfile p;
  p.name = name;
  const std::string kind = o.value("kind", "");
  if (kind == "eager")
    p.kind = EngineKind::kEager;
  else if (kind == "preallocating")
    p.kind = EngineKind::kPreallocating;
  else if (kind == "llama.cpp")
    p.kind = EngineKind::kLlamaCpp;
  else
    throw InputError(where + ".kind", "must be eager, preallocating or llama.cpp", "bad_file");
  p.tasks = strings(o, "tasks", where, true);
  p.preallocates = data::required_bool(o, "preallocates", where);
  if (p.preallocates != (p.kind == EngineKind::kPreallocating))
    throw InputError(where + ".preallocates", "must be true exactly for kind preallocating",
                     "bad_file");
  p.splits_tensors = data::required_bool(o, "splits_tensors", where);
  p.caches_mla_latent = data::required_bool(o, "caches_mla_latent", where);
  p.kv_grows_by_concat = data::required_bool(o, "kv_grows_by_concat", where);
  p.pp_uses_nccl = data::required_bool(o, "pp_uses_nccl", where);
  p.naive_pipeline = data::required_bool(o, "naive_pipeline", where);
  p.persistent_grad_buffers = data::required_bool(o, "persistent_grad_buffers", where);
  p.ddp_grad_buckets = data::required_bool(o, "ddp_grad_buckets", where);
  p.own_zero3 = data::required_bool(o, "own_zero3", where);
  p.trains_on_apple = data::required_bool(o, "trains_on_apple", where);
  p.language_models_only = data::required_bool(o, "language_models_only", where);
  p.fp8_kv_cache = data::required_bool(o, "fp8_kv_cache", where);
  p.fp8_kv_any_gpu = data::required_bool(o, "fp8_kv_any_gpu", where);
  p.vendors = strings(o, "vendors", where, true);
  p.weight_kinds = strings(o, "weight_kinds", where, true);
  p.knobs = strings(o, "knobs", where, true);
  p.norm_saves_fp32_input = data::required_bool(o, "norm_saves_fp32_input", where);
  p.logits_all_positions_in_generate =
      data::required_bool(o, "logits_all_positions_in_generate", where);
  p.allocator_overhead_fraction =
      data::required_number(o, "allocator_overhead_fraction", where, 0, 1);
  p.kbit_training_fp32_upcast = data::required_bool(o, "kbit_training_fp32_upcast", where);
  p.adapters_fp32 = data::required_bool(o, "adapters_fp32", where);
  p.fused_swiglu = data::bool_or(o, "fused_swiglu", where, false);
  // FP8 training's rules; absent where the engine does not train in FP8 (then moot).
  p.fp8_saves_quantized_inputs = data::bool_or(o, "fp8_saves_quantized_inputs", where, false);
  if (o.contains("fp8_weights")) {
    static const std::vector<std::string> kFp8Weights = {"per-pass", "cached", "primary"};
    const auto& v = o.at("fp8_weights");
    if (!v.is_string())
      throw InputError(where + ".fp8_weights", "must be one of per-pass, cached, primary",
                       "bad_file");
    p.fp8_weights = static_cast<Fp8Weights>(
        name_index(v.get<std::string>(), kFp8Weights, where + ".fp8_weights"));
  }
  p.optimizer_step_temporaries =
      static_cast<int64_t>(data::required_number(o, "optimizer_step_temporaries", where, 0, 4));
  read_optional_figures(o, where, p);
  if (!o.contains("releases") || !o.at("releases").is_array() || o.at("releases").empty())
    throw InputError(where + ".releases", "must list at least one release", "bad_file");
  for (size_t i = 0; i < o.at("releases").size(); ++i)
    p.releases.push_back(read_release(o.at("releases").at(i), p.preallocates,
                                      where + ".releases[" + std::to_string(i) + "]"));
  inherit_reserved_memory(o.at("releases"), p.releases, where);
  for (size_t i = 0; i < p.releases.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (p.releases[i].version == p.releases[j].version)
        throw InputError(where + ".releases", "version " + p.releases[i].version + " twice",
                         "bad_file");
  if (trains(p))
    p.training_levers = read_training_levers(data::required_object(o, "training_levers", where),
                                             p.max_zero_stage, where + ".training_levers");
  else if (o.contains("training_levers"))
    throw InputError(where + ".training_levers", "is for engines that train", "bad_file");
  return p;
}

// An engine's tasks, vendors and weight kinds are tested a few times a scenario (issue 18).
bool contains(const std::vector<std::string>& list, std::string_view v) {
  for (const std::string& entry : list)
    if (same_text(entry, v)) return true;
  return false;
}

}  // namespace

bool EngineProfile::runs(std::string_view task) const {
  return contains(tasks, task);
}
bool EngineProfile::runs_on(std::string_view vendor) const {
  return contains(vendors, vendor);
}
bool EngineProfile::loads(std::string_view format_kind) const {
  return contains(weight_kinds, format_kind);
}
bool EngineProfile::honours(std::string_view knob) const {
  return contains(knobs, knob);
}

bool EngineRelease::covers(std::string_view v) const {
  return !covers_first.empty() && in_version_range(covers_first, covers_last, v);
}

std::string EngineRelease::range_text() const {
  if (covers_first.empty()) return "";
  return covers_first == covers_last ? covers_first + ".x"
                                     : covers_first + "-" + covers_last + ".x";
}

const EngineRelease* EngineProfile::find_release(std::string_view version) const {
  for (const auto& r : releases)
    if (r.version == version) return &r;
  return nullptr;
}

bool EngineProfile::newer_than_modelled(std::string_view version) const {
  const EngineRelease& newest = releases.front();
  return !newest.covers_last.empty() && after_version_range(newest.covers_last, version);
}

const EngineRelease& EngineProfile::release(std::string_view version,
                                            std::string_view field) const {
  return version.empty() ? releases.front() : named_release(version, field);
}

const EngineRelease& EngineProfile::named_release(std::string_view version,
                                                  std::string_view field) const {
  if (const EngineRelease* r = find_release(version)) return *r;
  for (const auto& r : releases)
    if (r.covers(version)) return r;
  // A release after the newest range modelled: engines change their start-up rules seldom, and a
  // user on today's release is better served by the newest rules, said in a warning
  // (set_release), than by an error.
  if (newer_than_modelled(version)) return releases.front();
  // Each release with the versions it takes (range_text).
  std::string known;
  for (const auto& r : releases) {
    known += (known.empty() ? "" : ", ") + r.version;
    if (const std::string range = r.range_text(); !range.empty()) known += " (" + range + ")";
  }
  throw InputError(std::string(field), "unknown " + name + " version '" + shown_input(version) +
                                           "'; the versions modelled are " + known);
}

std::vector<EngineProfile> read_engine_profiles(const nlohmann::json& engines,
                                                const std::string& file) {
  if (!engines.is_object()) throw InputError(file, "must be a JSON object", "bad_file");
  std::vector<EngineProfile> out;
  for (const auto& [name, o] : engines.items()) {
    if (data::is_comment_key(name) || name == "device" || name == "defaults") continue;
    out.push_back(read_engine(name, o, file));
  }
  if (out.empty()) throw InputError(file, "defines no engine", "bad_file");
  return out;
}

EngineDefaults read_engine_defaults(const nlohmann::json& engines, const std::string& file) {
  const std::string where = file + " defaults";
  const auto& d = data::required_object(engines, "defaults", file);
  data::reject_unknown_keys(d, where, {"serving", "training"});
  EngineDefaults out;
  out.serving = strings(d, "serving", where, true);
  if (!d.contains("training") || !d.at("training").is_string())
    throw InputError(where + ".training", "is missing", "bad_file");
  out.training = d.at("training").get<std::string>();
  auto known = [&](const std::string& name) {
    return engines.contains(name) && name != "device" && name != "defaults" &&
           !data::is_comment_key(name);
  };
  for (const auto& n : out.serving)
    if (!known(n)) throw InputError(where + ".serving", "names no engine: " + n, "bad_file");
  if (out.serving.empty() || !known(out.training))
    throw InputError(where, "serving must list engines and training name one", "bad_file");
  return out;
}

DeviceProfile read_device_profile(const nlohmann::json& engines, const std::string& file) {
  const std::string where = file + " device";
  const auto& d = data::required_object(engines, "device", file);
  data::reject_unknown_keys(
      d, where,
      {"driver_reserved_fraction", "geforce_driver_reserved_fraction", "gddr_ecc_fraction",
       "apple_wired_fraction", "cuda_context_bytes", "nccl_bytes_per_communicator"});
  DeviceProfile p;
  p.driver_reserved_fraction = data::required_number(d, "driver_reserved_fraction", where, 0, 0.5);
  // Optional, so that an engines.json of an earlier release still reads: the datacenter figure.
  p.geforce_driver_reserved_fraction =
      d.contains("geforce_driver_reserved_fraction")
          ? data::required_number(d, "geforce_driver_reserved_fraction", where, 0, 0.5)
          : p.driver_reserved_fraction;
  p.gddr_ecc_fraction = data::required_number(d, "gddr_ecc_fraction", where, 0, 0.5);
  p.apple_wired_fraction = data::required_number(d, "apple_wired_fraction", where, 0.05, 1);
  p.cuda_context_bytes = data::required_number(d, "cuda_context_bytes", where, 0, kMaxBytes);
  p.nccl_bytes_per_communicator =
      data::required_number(d, "nccl_bytes_per_communicator", where, 0, kMaxBytes);
  return p;
}

const GpuClassDefaults* ReservedMemoryRule::gpu_class(double gpu_gib) const {
  for (const auto& c : classes)
    if (c.below_gib <= 0 || gpu_gib < c.below_gib) return &c;
  return nullptr;
}

// python/sglang/srt/server_args.py _generate_piecewise_cuda_graph_tokens (from v0.5.10, later
// _generate_prefill_cuda_graph_batch_sizes): range(4, 33, 4) + range(48, 257, 16) + ... +
// range(4608, max + 1, 512), the counts above max dropped.
int64_t PrefillGraphRule::sizes(int64_t max_tokens) const {
  int64_t n = 0;
  for (const auto& r : ranges) {
    const int64_t last = r.last > 0 ? std::min(r.last, max_tokens) : max_tokens;
    if (last >= r.first) n += (last - r.first) / r.step + 1;
  }
  return n;
}

namespace {

// The release's default fraction by TP size (SGLang 0.4), else its one default.
double fraction_by_tp(const EngineRelease& r, int64_t tp) {
  double f = r.memory_fraction;
  for (const auto& [min_tp, v] : r.memory_fraction_by_tp)
    if (tp >= min_tp) f = v;
  return f;
}

}  // namespace

double memory_fraction(const EngineRelease& r, bool given, double scenario_value, int64_t tp) {
  if (given || r.memory_fraction <= 0) return scenario_value;
  return fraction_by_tp(r, tp);
}

std::optional<DerivedDefaults> derived_defaults(const ReservedMemoryRule& m,
                                                const FractionInputs& in) {
  constexpr double kMiB = 1024.0 * 1024.0;
  if (m.classes.empty() || in.gpu_bytes <= 0) return std::nullopt;
  DerivedDefaults d;
  d.gpu_mib = in.gpu_bytes / kMiB;
  const GpuClassDefaults* c = m.gpu_class(d.gpu_mib / 1024.0);
  if (!c) return std::nullopt;
  // python/sglang/srt/server_args.py _handle_gpu_memory_settings (v0.5.3 on, PR #10975 and
  // #11076): chunked_prefill_size and cuda_graph_max_bs by the GPU's memory class, then
  // reserved_mem = 512 + max(chunk, 2048) x 1.5 + cuda_graph_max_bs x 2 + tp x pp / 8 x 1024
  // MiB, at least 10 GiB above 60 GiB, and mem_fraction_static = round((gpu_mem - reserved)
  // / gpu_mem, 3). gpu_mem is nvidia-smi's memory.total in MiB (utils
  // get_nvgpu_memory_capacity), the caller's in.gpu_bytes.
  d.chunk_tokens = in.chunk_tokens > 0 ? in.chunk_tokens : c->chunk_tokens;
  d.graph_bs = in.tp >= m.large_tp ? c->graph_bs_large_tp : c->graph_bs;
  double reserved =
      m.base_mib +
      m.per_chunk_token_mib * static_cast<double>(std::max(d.chunk_tokens, m.min_chunk_tokens)) +
      m.per_graph_seq_mib * static_cast<double>(d.graph_bs) +
      m.per_rank_mib * static_cast<double>(in.tp * in.pp);
  // From v0.5.10 (PR #16331, piecewise CUDA graphs on by default; PR #15927's reserve):
  // + len(piecewise_cuda_graph_tokens) x 8 MiB, the tokens up to the chunked prefill size,
  // 2048 for an MLA model, before the floor.
  const PrefillGraphRule& g = m.prefill_graphs;
  d.prefill_graphs = in.piecewise && !g.ranges.empty();
  if (d.prefill_graphs) {
    d.prefill_graph_sizes = g.sizes(in.mla ? g.mla_max_tokens : d.chunk_tokens);
    reserved += g.per_size_mib * static_cast<double>(d.prefill_graph_sizes);
  }
  if (d.gpu_mib > m.floor_above_gib * 1024.0) reserved = std::max(reserved, m.floor_mib);
  d.fraction = std::round((d.gpu_mib - reserved) / d.gpu_mib * 1000.0) / 1000.0;
  return d;
}

double memory_fraction(const EngineRelease& r, bool given, double scenario_value,
                       const FractionInputs& in) {
  if (given || r.memory_fraction <= 0) return scenario_value;
  if (const auto d = derived_defaults(r.reserved_memory, in)) return d->fraction;
  return fraction_by_tp(r, in.tp);
}

ProfileRun profile_run(const EngineRelease& r, int64_t given_tokens, int64_t max_model_len,
                       double gpu_gib, std::string_view gpu_id) {
  ProfileRun p{r.profile_tokens, r.profile_seqs};
  bool large = r.large_gpu_min_gib > 0 && gpu_gib >= r.large_gpu_min_gib;
  for (const auto& name : r.large_gpu_excluded)
    large = large && gpu_id.find(name) == std::string_view::npos;
  if (large) p = {r.large_gpu_tokens, r.large_gpu_seqs};
  // SGLang from 0.5.3: the chunked prefill size of the GPU's class (server_args.py
  // _handle_gpu_memory_settings), which bounds the tokens of one prefill forward.
  if (!r.reserved_memory.classes.empty() && gpu_gib > 0)
    p.tokens = r.reserved_memory.gpu_class(gpu_gib)->chunk_tokens;
  if (r.chunked_prefill_above > 0 && max_model_len > r.chunked_prefill_above)
    p.tokens = r.chunked_tokens;
  else if (r.profile_covers_max_model_len)
    p.tokens = std::max(p.tokens, max_model_len);
  if (given_tokens > 0) p.tokens = given_tokens;
  return p;
}

Zero3Defaults read_zero3_defaults(const nlohmann::json& engines, const std::string& file) {
  const std::string where = file + " deepspeed.zero3";
  const auto& deepspeed = data::required_object(engines, "deepspeed", file);
  const auto& z = data::required_object(deepspeed, "zero3", file + " deepspeed");
  const auto& a = data::required_object(z, "hf_auto", where);
  data::reject_unknown_keys(z, where,
                            {"buckets", "stage3_max_live_parameters", "stage3_max_reuse_distance",
                             "stage3_prefetch_bucket_size", "stage3_param_persistence_threshold",
                             "reduce_bucket_size", "hf_auto"});
  data::reject_unknown_keys(
      a, where + ".hf_auto",
      {"reduce_bucket_size_per_hidden_squared", "stage3_prefetch_bucket_size_per_hidden_squared",
       "stage3_param_persistence_threshold_per_hidden"});
  constexpr double kMax = 1e15;
  Zero3Defaults d;
  d.max_live = data::required_number(z, "stage3_max_live_parameters", where, 0, kMax);
  d.max_reuse = data::required_number(z, "stage3_max_reuse_distance", where, 0, kMax);
  d.prefetch_bucket = data::required_number(z, "stage3_prefetch_bucket_size", where, 0, kMax);
  d.persistence = data::required_number(z, "stage3_param_persistence_threshold", where, 0, kMax);
  d.reduce_bucket = data::required_number(z, "reduce_bucket_size", where, 0, kMax);
  const std::string aw = where + ".hf_auto";
  d.auto_reduce_per_hidden_squared =
      data::required_number(a, "reduce_bucket_size_per_hidden_squared", aw, 0, 1e3);
  d.auto_prefetch_per_hidden_squared =
      data::required_number(a, "stage3_prefetch_bucket_size_per_hidden_squared", aw, 0, 1e3);
  d.auto_persistence_per_hidden =
      data::required_number(a, "stage3_param_persistence_threshold_per_hidden", aw, 0, 1e6);
  if (!z.contains("buckets") || !z.at("buckets").is_string() ||
      (z.at("buckets") != "hf-auto" && z.at("buckets") != "deepspeed-defaults"))
    throw InputError(where + ".buckets", "must be \"deepspeed-defaults\" or \"hf-auto\"",
                     "bad_file");
  d.hf_auto = z.at("buckets") == "hf-auto";
  return d;
}

}  // namespace gpusizer
