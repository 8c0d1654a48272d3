#include "advisor/fleet_fit.h"

#include <fmt/format.h>

#include <algorithm>

#include "advisor/explain.h"
#include "cost/fleet.h"
#include "estimate/power.h"
#include "gpusizer/json/site.h"

namespace gpusizer {

RackLimit rack_limit(const Scenario& base, const Gpu& gpu, const Catalog& catalog) {
  RackLimit r;
  if (!base.facility.is_object() || !base.facility.contains("rack_budget_watts")) return r;
  const Facility f = with_facility_overrides(catalog.facility_defaults(), base.facility);
  r.given = true;
  r.watts = f.rack_budget_watts;
  const bool own_host =
      base.facility.contains("host_base_watts") || base.facility.contains("host_watts_per_gpu");
  // Largest node that stays within the budget with the margin (the articles: peak + 20-30%), in
  // the slot counts servers come in (1, 2, 4, 8, ...: tensor-parallel groups divide them).
  int64_t top = 1;
  while (top * 2 <= std::max<int64_t>(1, base.gpus_per_node)) top *= 2;
  for (int64_t p = top; p >= 1; p /= 2) {
    const NodePlan plan = plan_nodes(gpu, p, p, catalog);
    if (plan.gpus_per_node < p) continue;  // no server form holds p of them
    const double w = node_peak_watts(gpu, p, f, plan.server, own_host) * (1.0 + f.power_margin);
    if (p == 1) r.one_gpu_node_watts = w;
    if (w <= r.watts && r.max_gpus_per_node == 0) r.max_gpus_per_node = p;
  }
  return r;
}

std::string china_block(const Gpu& g) {
  if (g.china_status != "restricted" && g.china_status != "not-sold") return "";
  std::string why = g.china_status == "not-sold" ? "not sold as a part" : "export-controlled";
  why += " (" + g.china_export_note + ")";
  if (!g.china_variant.empty()) why += "; sold there instead: " + g.china_variant;
  return why;
}

bool rented(const Gpu& gpu, const Catalog& catalog, bool china) {
  bool any = false;
  for_each_instance(gpu, catalog, china, [&](const CloudInstance&) { any = true; });
  return any;
}

void price_in_region(const Scenario& s, Estimate& e, const Catalog& catalog,
                     const std::string& region) {
  if (region != "cn" || !s.gpu || !e.ownership) return;
  const CostAssumptions a = with_cost_overrides(catalog.cost_defaults(), s.costs);
  e.ownership = ownership_cost(s, e.performance, e.power, a, catalog, region);
  if (const std::string why = china_block(*s.gpu); !why.empty() && e.ownership->on_prem) {
    // Not for sale there: only the capacity already in Chinese clouds can be rented.
    e.ownership->on_prem.reset();
    e.ownership->break_even = BreakEven{};
    e.ownership->break_even.verdict = "rent: " + s.gpu->name + " is " + why +
                                      "; only capacity already in Chinese clouds can be rented";
  }
  const auto& c = e.ownership->cloud;
  e.cost.usd_per_hour = c ? std::optional<double>(c->usd_per_hour) : std::nullopt;
  e.cost.usd_per_million_tokens = c ? c->usd_per_million_tokens : std::nullopt;
  e.cost.usd_per_million_requests = c ? c->usd_per_million_requests : std::nullopt;
  e.cost.usd_per_run = c ? c->usd_per_run : std::nullopt;
}

}  // namespace gpusizer
