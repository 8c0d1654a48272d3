// The JSON facade shared by the CLI and the HTTP server.
#include "gpusizer/json/api.h"

#include <cmath>

#include "advisor/changes.h"
#include "core/json_fields.h"
#include "core/plain_literal.h"
#include "estimate/layout.h"
#include "estimate/priced.h"
#include "estimate/rule_of_thumb.h"
#include "gpusizer/error.h"
#include "gpusizer/estimate.h"
#include "gpusizer/fit_verdict.h"
#include "gpusizer/json/advisor.h"
#include "gpusizer/json/lang.h"
#include "gpusizer/json/scenario.h"
#include "gpusizer/names.h"
#include "gpusizer/saturate.h"
#include "report/describe.h"
#include "report/estimate_json.h"
#include "report/json_writer.h"
#include "report/raw_writer.h"
#include "scenario/scenario_fields.h"
#include "speed/training_speed.h"

namespace gpusizer {
namespace {

// Known plain when compiled (PlainLiteral): written without the escape test.
constexpr std::string_view kRuleOfThumbBasis =
    PlainLiteral(
        "the articles' rule of thumb: params x bytes; activations and KV 10% of the "
        "weights; 2 GB other; LoRA trains 1%; Adam 8 B and gradients 2 B per trainable "
        "parameter (decimal GB)")
        .view();

// The "rule_of_thumb" object. The text writer's is written at once (write_at_once, issue 18:
// eight fields, each a room check, and the basis tested for escapes every line); its bound: ~130
// bytes of keys and punctuation, 20 for each of the seven integers, the basis.
template <typename W>
void describe_rule_of_thumb(W& w, const RuleOfThumb& r) {
  if constexpr (std::is_same_v<W, TextWriter>) {
    if (write_at_once(w, 320 + kRuleOfThumbBasis.size(),
                      [&r](RawWriter& raw) { describe_rule_of_thumb(raw, r); }))
      return;
  }
  auto b = [](double v) { return saturating_int64(v); };
  w.begin_object();
  w.field("activations_bytes", b(r.activations));
  if constexpr (std::is_same_v<W, RawWriter>)
    w.literal_plain_string("basis", kRuleOfThumbBasis);
  else
    w.field("basis", kRuleOfThumbBasis);
  w.field("gradients_bytes", b(r.gradients));
  w.field("kv_cache_bytes", b(r.kv_cache));
  w.field("optimizer_bytes", b(r.optimizer));
  w.field("overhead_bytes", b(r.other));
  w.field("total_bytes", b(r.total()));
  w.field("weights_bytes", b(r.weights));
  w.end_object();
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
  e.basis.set("total_bytes", kRuleOfThumbBasis);
  e.warnings.emplace_back("method rule-of-thumb: the articles' arithmetic, not the analytic model");
}

// Whether `name` is the entry's own id, name or Hugging Face id rather than an alias or a partial
// name that resolved to it.
bool names_entry(std::string_view name, const Model& m) {
  if (name == m.id) return true;  // the usual spelling, without normalizing both
  const std::string key = normalize_name(name);
  return key == normalize_name(m.id) || key == normalize_name(m.name) ||
         (!m.hf_id.empty() && key == normalize_name(m.hf_id));
}

// The parsed scenario's model counted (count_model), then the scenario resolved in place by those
// counts: the layout rule counted the model again (issue 18: ~380 instructions a line that takes
// it), and the counts read the model, the task and the training options, which the resolve does
// not change. "basis" is read after the resolve, so a line with a bad scenario and a bad "basis"
// still names the scenario's field first.
ModelCounts resolved_counts(Scenario& s, const ScenarioFields& input, const Catalog& catalog,
                            bool& shows_basis) {
  ModelCounts counts(*s.model);
  count_training(s, counts);
  resolve_in_place(s, catalog, counts);
  // A batch that reads the figures alone can leave the basis out ("basis": false): its texts are
  // most of the formatting an estimate does and half of the answer's bytes (issue 18).
  if (auto v = read_bool_value(input.at[key::basis], "basis", "")) shows_basis = *v;
  return counts;
}

// The ownership's texts (basis lines, break-even verdict), the step's split by part and the
// figures' bands are written only with the cost and the performance, which an answer leaves out
// for a setup that does not fit (FitVerdict::keeps_figures): made only when the memory fits
// (issue 18). That fit is the verdict's unless the line names a method ("rule-of-thumb" decides
// the fit by its own arithmetic): then they are always made.
UnfitExtras unfit_extras(const ScenarioFields& input) {
  return input.at[key::method] ? UnfitExtras::kMade : UnfitExtras::kSkipped;
}

const std::vector<std::string> kMethods = {"analytic", "rule-of-thumb"};
constexpr size_t kAnalytic = 0, kRuleOfThumb = 1;  // kMethods' indices

// One estimate's answer: everything the contract's Estimate JSON is written from.
struct Answer {
  /// The scenario parsed, resolved and estimated in place, not moved in (issue 18: an Estimate
  /// made empty, assigned from the estimate's and the temporary destroyed were ~900
  /// instructions a line).
  Answer(const ScenarioFields& input, const Catalog& catalog, ScenarioGiven& given)
      : scenario(parse_scenario(input, catalog, given)),
        parsed_layout(layout_fields(scenario)),
        counts(resolved_counts(scenario, input, catalog, shows_basis)),
        estimate(gpusizer::estimate(scenario, catalog,
                                    shows_basis ? Detail::kFull : Detail::kNoBasis, counts,
                                    step_memo, unfit_extras(input))) {}

