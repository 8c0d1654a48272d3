#include "advisor/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "gpusizer/units.h"

namespace gpusizer::explain {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::optional<double> throughput(const Option& o) {
  if (!o.estimate.performance) return std::nullopt;
  const PerformanceEstimate& p = *o.estimate.performance;
  const auto v = is_training(o.scenario.task) ? p.train_tokens_per_s : p.max_output_tokens_per_s;
  if (v && *v > 0) return v;
  return std::nullopt;
}

std::string unit_of(const Scenario& s) {
  return s.task == Task::kCvTrain ? "images"
         : is_training(s.task)    ? "training tokens"
                                  : "output tokens";
}

}  // namespace

Price price_of(const Option& o, const Constraints& c, bool with_label) {
  Price p;
  if (!o.estimate.ownership) return p;
  const Ownership& w = *o.estimate.ownership;
  const bool use_cloud =
      c.deployment == "cloud" || (c.deployment.empty() && w.cloud &&
                                  (!w.on_prem || w.cloud->usd_per_hour <= w.on_prem->usd_per_hour));
  if (use_cloud && w.cloud) {
    p.per_hour = w.cloud->usd_per_hour;
    p.per_million_tokens = w.cloud->usd_per_million_tokens;
    p.source = Price::Source::kCloud;
    if (with_label)
      p.label =
          fmt::format("cloud, {} x {} ({})", w.cloud->count, w.cloud->instance, w.cloud->provider);
  } else if (c.deployment != "cloud" && w.on_prem) {
    p.per_hour = w.on_prem->usd_per_hour;
    p.per_million_tokens = w.on_prem->usd_per_million_tokens;
    p.source = Price::Source::kOnPrem;
    if (with_label)
      p.label = fmt::format("on-prem, amortized over {:g} years at {:.0f}% utilization",
                            w.assumptions.amortization_years, w.assumptions.utilization * 100);
  }
  if (w.on_prem) p.capex = w.on_prem->capex_usd;
  return p;
}

Unmet unmet(const Option& o, const Constraints& c) {
  const auto tps = throughput(o);
  const auto& perf = o.estimate.performance;
  if (c.min_tokens_per_s && (!tps || *tps < *c.min_tokens_per_s))
    return {Constraint::kMinTokensPerS, !tps, false, tps.value_or(0), *c.min_tokens_per_s};
  if (c.max_ttft_ms && o.scenario.task == Task::kInference) {
    const bool known = perf && perf->ttft_ms;
    if (!known || *perf->ttft_ms > *c.max_ttft_ms)
      return {Constraint::kMaxTtft, !known, false, known ? *perf->ttft_ms : 0, *c.max_ttft_ms};
  }
  if (c.max_days && is_training(o.scenario.task)) {
    const bool known = perf && perf->time_to_train_s;
    const double days = known ? *perf->time_to_train_s / 86400.0 : 0;
    if (!known || days > *c.max_days)
      return {Constraint::kMaxDays, !known, false, days, *c.max_days};
  }
  if (c.budget_usd) {
    const Price p = price_of(o, c, false);  // the figures; Unmet names no label
    const bool purchase = c.deployment == "on_prem";
    const std::optional<double> price = purchase ? p.capex : p.per_hour;
    if (!price || *price > *c.budget_usd)
      return {Constraint::kBudget, !price, purchase, price.value_or(0), *c.budget_usd};
  }
  return {};
}

std::string Unmet::text() const {
  switch (constraint) {
    case Constraint::kNone:
      return "";
    case Constraint::kMinTokensPerS:
      return unknown ? "no speed estimate to check min_tokens_per_s"
                     : fmt::format("{:.0f} tokens/s < min_tokens_per_s {:g}", value, limit);
    case Constraint::kMaxTtft:
      return unknown ? "no TTFT estimate to check max_ttft_ms"
                     : fmt::format("TTFT {:.0f} ms > max_ttft_ms {:g}", value, limit);
    case Constraint::kMaxDays:
      return unknown ? "no training time to check max_days (give training.tokens or epochs)"
                     : fmt::format("training takes {:.1f} days > max_days {:g}", value, limit);
    case Constraint::kBudget:
      if (purchase)
        return unknown ? "no purchase price to check the budget"
                       : fmt::format("purchase ${:.0f} over the budget of ${:.0f}", value, limit);
      return unknown ? "no price to check the budget"
                     : fmt::format("${:.2f}/hour over the budget of ${:.2f}/hour", value, limit);
  }
  return "";
}

std::string unmet_constraint(const Option& o, const Constraints& c) {
  return unmet(o, c).text();
}

