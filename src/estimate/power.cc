#include "estimate/power.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <string_view>

#include "core/kept_texts.h"
#include "core/text_append.h"
#include "core/text_format.h"
#include "cost/fleet.h"
#include "gpusizer/units.h"

namespace gpusizer {

double node_peak_watts(const Gpu& gpu, int64_t per_node, const Facility& f,
                       const ServerForm* server, bool facility_host) {
  const double n = static_cast<double>(per_node);
  const bool own = server && !facility_host;
  return gpu.tdp_w.value_or(0) * n + (own ? server->host_watts : f.host_base_watts) +
         (own ? server->host_watts_per_gpu : f.host_watts_per_gpu) * n;
}

namespace {

template <size_t N>
using Figures = std::array<double, N>;

// What a clause is written from: a count, figures (compared as bytes: -0.0 and 0.0 write
// different texts) and a server's name (none: the facility's host).
template <size_t N>
struct ClauseKey {
  int64_t count = 0;
  Figures<N> figures{};
  const std::string* server = nullptr;
};

// A clause's key as kept with its text (core/kept_texts.h; issue 18: these clauses read the
// facility's and the assumptions' figures, which every scenario of a batch without its own
// shares, and the GPU's TDP, count and server: the same few for a batch's GPUs).
template <size_t N>
struct KeptClause {
  int64_t count = 0;
  Figures<N> figures{};
  bool host = true;  // written without a server
  std::string server;
  bool matches(const ClauseKey<N>& key) const {
    return count == key.count &&
           std::memcmp(figures.data(), key.figures.data(), sizeof key.figures) == 0 &&
           host == !key.server && (!key.server || server == *key.server);
  }
  void keep(const ClauseKey<N>& key) {
    count = key.count;
    figures = key.figures;
    host = !key.server;
    if (key.server) server.assign(*key.server);
  }
};

template <size_t N, size_t M>
using KeptClauses = KeptTexts<KeptClause<N>, M>;

// The basis of the power figures and the warnings on the rack budget and dense consumer cards.
void explain_power(const Scenario& s, const Facility& f, const CostAssumptions& money,
                   const NodePlan& plan, int64_t per_node, const PowerEstimate& power,
                   Explanations& e) {
  const double tdp = *s.gpu->tdp_w;
  // Short runs of literals and numbers, appended piece by piece (core/text_append.h, issue 18),
  // each clause kept for the figures it was written from (KeptTexts): a batch's few GPUs,
  // counts and servers, and one facility.
  constexpr size_t kNodes = 8;
  thread_local KeptClauses<1, kNodes> gpu_clauses;
  thread_local KeptClauses<4, kNodes> node_clauses;
  thread_local KeptClauses<1, 1> ups_clause;
  thread_local KeptClauses<2, 1> energy_clause;
  e.basis.set_with("gpu_watts", [&](std::string& out) {
    gpu_clauses.append(out, ClauseKey<1>{s.gpu_count, {tdp}}, [&](std::string& text) {
      append_text(text, s.gpu_count, " x ", General{tdp}, " W board power (TDP)");
    });
  });
  // No server (the facility's host) is written as such; a server by its name.
  const std::string* server = power.server.empty() ? nullptr : &plan.server->name;
  e.basis.set_with("node_watts", [&](std::string& out) {
    node_clauses.append(
        out,
        ClauseKey<4>{
            per_node, {tdp, f.host_base_watts, f.host_watts_per_gpu, f.power_margin}, server},
        [&](std::string& text) {
          append_text(text, '(', per_node, " GPUs x ", General{tdp}, " W + host ",
                      General{f.host_base_watts}, " W + ", General{f.host_watts_per_gpu},
                      " W per GPU slot) x (1 + ", General{f.power_margin}, " margin)");
          if (!server)
            text.append(" (facility.json host)");
          else
            append_text(text, " (", *server, ", data/servers.csv)");
        });
  });
  e.basis.set("btu_per_hour", "peak watts of all nodes x 3.412 BTU/h per W");
  e.basis.set_with("ups_kva", [&](std::string& out) {
    ups_clause.append(out, ClauseKey<1>{0, {f.power_factor}}, [&](std::string& text) {
      append_text(text, "fleet watts with margin / ", General{f.power_factor}, " power factor");
    });
  });
  e.basis.set_with("annual_kwh", [&](std::string& out) {
    energy_clause.append(out, ClauseKey<2>{0, {money.utilization, money.pue}},
                         [&](std::string& text) {
                           append_text(text, "peak kW x ", General{money.utilization},
                                       " utilization x 8760 h x PUE ", General{money.pue});
                         });
  });
  if (*power.node_watts > f.rack_budget_watts)
    e.warnings.push_back(
        format_text(FMT_COMPILE("one node needs {:.1f} kW with margin, above a typical {:.0f} "
                                "kW rack budget"),
                    *power.node_watts / 1000.0, f.rack_budget_watts / 1000.0));
  const Gpu& g = *s.gpu;
  if (g.segment == "consumer" && per_node > f.consumer_cards_per_closed_chassis)
    e.warnings.push_back(format_text(
        FMT_COMPILE(
            "{} x {} in one closed chassis: open-air coolers recirculate hot air and throttle; use "
            "blower or liquid-cooled cards, or at most {} per chassis; {}"),
        per_node, g.name, f.consumer_cards_per_closed_chassis,
        g.has_ecc() ? "ECC only at a capacity cost" : "no ECC memory"));
}

}  // namespace

PowerEstimate estimate_power(const Scenario& s, const Facility& site, const CostAssumptions& money,
                             const Catalog& catalog, Explanations* why) {
  NodePlan plan;
  PowerEstimate power;
  estimate_power(s, site, money, catalog, why, plan, power);
  return power;
}

void estimate_power(const Scenario& s, const Facility& site, const CostAssumptions& money,
                    const Catalog& catalog, Explanations* why, NodePlan& plan,
                    PowerEstimate& power) {
  if (!s.gpu || !s.gpu->tdp_w) return;
  const double tdp = *s.gpu->tdp_w;
  // The nodes and their host: the smallest server form that holds a node (data/servers.csv): a
  // desktop's one CPU is not a dual-CPU server's. A scenario's own facility.host_* win.
  plan = plan_nodes(*s.gpu, s.gpu_count, s.gpus_per_node, catalog);
  const int64_t per_node = std::min(s.gpu_count, plan.gpus_per_node);
  const int64_t nodes = plan.nodes;
  Facility f = site;
  const bool own_host = s.facility.is_object() && (s.facility.contains("host_base_watts") ||
                                                   s.facility.contains("host_watts_per_gpu"));
  const double node_peak = node_peak_watts(*s.gpu, per_node, f, plan.server, own_host);
  if (plan.server && !own_host) {
    f.host_base_watts = plan.server->host_watts;
    f.host_watts_per_gpu = plan.server->host_watts_per_gpu;
    power.server = plan.server->id;
  }
  power.gpus_per_node = per_node;
  power.gpu_watts = tdp * static_cast<double>(s.gpu_count);
  // The articles (sec. 5.2): peak draws summed, plus a 20-30% margin for the supply.
  power.nodes = nodes;
  power.node_peak_watts = node_peak;
  power.node_watts = node_peak * (1.0 + f.power_margin);
  power.fleet_watts = *power.node_watts * static_cast<double>(nodes);
  // All of it ends up as heat: 1 kW = 3412 BTU/h.
  power.btu_per_hour = node_peak * static_cast<double>(nodes) / 1000.0 * kBtuPerHourPerKw;
  // UPS apparent power: kVA = kW / power factor.
  power.ups_kva = *power.fleet_watts / 1000.0 / f.power_factor;
  // Energy a year at the facility meter: peak x utilization x 8760 h x PUE (an upper bound:
  // GPUs rarely hold TDP).
  power.annual_kwh =
      node_peak * static_cast<double>(nodes) / 1000.0 * money.utilization * 8760.0 * money.pue;
  power.rack_budget_watts = f.rack_budget_watts;
  // Racks: whole nodes per rack within its budget (with margin), then enough racks for all nodes.
  if (f.rack_budget_watts > 0 && *power.node_watts <= f.rack_budget_watts) {
    const auto per_rack = static_cast<int64_t>(f.rack_budget_watts / *power.node_watts);
    power.racks = (nodes + per_rack - 1) / per_rack;
  }
  if (why) explain_power(s, f, money, plan, per_node, power, *why);
}

}  // namespace gpusizer