  Scenario scenario;
  LayoutFields parsed_layout;  ///< the layout fields as parsed, before the resolve
  bool shows_basis = true;     ///< "basis": false leaves the basis texts out (not even made)
  /// The estimate's counts and training-step figures, which the change search goes on with
  /// (find_changes_in_place; issue 18).
  ModelCounts counts;
  ModuleSumsMemo step_memo;
  Estimate estimate;
  RuleOfThumb rule_of_thumb;
  /// kMethods' index: no string made, copied and compared a line (issue 18).
  size_t method = kAnalytic;
  std::optional<std::string> model_requested;
  std::optional<FoundChanges> changes;  ///< in the search's own form: written, never copied
  FitVerdict verdict;
};

// The answer from the scenario's members, read once (scenario/scenario_fields.h): from its tree
// or from its text (ScenarioText). The answer's own fields ("basis", "method", "changes") are read
// from the same slots.
Answer answer(const ScenarioFields& input, const Catalog& catalog) {
  ScenarioGiven given;
  // The scenario is parsed into the answer and resolved there (issue 18: a copy and a
  // destruction of a Scenario are 6,000 instructions, a move ~1,000); the changes read it as the
  // resolved one with the layout fields it had before (LayoutFields).
  Answer a(input, catalog, given);
  const Scenario& s = a.scenario;
  Estimate& e = a.estimate;
  a.rule_of_thumb = rule_of_thumb(s, a.counts.params);
  if (auto v = read_enum_index(input.at[key::method], "method", "", kMethods)) a.method = *v;
  if (a.method == kRuleOfThumb) apply_rule_of_thumb(a.rule_of_thumb, e);
  // What to change so it fits: each change re-runs the estimator, so a sweep over a grid of
  // scenarios can turn it off ("changes": false, about half of a non-fitting line's cost).
  bool want_changes = true;
  if (auto v = read_bool_value(input.at[key::changes], "changes", "")) want_changes = *v;
  if (want_changes && e.memory.fits && !*e.memory.fits && a.method == kAnalytic)
    a.changes = find_changes_in_place(a.scenario, a.parsed_layout, given, e, catalog, &a.counts,
                                      a.step_memo);
  a.verdict = apply_fit_verdict(s, e);
  // An alias or a partial name is never swapped in silently: the answer says which catalog entry
  // it became (meta-llama/Meta-Llama-3-70B is estimated as llama-3.1-70b).
  const nlohmann::json* model = input.at[key::model];
  if (s.model_origin == "catalog" && model && model->is_string() &&
      !names_entry(model->get_ref<const std::string&>(), *s.model)) {
    const std::string& asked = model->get_ref<const std::string&>();
    a.model_requested = asked;
    e.warnings.emplace_back("model '" + asked + "' is not a catalog entry: estimated as " +
                            s.model->id + " (" + s.model->name +
                            "), the entry it resolves to; paste its config.json for this exact "
                            "model");
  }
  return a;
}

// The answer's "model". The text writer's is written at once (write_at_once, issue 18: four
// fields, each a room check; its bound: ~60 bytes of keys and punctuation, 20 for each integer,
// the id), and a model whose parameters are all active (a dense one) copies the text of its
// active parameters for its parameters.
template <typename W>
void describe_answer_model(W& w, const Estimate& e, const std::optional<int64_t>& max_context) {
  if constexpr (std::is_same_v<W, TextWriter>) {
    if (write_at_once(w, 128 + e.model_id.size(),
                      [&](RawWriter& raw) { describe_answer_model(raw, e, max_context); }))
      return;
  }
  w.begin_object();
  if constexpr (std::is_same_v<W, RawWriter>) {
    w.literal_key("active_params");
    char* active = w.end();
    w.integer(e.active_params);
    const std::string_view active_text(active, static_cast<size_t>(w.end() - 1 - active));
    w.field("id", e.model_id);
    w.field("max_context", max_context);
    if (e.params == e.active_params)
      w.literal_text("params", active_text);
    else
      w.field("params", e.params);
  } else {
    w.field("active_params", e.active_params);
    w.field("id", e.model_id);
    w.field("max_context", max_context);
    w.field("params", e.params);
  }
  w.end_object();
}

// docs/contract.md, v2: the Estimate, the method, the resolved scenario, the rule of thumb, the
// changes and the verdict ("fits" beside memory.fits; without the figures, no "performance" or
// "cost"; the model's maximum context; the context warning repeated as "context_warning").
template <typename W>
void describe_answer(W& w, const Answer& a) {
  const Estimate& e = a.estimate;
  const FitVerdict& v = a.verdict;
  w.begin_object();
  w.key("basis");  // empty with "basis": false: the key is always there
  describe_texts(w, e.basis);
  if (a.changes) {
    w.key("changes");
    describe_changes(w, *a.changes);
  }
  w.field("context_warning", v.context_warning);
  if (v.keeps_figures) {
    w.key("cost");
    describe_cost(w, e);
  }
  w.field("fits", v.fits);
  w.key("memory");
  describe_memory(w, e.memory);
  w.field("method", kMethods[a.method]);
  w.key("model");
  describe_answer_model(w, e, v.max_context);
  if (e.performance && v.keeps_figures) {
    w.key("performance");
    describe_performance(w, *e.performance);
  }
  w.key("power");
  describe_power(w, e.power);
  w.key("rule_of_thumb");
  describe_rule_of_thumb(w, a.rule_of_thumb);
  w.key("scenario");
  describe_scenario(w, a.scenario, a.model_requested ? &*a.model_requested : nullptr);
  w.strings("warnings", e.warnings);
  w.end_object();
}

}  // namespace

nlohmann::json estimate_json(const nlohmann::json& input, const Catalog& catalog) {
  TreeWriter w;
  describe_answer(w, answer(scenario_fields(input), catalog));
  return w.take();
}

namespace {

void append_answer(std::string& out, const ScenarioFields& input, const Catalog& catalog) {
  Answer a = answer(input, catalog);
  out.reserve(out.size() + 8192);  // an answer is 2-8 kB: grown once, not doubled from empty
  {
    TextWriter w(out);
    describe_answer(w, a);
  }
  if (a.changes) recycle(std::move(*a.changes));  // the levers' storage kept for the next line
}

}  // namespace

void append_estimate_json(std::string& out, const nlohmann::json& input, const Catalog& catalog) {
  append_answer(out, scenario_fields(input), catalog);
}

void append_estimate_json(std::string& out, const ScenarioText& input, const Catalog& catalog) {
  append_answer(out, text_fields(input), catalog);
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