std::string binding_of(Constraint constraint) {
  switch (constraint) {
    case Constraint::kMinTokensPerS:
      return "throughput";
    case Constraint::kMaxTtft:
      return "slo";
    case Constraint::kMaxDays:
      return "time";
    case Constraint::kBudget:
      return "budget";
    case Constraint::kNone:
      break;
  }
  return "none";
}

double speed_shortfall(const Option& o, const Constraints& c) {
  double f = 1.0;
  const auto tps = throughput(o);
  if (c.min_tokens_per_s && tps && *tps > 0) f = std::max(f, *c.min_tokens_per_s / *tps);
  const auto& perf = o.estimate.performance;
  if (c.max_days && perf && perf->time_to_train_s)
    f = std::max(f, *perf->time_to_train_s / 86400.0 / *c.max_days);
  return f;
}

namespace {

// What the option does: decode speed and sequences in memory (serving), step time and days
// (training).
void add_speed_reasons(Option& o, const Gpu& g, std::optional<double> tps) {
  const Scenario& s = o.scenario;
  const Estimate& e = o.estimate;
  if (!e.performance) return;
  const PerformanceEstimate& p = *e.performance;
  if (s.task == Task::kInference) {
    const bool bw = p.decode_bandwidth_bound.value_or(false);
    if (p.tpot_ms)
      o.reasons.push_back(fmt::format("decode {:.1f} ms per token, {} by {:.2f} TB/s bandwidth",
                                      *p.tpot_ms, bw ? "bound" : "compute-bound, not limited",
                                      g.memory_bandwidth_gbps.value_or(0) / 1000.0));
    if (tps && e.memory.max_batch)
      o.reasons.push_back(
          fmt::format("{:.0f} output tokens/s with {} sequences of {} tokens "
                      "in memory",
                      *tps, *e.memory.max_batch, s.seq_len));
  } else if (p.step_time_s) {
    o.reasons.push_back(fmt::format("step {:.2f} s, {:.0f} {}/s{}", *p.step_time_s, tps.value_or(0),
                                    unit_of(s),
                                    p.mfu ? fmt::format(", MFU {:.0f}%", *p.mfu * 100) : ""));
    if (p.time_to_train_s)
      o.reasons.push_back(fmt::format("trains in {:.1f} days", *p.time_to_train_s / 86400.0));
  }
}

// What it costs and draws: the price, the nodes and racks with their power.
void add_price_and_power_reasons(Option& o, const Price& price) {
  const Scenario& s = o.scenario;
  const PowerEstimate& w = o.estimate.power;
  if (price.per_hour)
    o.reasons.push_back(fmt::format(
        "${:.2f}/hour ({}){}", *price.per_hour, price.label,
        price.per_million_tokens
            ? fmt::format(", ${:.3f} per million {}", *price.per_million_tokens, unit_of(s))
            : ""));
  if (w.node_watts)
    o.reasons.push_back(fmt::format(
        "{:.1f} kW per node with margin, {} node{} of {} GPU{}{}", *w.node_watts / 1000.0,
        w.nodes.value_or(1), w.nodes.value_or(1) > 1 ? "s" : "",
        w.gpus_per_node.value_or(s.gpu_count), w.gpus_per_node.value_or(1) > 1 ? "s" : "",
        w.racks ? fmt::format(", {} rack{} of {:.1f} kW", *w.racks, *w.racks > 1 ? "s" : "",
                              w.rack_budget_watts.value_or(0) / 1000.0)
                : ""));
}

// Objective value: lower is better.
void set_objective(Option& o, const Constraints& c, const Price& price, std::optional<double> tps) {
  const Scenario& s = o.scenario;
  const Estimate& e = o.estimate;
  switch (c.objective) {
    case Objective::kCost:
      if (price.per_million_tokens) {
        o.objective_value = *price.per_million_tokens;
        o.objective_basis = "USD per million " + unit_of(s) + " (" + price.label + ")";
      } else if (price.per_hour) {
        o.objective_value = *price.per_hour;
        o.objective_basis = "USD per hour (" + price.label + ")";
      } else {
        o.objective_value = kInf;
        o.objective_basis = "no price in the catalog";
      }
      break;
    case Objective::kSpeed:
      if (tps) {
        o.objective_value = 1e6 / *tps;
        o.objective_basis = "seconds per million " + unit_of(s);
      } else if (e.performance && e.performance->step_time_s) {
        o.objective_value = *e.performance->step_time_s;
        o.objective_basis = "seconds per step";
      } else {
        o.objective_value = kInf;
        o.objective_basis = "no speed estimate";
      }
      break;
    case Objective::kPower: {
      const double watts =
          e.power.node_peak_watts.value_or(0) * static_cast<double>(e.power.nodes.value_or(1));
      if (tps && watts > 0) {
        o.objective_value = watts / *tps;
        o.objective_basis =
            "joules per " + unit_of(s).substr(0, unit_of(s).size() - 1) + " at peak draw";
      } else {
        o.objective_value = watts > 0 ? watts : kInf;
        o.objective_basis = "peak watts";
      }
      break;
    }
  }
}

// Warnings: the estimator's, then the advisor's.
void add_warnings(Option& o, const Constraints& c, const Gpu& g) {
  for (const auto& w : o.estimate.warnings)
    if (std::find(o.warnings.begin(), o.warnings.end(), w) == o.warnings.end())
      o.warnings.push_back(w);
  if (g.segment == "consumer")
    o.warnings.push_back(
        fmt::format("consumer card: {:.0f} W each with an open-air cooler, {}; "
                    "not for a closed rack or 24x7 production",
                    g.tdp_w.value_or(0), g.has_ecc() ? "ECC costs capacity" : "no ECC"));
  if (c.region == "cn" && g.china_status == "licence")
    o.warnings.emplace_back("China availability: needs a US export licence, case by case (" +
                            g.china_export_note + ")");
  if (o.objective_value == kInf && c.objective == Objective::kCost)
    o.warnings.emplace_back("no price in the catalog: ranked after the priced options");
  if (o.scenario.task == Task::kCvTrain && g.architecture.find("GA102") != std::string::npos &&
      g.segment == "datacenter" && g.tdp_w && *g.tdp_w <= 150)
    o.warnings.push_back(g.name +
                         ": a 150 W inference card (the articles advise against it for "
                         "training from scratch): low bandwidth and power budget");
}

}  // namespace

