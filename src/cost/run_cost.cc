#include "cost/run_cost.h"

#include <fmt/format.h>

#include "gpusizer/estimate.h"

namespace gpusizer {

RunCost price_training_run(const Scenario& s, const Estimate& e, RunPriceBasis basis) {
  RunCost r;
  if (!is_training(s.task) || !e.performance || !e.performance->time_to_train_s) return r;
  const double hours = *e.performance->time_to_train_s / 3600.0;
  std::string priced;
  const bool cloud_ok = basis != RunPriceBasis::kOnPrem;
  const bool on_prem_ok = basis != RunPriceBasis::kCloud;
  if (cloud_ok && e.ownership && e.ownership->cloud && e.ownership->cloud->usd_per_run) {
    r.usd_total = e.ownership->cloud->usd_per_run;
    priced = fmt::format("cloud ${:.2f}/hour x {:.1f} h", e.ownership->cloud->usd_per_hour, hours);
  } else if (on_prem_ok && e.ownership && e.ownership->on_prem &&
             e.ownership->on_prem->usd_per_run) {
    r.usd_total = e.ownership->on_prem->usd_per_run;
    priced = fmt::format("on-prem ${:.2f}/hour amortized x {:.1f} h",
                         e.ownership->on_prem->usd_per_hour, hours);
  }
  if (e.power.node_peak_watts && e.power.nodes) {
    // The nodes at their peak draw (GPUs at TDP and the host, no design margin) for the whole
    // run, times the facility's PUE (data/costs.json): training keeps the GPUs saturated.
    const double pue = e.ownership ? e.ownership->assumptions.pue : 1.0;
    const double it_kw = *e.power.node_peak_watts * static_cast<double>(*e.power.nodes) / 1000.0;
    r.kwh = it_kw * hours * pue;
    r.basis = fmt::format("{}{}{:.1f} kW x {:.1f} h x PUE {:g}", priced, priced.empty() ? "" : "; ",
                          it_kw, hours, pue);
  } else {
    r.basis = priced;
  }
  return r;
}

}  // namespace gpusizer
