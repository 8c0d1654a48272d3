// The contract's Recommendation JSON: options (each with its full Estimate), rejected GPUs, and
// the changes that would make the closest miss fit.
#include <array>
#include <cmath>
#include <span>
#include <string_view>
#include <type_traits>

#include "advisor/explain.h"
#include "advisor/fleet_fit.h"
#include "gpusizer/advisor.h"
#include "gpusizer/json/advisor.h"
#include "gpusizer/json/scenario.h"
#include "gpusizer/saturate.h"
#include "gpusizer/scenario_edit.h"
#include "report/describe.h"
#include "report/estimate_json.h"
#include "report/json_figure.h"
#include "report/json_text_parts.h"
#include "report/json_writer.h"
#include "report/raw_writer.h"

namespace gpusizer {

namespace {

// A figure of the recommendation as the estimates inside it are written (report/json_figure.h),
// so that an option's price equals its estimate's.
nlohmann::json figure(double v) {
  return json_figure_value(v);
}
nlohmann::json figure(const std::optional<double>& v) {
  return v ? figure(*v) : nlohmann::json(nullptr);
}

// The option's fleet keys: replicas, nodes, instance (cloud), fleet_usd_per_hour, racks (with
// an explicit rack budget, or whenever the estimate counted them), binding.

void add_fleet_keys(nlohmann::json& j, const Option& o, const Constraints& c) {
  const Scenario& s = o.scenario;
  const Estimate& e = o.estimate;
  // Serving: independent replicas are parallel.dp; training runs one model copy across the
  // fleet, its data-parallel groups being one job.
  j["replicas"] = s.task == Task::kInference ? s.parallel.dp : 1;
  const explain::Price price = explain::price_of(o, c);
  const bool cloud =
      e.ownership && e.ownership->cloud && price.source == explain::Price::Source::kCloud;
  if (cloud) {
    const CloudCost& k = *e.ownership->cloud;
    j["nodes"] = k.count;
    j["instance"] = {{"name", k.instance},
                     {"count", k.count},
                     {"usd_per_hour", figure(k.instance_usd_per_hour)},
                     {"provider", k.provider},
                     {"date", k.price_date}};
    if (k.currency != "USD") {
      j["instance"]["currency"] = k.currency;
      j["instance"]["listed_price_per_hour"] = figure(k.listed_price_per_hour);
    }
  } else if (e.power.nodes) {
    j["nodes"] = *e.power.nodes;
  }
  if (e.ownership && e.ownership->on_prem && !e.ownership->on_prem->server.empty())
    j["server"] = e.ownership->on_prem->server;
  j["fleet_usd_per_hour"] = figure(price.per_hour);
  if (e.power.racks) j["racks"] = *e.power.racks;
  j["binding"] = o.binding;
}

// A change's words: its name (the parts joined by " + ") and its price (by "; "), and its levers'
// names; `plain`: all of them known to need no escaping.
struct ChangeWords {
  std::span<const std::string_view> name, cost, levers;
  bool plain = false;
  size_t bytes = 0;  ///< with `plain`: at least the text of the three with their separators
};

// The change's name and price, each part tested (or escaped) as it is written.
template <typename W>
void describe_words_tested(W& w, const ChangeWords& words) {
  if (words.name.size() == 1 && words.cost.size() == 1) {  // a key and its string in one call
    w.literal_string("change", words.name[0]);
    w.literal_string("cost", words.cost[0]);
  } else {
    w.key("change");
    w.joined(words.name, " + ");
    w.key("cost");
    w.joined(words.cost, "; ");
  }
}

// The change's name and price: copied without the escape test where its words are known plain
// (the text writer's plain paths; the other writers test or escape each). The raw writer is
// given plain words only (describe_change_at_once).
template <typename W>
void describe_words(W& w, const ChangeWords& words) {
  if constexpr (std::is_same_v<W, TextWriter> || std::is_same_v<W, RawWriter>) {
    if (std::is_same_v<W, RawWriter> || words.plain) {
      if (words.name.size() == 1 && words.cost.size() == 1) {
        w.literal_plain_string("change", words.name[0]);
        w.literal_plain_string("cost", words.cost[0]);
      } else {
        w.key("change");
        w.joined_plain(words.name, " + ");
        w.key("cost");
        w.joined_plain(words.cost, "; ");
      }
      return;
    }
  }
  if constexpr (!std::is_same_v<W, RawWriter>) describe_words_tested(w, words);
}

// One change, in either form: its words, its merge patch (written here, when the answer is
// rendered) and its figures.
template <typename W>
void describe_change(W& w, const ChangeWords& words, const ScenarioEdit& edit,
                     const ChangeFigures& figures);

// The most text a change writes besides its words and its edit's strings: its and its patch's
// keys and punctuation (~420 bytes with every patch field set), 20 bytes of room for each of
// their ~17 integers (json_integer_text's words), 64 for the speed factor (write_json_figure's)
// and ~100 for the patch's other strings ("selective", the enums' names).
constexpr size_t kChangeFixedRoom = 1280;

// The text writer's change, plain words: the whole change written by a RawWriter into room
// reserved once for its bound (issue 18: ~20 tokens, each a room check and an update of the
// buffer's end through the text writer). False when the bound is past the buffer or an edit's
// string needs escaping: nothing is kept, and the caller writes the change through `w`.
bool describe_change_at_once(TextWriter& w, const ChangeWords& words, const ScenarioEdit& edit,
                             const ChangeFigures& figures) {
  // The edit's three strings each by name: a loop over their list was ~20 instructions a change.
  const auto quoted_size = [](const std::optional<std::string>& id) {
    return id ? id->size() + 2 : 0;
  };
  const size_t n = kChangeFixedRoom + words.bytes + quoted_size(edit.gpu) +
                   quoted_size(edit.kv_cache) + quoted_size(edit.weights);
  return write_at_once(w, n, [&](RawWriter& raw) { describe_change(raw, words, edit, figures); });
}

template <typename W>
void describe_change(W& w, const ChangeWords& words, const ScenarioEdit& edit,
                     const ChangeFigures& figures) {
  if constexpr (std::is_same_v<W, TextWriter>) {
    if (words.plain && describe_change_at_once(w, words, edit, figures)) return;
  }
  w.begin_object();
  describe_words(w, words);
  w.field("fits", figures.fits);
  w.key("levers");
  w.begin_array();
  for (std::string_view lever : words.levers) {
    if constexpr (std::is_same_v<W, TextWriter> || std::is_same_v<W, RawWriter>) {
      if (words.plain) {
        w.plain_string(lever);
        continue;
      }
    }
    w.string(lever);
  }
  w.end_array();
  w.field("needed_bytes", saturating_int64(figures.needed_bytes));
  w.key("patch");
  describe_patch(w, edit);
  w.field("quality_class", figures.quality_class);
  w.field("saves_bytes", saturating_int64(figures.saves_bytes));
  w.field("speed_factor", figures.speed_factor);
  w.end_object();
}

// Whether a lever's name and price need no escaping: known for a search's levers (made of
// PlainLiteral texts and integers, ChangeLever::plain), else tested when a change first uses the
// lever (issue 18: each was tested at each of its copies, the name twice a change and the lever
// in several changes: ~10 texts a line that has changes, ~60 instructions each).
class PlainLevers {
 public:
  explicit PlainLevers(const FoundChanges& found) : found_(found) {}
  bool plain(const FoundChange& c) {
    for (size_t i = 0; i < c.count; ++i) {
      uint8_t& known = known_[c.levers[i]];
      if (known == kUnknown) {
        const ChangeLever& lever = found_.lever(c, i);
        known = lever.plain || (json_plain(lever.name.view()) && json_plain(lever.cost)) ? kPlain
                                                                                         : kEscaped;
      }
      if (known != kPlain) return false;
    }
    return true;
  }