void describe(Option& o, const Scenario& /*base*/, const Constraints& c, const Catalog& /*catalog*/,
              const std::string& levers) {
  const Gpu& g = *o.scenario.gpu;
  const double cap = *o.estimate.memory.capacity;
  o.reasons.push_back(
      fmt::format("fits with {:.0f}% headroom ({:.1f} of {:.1f} GiB usable per "
                  "GPU)",
                  o.headroom * 100, o.needed_bytes / kGiB, cap / kGiB));
  if (!levers.empty()) o.reasons.emplace_back("levers: " + levers);
  const auto tps = throughput(o);
  add_speed_reasons(o, g, tps);
  const Price price = price_of(o, c);
  add_price_and_power_reasons(o, price);
  if (o.binding != "none") o.reasons.emplace_back("binding: " + o.binding);
  set_objective(o, c, price, tps);
  add_warnings(o, c, g);
}

void set_objective(Option& o, const Constraints& c) {
  set_objective(o, c, price_of(o, c, false), throughput(o));
}

bool ranks_before(const Option& a, const Option& b) {
  if (a.objective_value != b.objective_value) return a.objective_value < b.objective_value;
  if (a.scenario.gpu_count != b.scenario.gpu_count)
    return a.scenario.gpu_count < b.scenario.gpu_count;
  return a.headroom > b.headroom;
}

void rank(std::vector<Option>& options, const Constraints& c) {
  std::stable_sort(options.begin(), options.end(), ranks_before);
  score(options, c);
}

void score(std::vector<Option>& options, const Constraints& c) {
  if (options.empty()) return;
  const double best = options.front().objective_value;
  for (Option& o : options)
    o.score = std::isfinite(o.objective_value) && o.objective_value > 0 && std::isfinite(best)
                  ? 100.0 * best / o.objective_value
                  : 0.0;
  if (std::isfinite(best)) {
    const char* word = c.objective == Objective::kCost    ? "cheapest"
                       : c.objective == Objective::kSpeed ? "fastest"
                                                          : "least energy";
    options.front().reasons.push_back(std::string(word) + " of the options by " +
                                      options.front().objective_basis);
  }
}

void finish_options(Recommendation& r, const std::function<void(Option&, size_t)>& explain_one) {
  const Constraints& c = r.constraints;
  std::vector<size_t> order(r.options.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return ranks_before(r.options[a], r.options[b]); });
  if (static_cast<int64_t>(order.size()) > c.limit) order.resize(static_cast<size_t>(c.limit));
  std::vector<Option> top;
  top.reserve(order.size());
  for (size_t i : order) {
    Option o = std::move(r.options[i]);
    explain_one(o, i);
    top.push_back(std::move(o));
  }
  r.options = std::move(top);
  score(r.options, c);  // already in rank order
}

}  // namespace gpusizer::explain
