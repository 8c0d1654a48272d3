// A recommend request's JSON (docs/contract.md, recommend) parsed into the advisor's typed
// RecommendRequest: the constraint keys checked with the bad field named, the scenario, the
// training layout's fixed count and pins.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/json_fields.h"
#include "gpusizer/error.h"
#include "gpusizer/json/advisor.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

const nlohmann::json* object_at(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? &*it : nullptr;
}

const std::vector<std::string> kConstraintKeys = {"objective",   "max_gpus",
                                                  "budget_usd",  "vendor",
                                                  "segment",     "cloud",
                                                  "on_prem",     "deployment",
                                                  "region",      "min_tokens_per_s",
                                                  "max_ttft_ms", "max_days",
                                                  "production",  "allow_quantization",
                                                  "headroom",    "gpus",
                                                  "limit",       "constraints",
                                                  "top",         "allow_offload"};

// The values of a catalog column, as written.
std::vector<std::string> distinct(const Catalog& catalog, std::string Gpu::*column) {
  std::vector<std::string> out;
  for (const Gpu& g : catalog.gpus())
    if (std::find(out.begin(), out.end(), g.*column) == out.end()) out.push_back(g.*column);
  return out;
}

std::string matching_value(const nlohmann::json& c, const char* key, const Catalog& catalog,
                           std::string Gpu::*column) {
  auto v = read_string(c, key, "");
  if (!v || v->empty()) return "";
  const auto values = distinct(catalog, column);
  const std::string want = normalize_name(*v);
  for (const auto& value : values)
    if (normalize_name(value).find(want) != std::string::npos) return *v;
  std::string msg = "no GPU in the catalog has " + std::string(key) + " '" + *v + "'; use one of";
  for (size_t i = 0; i < values.size(); ++i) msg += (i ? ", " : " ") + values[i];
  throw InputError(key, msg, "unknown_name");
}

}  // namespace

nlohmann::json scenario_of_request(const nlohmann::json& request) {
  if (!request.is_object()) return request;
  nlohmann::json s = request;
  for (const auto& k : kConstraintKeys) s.erase(k);
  // A single "gpu" becomes the allowed list; the search sets the system itself.
  s.erase("gpu");
  s.erase("gpu_count");
  return s;
}

Constraints parse_constraints(const nlohmann::json& request, const Catalog& catalog) {
  if (!request.is_object())
    throw InputError("",
                     "a request must be a JSON object, not " + std::string(request.type_name()));
  // Constraints may sit at the top level or in a "constraints" object.
  nlohmann::json c = request;
  if (auto it = request.find("constraints"); it != request.end() && !it->is_null()) {
    if (!it->is_object()) throw InputError("constraints", "must be an object");
    for (const auto& [k, v] : it->items()) c[k] = v;
  }
  Constraints out;
  if (auto v = read_enum(c, "objective", "", {"cost", "speed", "power"}))
    out.objective = *v == "cost"    ? Objective::kCost
                    : *v == "speed" ? Objective::kSpeed
                                    : Objective::kPower;
  if (auto v = read_int(c, "max_gpus", "", 1, 100000)) out.max_gpus = *v;
  if (auto it = c.find("budget_usd"); it != c.end() && !it->is_null()) {
    if (!it->is_number()) throw InputError("budget_usd", "must be a number of US dollars");
    if (it->get<double>() <= 0)
      throw InputError("budget_usd", "must be positive, not " + it->dump(), "out_of_range");
    out.budget_usd = read_number(c, "budget_usd", "", 0, 1e12);
  }
  out.vendor = matching_value(c, "vendor", catalog, &Gpu::vendor);
  out.segment = matching_value(c, "segment", catalog, &Gpu::segment);
  const bool cloud = read_bool(c, "cloud", "").value_or(false);
  const bool on_prem = read_bool(c, "on_prem", "").value_or(false);
  if (cloud && on_prem) throw InputError("on_prem", "choose cloud or on_prem, not both");
  out.deployment = cloud ? "cloud" : on_prem ? "on_prem" : "";
  if (auto v = read_enum(c, "deployment", "", {"cloud", "on_prem", "any"}))
    out.deployment = *v == "any" ? "" : *v;
  if (auto v = read_enum(c, "region", "", {"cn", "any", "us", "eu"}))
    out.region = *v == "cn" ? "cn" : "";
  out.min_tokens_per_s = read_number(c, "min_tokens_per_s", "", 0, 1e12);
  out.max_ttft_ms = read_number(c, "max_ttft_ms", "", 0.001, 1e9);
  out.max_days = read_number(c, "max_days", "", 0.001, 1e6);
  out.production = read_bool(c, "production", "").value_or(false);
  out.allow_quantization = read_bool(c, "allow_quantization", "").value_or(false);
  out.allow_offload = read_bool(c, "allow_offload", "").value_or(false);
  if (auto v = read_number(c, "headroom", "", 0, 0.9)) out.headroom = *v;
  if (auto v = read_int(c, "limit", "", 1, 1000)) out.limit = *v;
  // "top" (CLI --top, contract v2 "Training layouts") is the same as "limit".
  if (auto v = read_int(c, "top", "", 1, 1000)) out.limit = *v;
  auto add_gpu = [&](const nlohmann::json& name, const std::string& field) {
    if (!name.is_string()) throw InputError(field, "must be a GPU id");
    const std::string id = catalog.gpu(name.get<std::string>(), field).id;
    if (std::find(out.gpus.begin(), out.gpus.end(), id) == out.gpus.end()) out.gpus.push_back(id);
  };
  if (auto it = c.find("gpus"); it != c.end() && !it->is_null()) {
    if (it->is_string()) {
      add_gpu(*it, "gpus");
    } else if (it->is_array()) {
      for (size_t i = 0; i < it->size(); ++i) add_gpu((*it)[i], "gpus[" + std::to_string(i) + "]");
    } else {
      throw InputError("gpus", "must be a list of GPU ids");
    }
  }
  if (auto it = request.find("gpu"); it != request.end() && !it->is_null()) add_gpu(*it, "gpu");
  return out;
}

