// The "ownership" object of an estimate's "cost" (docs/contract.md): cloud rental against buying,
// the break-even and the assumptions, described once for both JSON backends.
#include "gpusizer/json/cost.h"

#include "report/describe.h"

namespace gpusizer {
namespace {

void describe_cloud(JsonWriter& w, const CloudCost& c) {
  w.key("cloud");
  w.begin_object();
  w.field("currency", c.currency);
  w.field("gpus_per_instance", c.gpus_per_instance);
  w.field("instance", c.instance);
  w.field("instance_count", c.count);
  w.field("instance_usd_per_hour", c.instance_usd_per_hour);
  w.field("listed_price_per_hour", c.listed_price_per_hour);
  w.field("price_date", c.price_date);
  w.field("provider", c.provider);
  w.field("usd_per_hour", c.usd_per_hour);
  w.field("usd_per_million_requests", c.usd_per_million_requests);
  w.field("usd_per_million_tokens", c.usd_per_million_tokens);
  w.field("usd_per_run", c.usd_per_run);
  w.end_object();
}

void describe_on_prem(JsonWriter& w, const OnPremCost& p) {
  w.key("on_prem");
  w.begin_object();
  w.field("capex_cny", p.capex_cny);
  w.field("capex_usd", p.capex_usd);
  w.field("cny_per_hour", p.cny_per_hour);
  w.field("energy_usd_per_hour", p.energy_usd_per_hour);
  w.field("gpus_usd", p.gpus_usd);
  w.field("maintenance_usd_per_year", p.maintenance_usd_per_year);
  if (!p.server.empty()) w.field("server", p.server);
  w.field("servers", p.servers);
  w.field("servers_usd", p.servers_usd);
  w.field("usd_per_hour", p.usd_per_hour);
  w.field("usd_per_million_tokens", p.usd_per_million_tokens);
  w.field("usd_per_run", p.usd_per_run);
  w.end_object();
}

void describe_assumptions(JsonWriter& w, const CostAssumptions& a) {
  w.key("assumptions");
  w.begin_object();
  w.field("amortization_years", a.amortization_years);
  w.field("date", a.date);
  w.field("electricity_usd_per_kwh", a.electricity_usd_per_kwh);
  w.field("maintenance_fraction_per_year", a.maintenance_fraction_per_year);
  w.field("pue", a.pue);
  w.field("usd_to_cny", a.usd_to_cny);
  w.field("utilization", a.utilization);
  w.end_object();
}

}  // namespace

void describe_ownership(JsonWriter& w, const Ownership& o) {
  w.begin_object();
  describe_assumptions(w, o.assumptions);
  w.strings("basis", o.basis);
  w.key("break_even");
  w.begin_object();
  w.field("months", o.break_even.months);
  w.field("utilization", o.break_even.utilization);
  w.field("verdict", o.break_even.verdict);
  w.end_object();
  if (o.cloud) describe_cloud(w, *o.cloud);
  if (!o.not_rented.empty()) w.field("not_rented", o.not_rented);
  if (o.on_prem) describe_on_prem(w, *o.on_prem);
  w.end_object();
}

nlohmann::json to_json(const Ownership& o) {
  TreeWriter w;
  describe_ownership(w, o);
  return w.take();
}

}  // namespace gpusizer