 private:
  static constexpr uint8_t kUnknown = 0, kPlain = 1, kEscaped = 2;
  const FoundChanges& found_;
  std::array<uint8_t, 256> known_{};  // by lever index (a uint8_t)
};

}  // namespace

template <typename W>
void describe_changes(W& w, const std::vector<Change>& changes) {
  w.begin_array();
  std::vector<std::string_view> levers;
  for (const Change& c : changes) {
    const std::string_view name = c.change, cost = c.cost;
    levers.assign(c.levers.begin(), c.levers.end());
    describe_change(w, {{&name, 1}, {&cost, 1}, levers}, c.edit,
                    {c.needed_bytes, c.saves_bytes, c.fits, c.speed_factor, c.quality_class});
  }
  w.end_array();
}

// A single lever's edit is written as it is; a combination's levers' edits are merged first.
template <typename W>
void describe_changes(W& w, const FoundChanges& found) {
  w.begin_array();
  PlainLevers levers_known(found);
  for (const FoundChange& c : found.changes) {
    std::array<std::string_view, kMaxChangeLevers> names, costs;
    size_t bytes = 0;  // each name twice (the change's and the lever's) and the price, quoted
    for (size_t i = 0; i < c.count; ++i) {
      names[i] = found.lever(c, i).name;
      costs[i] = found.lever(c, i).cost;
      bytes += 2 * names[i].size() + costs[i].size() + 8;
    }
    const std::span<const std::string_view> levers(names.data(), c.count);
    const bool plain = std::is_same_v<W, TextWriter> && levers_known.plain(c);
    const ChangeWords words{levers, {costs.data(), c.count}, levers, plain, bytes};
    if (c.count == 1)
      describe_change(w, words, found.lever(c, 0).edit, c);
    else
      describe_change(w, words, found.edit(c), c);
  }
  w.end_array();
}

nlohmann::json to_json(const std::vector<Change>& changes) {
  TreeWriter w;
  describe_changes(w, changes);
  return w.take();
}

nlohmann::json to_json(const Recommendation& r) {
  nlohmann::json options = nlohmann::json::array();
  for (const Option& o : r.options) {
    const Scenario& s = o.scenario;
    nlohmann::json parallel = {
        {"tp", s.parallel.tp}, {"pp", s.parallel.pp}, {"dp", s.parallel.dp}, {"ep", s.parallel.ep}};
    nlohmann::json training;
    if (is_training(s.task)) {
      parallel["zero_stage"] = s.training.zero_stage;
      parallel["gradient_checkpointing"] = s.training.recompute == Recompute::kFull;
      // The full layout (contract v2, "Training layouts").
      parallel["cp"] = s.parallel.cp;
      parallel["pp_interleave"] = s.parallel.pp_interleave;
      parallel["sequence_parallel"] = s.parallel.sequence_parallel;
      const TrainingOptions& t = s.training;
      training = {{"batch", s.batch},
                  {"grad_accum", t.grad_accum},
                  {"global_batch", t.global_batch},
                  {"zero_stage", t.zero_stage},
                  {"gradient_checkpointing", t.recompute == Recompute::kFull        ? "full"
                                             : t.recompute == Recompute::kSelective ? "selective"
                                                                                    : "none"},
                  {"offload", to_string(t.offload)},
                  {"flash_attention", t.flash_attention},
                  {"mixed_precision", to_string(t.mixed_precision)}};
    }
    nlohmann::json e = to_json(o.estimate);
    e["scenario"] = to_json(s);
    nlohmann::json option = {
        {"gpu", s.gpu->id},
        {"gpu_name", s.gpu->name},
        {"gpu_count", s.gpu_count},
        {"weights", s.weights->id},
        {"kv_cache", s.kv_cache->id},
        {"parallel", parallel},
        {"fits", true},
        {"headroom", figure(o.headroom)},
        {"estimate", std::move(e)},
        {"score", figure(o.score)},
        {"objective_value",
         std::isfinite(o.objective_value) ? figure(o.objective_value) : nlohmann::json(nullptr)},
        {"objective_basis", o.objective_basis},
        {"reasons", o.reasons},
        {"warnings", o.warnings}};
    // v2: replicas, nodes, instance, fleet_usd_per_hour, racks, binding.
    add_fleet_keys(option, o, r.constraints);
    if (!training.is_null()) option["training"] = std::move(training);
    if (o.traffic_plan) {  // serving with traffic (docs/contract.md v2, options of recommend)
      const TrafficPlan& t = *o.traffic_plan;
      nlohmann::json& j = option;
      j["replicas"] = t.replicas;  // the traffic decides the replicas and what binds
      j["binding"] = t.binding;
      if (!j.contains("fleet_usd_per_hour")) j["fleet_usd_per_hour"] = figure(t.fleet_usd_per_hour);
      j["usd_per_million_requests"] = figure(t.usd_per_million_requests);
      j["usd_per_million_output_tokens"] = figure(t.usd_per_million_output_tokens);
      j["requests_per_s_per_replica"] = figure(t.rate_per_replica);
      const nlohmann::json& perf = j["estimate"]["performance"];
      for (const char* key : {"load_ttft_ms", "load_tpot_ms", "load_utilization", "slo_met"})
        if (perf.contains(key)) j[key] = perf[key];
    }
    options.push_back(std::move(option));
  }
  nlohmann::json rejected = nlohmann::json::array();
  for (const Rejection& x : r.rejected) rejected.push_back({{"gpu", x.gpu}, {"why", x.why}});
  const Constraints& c = r.constraints;
  nlohmann::json j = {{"options", std::move(options)},
                      {"rejected", std::move(rejected)},
                      {"changes", to_json(r.changes)},
                      {"objective", c.objective == Objective::kCost    ? "cost"
                                    : c.objective == Objective::kSpeed ? "speed"
                                                                       : "power"},
                      {"headroom", c.headroom}};
  if (!r.changes_for.empty()) j["changes_for"] = r.changes_for;
  if (!r.notes.empty()) j["notes"] = r.notes;
  return j;
}

// For both backends (report/describe.h).
template void describe_changes(TreeWriter&, const std::vector<Change>&);
template void describe_changes(TreeWriter&, const FoundChanges&);
template void describe_changes(TextWriter&, const std::vector<Change>&);
template void describe_changes(TextWriter&, const FoundChanges&);

}  // namespace gpusizer
