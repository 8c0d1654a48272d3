// Typed edits of a parsed scenario (gpusizer/scenario_edit.h): the fields set, then the defaults
// that follow them derived again with parse_scenario's own steps (scenario/defaults.h), then the
// cross-field checks (validate, scenario.cc).
#include "gpusizer/scenario_edit.h"

#include "scenario/defaults.h"
#include "scenario/engine_choice.h"
#include "scenario/traffic.h"

namespace gpusizer {
namespace {

template <typename T>
void take(std::optional<T>& a, const std::optional<T>& b) {
  if (b) a = b;
}

// Lengths the edit sets; the others follow them as in parse_scenario, and so do the traffic's
// mean lengths that its object left out.
void edit_lengths(Scenario& s, ScenarioGiven& given, const ScenarioEdit& e) {
  if (!e.seq_len && !e.prompt_len && !e.output_len) return;
  if (e.seq_len) s.seq_len = *e.seq_len, given.seq_len = true;
  if (e.prompt_len) s.prompt_len = *e.prompt_len, given.prompt_len = true;
  if (e.output_len) s.output_len = *e.output_len, given.output_len = true;
  derive_lengths(s, given.seq_len,
                 given.prompt_len ? std::optional<int64_t>(s.prompt_len) : std::nullopt,
                 given.output_len ? std::optional<int64_t>(s.output_len) : std::nullopt);
  if (s.traffic)
    follow_scenario_lengths(*s.traffic, s, given.traffic_prompt_len, given.traffic_output_len);
}

void edit_training(TrainingOptions& t, ScenarioGiven& given, const ScenarioEdit& e) {
  if (e.gradient_checkpointing)
    t.recompute = *e.gradient_checkpointing ? Recompute::kFull : Recompute::kNone;
  if (e.flash_attention) t.flash_attention = *e.flash_attention;
  if (e.optimizer) t.optimizer = *e.optimizer;
  if (e.offload) t.offload = *e.offload;
  if (e.zero_stage) t.zero_stage = *e.zero_stage;
  if (e.grad_accum) t.grad_accum = *e.grad_accum, given.grad_accum = true;
}

// A system with its split given: the layout rule no longer chooses it.
void edit_system(Scenario& s, const ScenarioEdit& e) {
  if (!e.gpu_count) return;
  s.gpu_count = *e.gpu_count;
  s.parallel.tp = e.tp.value_or(s.parallel.tp);
  s.parallel.pp = e.pp.value_or(s.parallel.pp);
  s.parallel.dp = e.dp.value_or(s.parallel.dp);
  s.default_layout = false;
  s.requested_replicas = 0;
}

}  // namespace

ScenarioEdit merged(ScenarioEdit a, const ScenarioEdit& b) {
  take(a.task, b.task);
  take(a.weights, b.weights);
  take(a.kv_cache, b.kv_cache);
  take(a.seq_len, b.seq_len);
  take(a.prompt_len, b.prompt_len);
  take(a.output_len, b.output_len);
  take(a.batch, b.batch);
  take(a.gpu_count, b.gpu_count);
  take(a.tp, b.tp);
  take(a.pp, b.pp);
  take(a.dp, b.dp);
  take(a.gradient_checkpointing, b.gradient_checkpointing);
  take(a.flash_attention, b.flash_attention);
  take(a.optimizer, b.optimizer);
  take(a.offload, b.offload);
  take(a.zero_stage, b.zero_stage);
  take(a.grad_accum, b.grad_accum);
  return a;
}

nlohmann::json to_patch(const ScenarioEdit& e) {
  nlohmann::json p = nlohmann::json::object();
  if (e.task) p["task"] = to_string(*e.task);
  if (e.weights) p["weights"] = *e.weights;
  if (e.kv_cache) p["kv_cache"] = *e.kv_cache;
  if (e.seq_len) p["seq_len"] = *e.seq_len;
  if (e.prompt_len) p["prompt_len"] = *e.prompt_len;
  if (e.output_len) p["output_len"] = *e.output_len;
  if (e.batch) p["batch"] = *e.batch;
  if (e.gpu_count) p["gpu_count"] = *e.gpu_count;
  if (e.tp) p["parallel"]["tp"] = *e.tp;
  if (e.pp) p["parallel"]["pp"] = *e.pp;
  if (e.dp) p["parallel"]["dp"] = *e.dp;
  if (e.gradient_checkpointing) p["training"]["gradient_checkpointing"] = *e.gradient_checkpointing;
  if (e.flash_attention) p["training"]["flash_attention"] = *e.flash_attention;
  if (e.optimizer) p["training"]["optimizer"] = to_string(*e.optimizer);
  if (e.offload) p["training"]["offload"] = to_string(*e.offload);
  if (e.zero_stage) p["training"]["zero_stage"] = *e.zero_stage;
  if (e.grad_accum) p["training"]["grad_accum"] = *e.grad_accum;
  return p;
}

Scenario edited(const Scenario& base, const ScenarioGiven& base_given, const ScenarioEdit& e,
                const Catalog& catalog) {
  Scenario s = base;
  ScenarioGiven given = base_given;
  if (e.task) s.task = *e.task;
  if (e.weights) s.weights = catalog.format(*e.weights, "weights", "weights");
  if (e.kv_cache) given.kv_cache = true;
  if (e.kv_cache || !given.kv_cache)  // an unnamed KV format follows the weights
    s.kv_cache = catalog.format(e.kv_cache.value_or(default_kv_id(s.weights)), "kv", "kv_cache");
  edit_lengths(s, given, e);
  if (e.batch) s.batch = *e.batch;
  rederive_engine(catalog, given.engine, given.engine_version, s);
  edit_training(s.training, given, e);
  edit_system(s, e);
  validate(s, catalog);
  derive_batches(s, given);
  return s;
}

}  // namespace gpusizer
