// The JSON facade shared by the CLI and the HTTP server.
#include "gpusizer/json/api.h"

#include <cmath>

#include "core/json_fields.h"
#include "estimate/layout.h"
#include "estimate/rule_of_thumb.h"
#include "gpusizer/advisor.h"
#include "gpusizer/error.h"
#include "gpusizer/estimate.h"
#include "gpusizer/fit_verdict.h"
#include "gpusizer/json/lang.h"
#include "gpusizer/json/scenario.h"
#include "gpusizer/names.h"
#include "gpusizer/saturate.h"
#include "report/estimate_json.h"

namespace gpusizer {
namespace {

nlohmann::json rule_of_thumb_json(const RuleOfThumb& r) {
  auto b = [](double v) { return saturating_int64(v); };
  return {{"total_bytes", b(r.total())},
          {"weights_bytes", b(r.weights)},
          {"activations_bytes", b(r.activations)},
          {"kv_cache_bytes", b(r.kv_cache)},
          {"gradients_bytes", b(r.gradients)},
          {"optimizer_bytes", b(r.optimizer)},
          {"overhead_bytes", b(r.other)},
          {"basis",
           "the articles' rule of thumb: params x bytes; activations and KV 10% of the "
           "weights; 2 GB other; LoRA trains 1%; Adam 8 B and gradients 2 B per trainable "
           "parameter (decimal GB)"}};
}

// Replaces the analytic memory with the articles' arithmetic (--method rule-of-thumb).
void apply_rule_of_thumb(const RuleOfThumb& r, Estimate& e) {
  MemoryEstimate& m = e.memory;
  const std::optional<double> capacity = m.capacity;
  m = MemoryEstimate{};
  m.capacity = capacity;
  m.weights = r.weights;
  m.activations = r.activations;
  m.kv_cache = r.kv_cache;
  m.gradients = r.gradients;
  m.optimizer = r.optimizer;
  m.overhead = r.other;
  m.allocated = r.total() - r.other;
  m.reserved = m.allocated;
  m.total = r.total();
  m.low = m.total;
  m.high = m.total;
  if (capacity) m.fits = m.total <= *capacity;
  e.basis.clear();
  e.basis["total_bytes"] = rule_of_thumb_json(r)["basis"];
  e.warnings.push_back("method rule-of-thumb: the articles' arithmetic, not the analytic model");
}

// docs/contract.md, v2: the verdict (gpusizer/fit_verdict.h) rendered: "fits" beside
// memory.fits; without the figures, no "cost" either; the model's maximum context for the faces;
// the context warning repeated as "context_warning".
void render_fit_verdict(const FitVerdict& v, nlohmann::json& j) {
  if (v.fits) j["fits"] = *v.fits;
  if (!v.keeps_figures) {
    j.erase("performance");
    j.erase("cost");
  }
  if (v.max_context) j["model"]["max_context"] = *v.max_context;
  if (v.context_warning) j["context_warning"] = *v.context_warning;
}

// Whether `name` is the entry's own id, name or Hugging Face id rather than an alias or a partial
// name that resolved to it.
bool names_entry(const std::string& name, const Model& m) {
  const std::string key = normalize_name(name);
  return key == normalize_name(m.id) || key == normalize_name(m.name) ||
         (!m.hf_id.empty() && key == normalize_name(m.hf_id));
}

}  // namespace

nlohmann::json estimate_json(const nlohmann::json& input, const Catalog& catalog) {
  ScenarioGiven given;
  const Scenario parsed = parse_scenario(input, catalog, given);
  const Scenario s = resolved(parsed, catalog);
  Estimate e = estimate(s, catalog);
  const RuleOfThumb rot = rule_of_thumb(s);
  std::string method = "analytic";
  if (input.is_object())
    if (auto v = read_enum(input, "method", "", {"analytic", "rule-of-thumb"})) method = *v;
  if (method == "rule-of-thumb") apply_rule_of_thumb(rot, e);
  // What to change so it fits: each change re-runs the estimator.
  std::optional<std::vector<Change>> changes;
  if (e.memory.fits && !*e.memory.fits && method == "analytic")
    changes = changes_to_fit(parsed, given, s, e, catalog);
  const FitVerdict verdict = apply_fit_verdict(s, e);
  nlohmann::json j = to_json(e);
  j["method"] = method;
  j["scenario"] = to_json(s);
  // An alias or a partial name is never swapped in silently: the answer says which catalog entry
  // it became (meta-llama/Meta-Llama-3-70B is estimated as llama-3.1-70b).
  if (s.model_origin == "catalog" && input.is_object() && input.contains("model") &&
      input["model"].is_string() && !names_entry(input["model"].get<std::string>(), s.model)) {
    const std::string asked = input["model"].get<std::string>();
    j["scenario"]["model_requested"] = asked;
    j["warnings"].push_back("model '" + asked + "' is not a catalog entry: estimated as " +
                            s.model.id + " (" + s.model.name +
                            "), the entry it resolves to; paste its config.json for this exact "
                            "model");
  }
  j["rule_of_thumb"] = rule_of_thumb_json(rot);
  if (changes) j["changes"] = to_json(*changes);
  render_fit_verdict(verdict, j);
  return j;
}

nlohmann::json recommend_json(const nlohmann::json& request, const Catalog& catalog) {
  return to_json(recommend(request, catalog));
}

nlohmann::json error_json(const std::string& code, const std::string& message) {
  return {{"error", {{"code", code}, {"message", message}}}};
}

nlohmann::json gpus_json(const Catalog& catalog) {
  nlohmann::json out = nlohmann::json::array();
  for (const Gpu& g : catalog.gpus()) {
    nlohmann::json row = nlohmann::json::object();
    for (const auto& [key, value] : g.fields) {
      if (value == "NA" || value.empty()) {
        row[key] = nullptr;
        continue;
      }
      char* end = nullptr;
      const double number = std::strtod(value.c_str(), &end);
      const bool numeric = end && *end == '\0' && key != "id" && key != "name";
      row[key] = numeric ? nlohmann::json(number) : nlohmann::json(value);
    }
    out.push_back(std::move(row));
  }
  return out;
}

nlohmann::json models_json(const Catalog& catalog) {
  nlohmann::json out = nlohmann::json::array();
  for (const Model& m : catalog.models()) {
    const ParamCounts c = count_params(m);
    nlohmann::json row = {{"id", m.id},
                          {"name", m.name},
                          {"hf_id", m.hf_id},
                          {"family", m.family},
                          {"kind", m.kind},
                          {"params", c.total},
                          {"active_params", c.active},
                          {"params_exact", c.computed}};
    if (!m.is_cv()) {
      row["architecture"] = {{"layers", m.num_layers},
                             {"hidden_size", m.hidden_size},
                             {"intermediate_size", m.intermediate_size},
                             {"heads", m.num_heads},
                             {"kv_heads", m.num_kv_heads},
                             {"head_dim", m.head_dim},
                             {"vocab_size", m.vocab_size},
                             {"attention", m.attention_type},
                             {"experts", m.num_experts},
                             {"experts_per_token", m.experts_per_token},
                             {"sliding_window", m.sliding_window},
                             {"window_layers", m.num_window_layers},
                             {"max_position_embeddings", m.max_position_embeddings}};
    } else {
      row["forward_gflops"] = m.cv_gflops_per_image;
      row["resolution"] = m.cv_resolution;
    }
    row["source"] = m.source;
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace gpusizer
