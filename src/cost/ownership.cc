// Cost of ownership: rent (cloud price per GPU-hour from data/gpus.csv) against buy (purchase
// price of GPUs and servers, straight-line amortization, energy x PUE, maintenance). Defaults in
// data/costs.json; the verdict follows the articles' reasoning (fluctuating or one-off demand:
// cloud; long, steady, private work: on-prem).
#include "gpusizer/cost.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <cmath>

#include "gpusizer/error.h"
#include "gpusizer/estimate.h"

namespace gpusizer {

namespace {

std::string money(double usd) {
  return usd >= 100 ? fmt::format(FMT_COMPILE("${:.0f}"), usd)
                    : fmt::format(FMT_COMPILE("${:.2f}"), usd);
}

}  // namespace

Ownership ownership_cost(const Scenario& s, const Estimate& e, const CostAssumptions& a) {
  Ownership o;
  o.assumptions = a;
  if (!s.gpu) return o;
  const Gpu& g = *s.gpu;
  const double n = static_cast<double>(s.gpu_count);
  const auto tokens_per_s = useful_tokens_per_s(s, e);
  // Seconds of one training run; 0 when not known (no training.tokens).
  const double run_s =
      e.performance && e.performance->time_to_train_s ? *e.performance->time_to_train_s : 0.0;

  if (g.cloud_usd_per_gpu_hr) {
    CloudCost c;
    c.usd_per_hour = *g.cloud_usd_per_gpu_hr * n;
    c.instance = g.cloud_instance;
    c.price_date = g.cloud_price_date;
    if (tokens_per_s) {
      // Cost per token at full use: hourly price / tokens an hour.
      c.usd_per_million_tokens = c.usd_per_hour / (*tokens_per_s * 3600.0) * 1e6;
      // One request produces output_len tokens (serving), so requests cost output_len x that.
      if (!is_training(s.task))
        c.usd_per_million_requests =
            *c.usd_per_million_tokens * static_cast<double>(std::max<int64_t>(1, s.output_len));
    }
    if (run_s > 0) c.usd_per_run = c.usd_per_hour * run_s / 3600.0;
    o.basis.push_back(fmt::format(FMT_COMPILE("cloud: {} GPUs x {}/GPU-hour ({}, {})"), s.gpu_count,
                                  money(*g.cloud_usd_per_gpu_hr), g.cloud_instance,
                                  g.cloud_price_date));
    o.cloud = c;
  }

  if (g.launch_price_usd && e.power.node_peak_watts && e.power.nodes) {
    OnPremCost p;
    p.gpus_usd = *g.launch_price_usd * n;
    const double server =
        a.server_usd_per_node.value(g.form_factor_class, a.server_usd_per_node.value("PCIe", 0.0));
    p.servers_usd = server * static_cast<double>(*e.power.nodes);
    p.capex_usd = p.gpus_usd + p.servers_usd;
    p.capex_cny = p.capex_usd * a.usd_to_cny;
    // Energy while running: the nodes' peak draw (no design margin) x PUE x tariff.
    const double it_kw = *e.power.node_peak_watts * static_cast<double>(*e.power.nodes) / 1000.0;
    p.energy_usd_per_hour = it_kw * a.pue * a.electricity_usd_per_kwh;
    p.maintenance_usd_per_year = a.maintenance_fraction_per_year * p.capex_usd;
    // Amortized cost per useful hour: (capex / years + maintenance) spread over the hours used,
    // plus the energy of those hours.
    const double hours_used_per_year = 8760.0 * a.utilization;
    p.usd_per_hour =
        (p.capex_usd / a.amortization_years + p.maintenance_usd_per_year) / hours_used_per_year +
        p.energy_usd_per_hour;
    p.cny_per_hour = p.usd_per_hour * a.usd_to_cny;
    if (tokens_per_s) p.usd_per_million_tokens = p.usd_per_hour / (*tokens_per_s * 3600.0) * 1e6;
    if (run_s > 0) p.usd_per_run = p.usd_per_hour * run_s / 3600.0;
    o.basis.push_back(fmt::format(
        FMT_COMPILE(
            "on-prem: ({} GPUs x {} + {} node(s) x {} server) / {:g} years + {:g}%/year "
            "maintenance, "
            "over 8760 h x {:g} utilization, + {:.2f} kW x PUE {:g} x ${:g}/kWh; CNY at {:g}/USD "
            "(data/costs.json, {})"),
        s.gpu_count, money(*g.launch_price_usd), *e.power.nodes, money(server),
        a.amortization_years, a.maintenance_fraction_per_year * 100, a.utilization, it_kw, a.pue,
        a.electricity_usd_per_kwh, a.usd_to_cny, a.date));
    o.on_prem = p;
  }

  BreakEven& b = o.break_even;
  if (o.cloud && o.on_prem) {
    const double rent = o.cloud->usd_per_hour, energy = o.on_prem->energy_usd_per_hour;
    const double fixed_per_year =
        o.on_prem->capex_usd / a.amortization_years + o.on_prem->maintenance_usd_per_year;
    // Buying wins when rent x hours used > fixed + energy x hours used over a year:
    // u* = fixed per year / ((rent - energy) x 8760).
    if (rent > energy) {
      b.utilization = fixed_per_year / ((rent - energy) * 8760.0);
      // Months until cumulative rent meets capex plus running costs, at the assumed utilization.
      const double saved_per_month = (rent - energy) * a.hours_per_month * a.utilization -
                                     o.on_prem->maintenance_usd_per_year / 12.0;
      if (saved_per_month > 0) b.months = o.on_prem->capex_usd / saved_per_month;
    }
    const double life_months = a.amortization_years * 12.0;
    if (!b.utilization || *b.utilization >= 1.0) {
      b.verdict =
          "rent: at these prices buying never pays back within " +
          fmt::format(FMT_COMPILE("{:g} years, even busy around the clock"), a.amortization_years);
    } else if (a.utilization >= *b.utilization && b.months && *b.months <= life_months) {
      b.verdict =
          fmt::format(FMT_COMPILE("buy if the work is long and steady: above {:.0f}% utilization "
                                  "owning is cheaper, and at "
                                  "{:.0f}% it pays back in {:.0f} months (of a {:g}-year life); "
                                  "private data also favours "
                                  "on-prem. Fluctuating or one-off demand still favours the cloud"),
                      *b.utilization * 100, a.utilization * 100, *b.months, a.amortization_years);
    } else {
      b.verdict = fmt::format(
          FMT_COMPILE(
              "rent unless the GPUs will be busy more than {:.0f}% of the time for {:g} years: at "
              "{:.0f}% utilization the cloud is cheaper. Fluctuating, one-off or exploratory "
              "demand "
              "favours the cloud; long, steady, private work favours owning"),
          *b.utilization * 100, a.amortization_years, a.utilization * 100);
    }
  } else if (o.cloud) {
    b.verdict = "rent: no purchase price for " + g.name + " in the catalog (data/gpus.csv)";
  } else if (o.on_prem) {
    b.verdict = "buy: " + g.name + " has no cloud price in the catalog (not commonly rented)";
  }
  return o;
}

nlohmann::json to_json(const Ownership& o) {
  nlohmann::json j = nlohmann::json::object();
  auto put = [](nlohmann::json& t, const char* k, const std::optional<double>& v) {
    if (v) t[k] = *v;
  };
  if (o.cloud) {
    const CloudCost& c = *o.cloud;
    nlohmann::json t = {
        {"usd_per_hour", c.usd_per_hour}, {"instance", c.instance}, {"price_date", c.price_date}};
    put(t, "usd_per_million_tokens", c.usd_per_million_tokens);
    put(t, "usd_per_million_requests", c.usd_per_million_requests);
    put(t, "usd_per_run", c.usd_per_run);
    j["cloud"] = std::move(t);
  }
  if (o.on_prem) {
    const OnPremCost& p = *o.on_prem;
    nlohmann::json t = {{"gpus_usd", p.gpus_usd},
                        {"servers_usd", p.servers_usd},
                        {"capex_usd", p.capex_usd},
                        {"capex_cny", p.capex_cny},
                        {"energy_usd_per_hour", p.energy_usd_per_hour},
                        {"maintenance_usd_per_year", p.maintenance_usd_per_year},
                        {"usd_per_hour", p.usd_per_hour},
                        {"cny_per_hour", p.cny_per_hour}};
    put(t, "usd_per_million_tokens", p.usd_per_million_tokens);
    put(t, "usd_per_run", p.usd_per_run);
    j["on_prem"] = std::move(t);
  }
  nlohmann::json b = {{"verdict", o.break_even.verdict}};
  put(b, "utilization", o.break_even.utilization);
  put(b, "months", o.break_even.months);
  j["break_even"] = std::move(b);
  const CostAssumptions& a = o.assumptions;
  j["assumptions"] = {{"usd_to_cny", a.usd_to_cny},
                      {"electricity_usd_per_kwh", a.electricity_usd_per_kwh},
                      {"pue", a.pue},
                      {"amortization_years", a.amortization_years},
                      {"utilization", a.utilization},
                      {"maintenance_fraction_per_year", a.maintenance_fraction_per_year},
                      {"date", a.date}};
  j["basis"] = o.basis;
  return j;
}

}  // namespace gpusizer