LayoutPins layout_pins(const nlohmann::json& j, const Scenario& s) {
  LayoutPins p;
  if (const auto* par = object_at(j, "parallel")) {
    if (par->contains("tp")) p.tp = s.parallel.tp;
    if (par->contains("pp")) p.pp = s.parallel.pp;
    if (par->contains("pp_interleave")) p.pp_interleave = s.parallel.pp_interleave;
    if (par->contains("dp")) p.dp = s.parallel.dp;
    if (par->contains("cp")) p.cp = s.parallel.cp;
    if (par->contains("ep")) p.ep = s.parallel.ep;
    if (par->contains("sequence_parallel")) p.sequence_parallel = s.parallel.sequence_parallel;
  }
  if (const auto* t = object_at(j, "training")) {
    if (t->contains("zero_stage")) p.zero_stage = s.training.zero_stage;
    if (t->contains("gradient_checkpointing")) p.recompute = s.training.recompute;
    if (t->contains("offload")) p.offload = s.training.offload;
  }
  if (j.contains("batch")) p.micro_batch = s.batch;
  return p;
}

RecommendRequest parse_recommend_request(const nlohmann::json& request, const Catalog& catalog) {
  RecommendRequest r;
  r.constraints = parse_constraints(request, catalog);
  const nlohmann::json scenario_json = scenario_of_request(request);
  r.scenario = parse_scenario(scenario_json, catalog, r.given);
  // Training on token sequences without traffic: the layout search on the one gpu_count the
  // request fixes (else the allowed counts), keeping the layout fields it fixes.
  const Scenario& s = r.scenario;
  if (!s.traffic && is_training(s.task) && s.task != Task::kCvTrain) {
    r.gpu_count = read_int(request, "gpu_count", "", 1, 1'000'000);
    r.pins = layout_pins(scenario_json, s);
  }
  return r;
}

namespace {

// How many times better the parallel engine's best option must score than the named engine's to
// be worth a note: a gain a buyer acts on, not one within the estimates' bands.
constexpr double kParallelEngineGain = 2.0;

// A training request that names an engine whose layer split is a naive pipeline (HF Trainer:
// device_map's stages run one at a time, engines.json naive_pipeline) is planned on it alone.
// When its best option splits the model, the same request with an engine that pipelines
// micro-batches and runs tensor parallelism (Megatron-Core where it runs the task, full and
// pretrain; else FSDP2 as torchtitan composes it) says what that would reach, where it is at
// least twice as good by the request's objective. Without a named engine the planner already
// ranks those engines' layouts (advisor/training_plan.cc), so no note is needed.
void add_parallel_engine_note(const nlohmann::json& request, const RecommendRequest& parsed,
                              const Catalog& catalog, Recommendation& r) {
  const Scenario& s = parsed.scenario;
  if (!parsed.given.engine || !catalog.engine(s.engine).naive_pipeline || s.traffic ||
      !is_training(s.task) || s.task == Task::kCvTrain || r.options.empty())
    return;
  const Option& best = r.options.front();
  if (best.scenario.parallel.pp <= 1 || !best.estimate.performance) return;
  const std::string alt_engine =
      catalog.engine("megatron").runs(task_name(s.task)) ? "megatron" : "fsdp";
  nlohmann::json with_alt = request;
  with_alt["engine"] = alt_engine;
  Recommendation m;
  try {
    m = recommend(parse_recommend_request(with_alt, catalog), catalog);
  } catch (const InputError&) {
    return;  // the engine does not run this task or model
  }
  if (m.options.empty() || !m.options.front().estimate.performance) return;
  const Option& alt = m.options.front();
  if (!std::isfinite(alt.objective_value) || !std::isfinite(best.objective_value) ||
      alt.objective_value * kParallelEngineGain > best.objective_value)
    return;
  const PerformanceEstimate& p = *best.estimate.performance;
  const PerformanceEstimate& q = *alt.estimate.performance;
  r.notes.push_back(fmt::format(
      "{} runs a model split over GPUs one stage at a time: MFU {:.0f}% at best here; with "
      "\"engine\": \"{}\", which pipelines micro-batches and splits layers by tensor "
      "parallelism, the best option is {} x {} at {:.0f} training tokens/s (MFU {:.0f}%)",
      s.engine, 100 * p.mfu.value_or(0), alt_engine, alt.scenario.gpu_count, alt.scenario.gpu->name,
      q.train_tokens_per_s.value_or(0), 100 * q.mfu.value_or(0)));
}

}  // namespace

Recommendation recommend(const nlohmann::json& request, const Catalog& catalog) {
  const RecommendRequest parsed = parse_recommend_request(request, catalog);
  Recommendation r = recommend(parsed, catalog);
  add_parallel_engine_note(request, parsed, catalog, r);
  return r;
}

}  // namespace gpusizer
