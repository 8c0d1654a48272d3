#include "cost/run_cost.h"

#include <fmt/format.h>

#include "core/text_format.h"
#include "gpusizer/scenario.h"

namespace gpusizer {

namespace {

// The nodes at their peak draw (GPUs at TDP and the host, no design margin), in kW: the run's IT
// load; with a node count only.
double peak_kw(const PowerEstimate& power) {
  return *power.node_peak_watts * static_cast<double>(*power.nodes) / 1000.0;
}

}  // namespace

RunCost price_training_run(const Scenario& s, const std::optional<PerformanceEstimate>& performance,
                           const std::optional<Ownership>& ownership, const PowerEstimate& power,
                           RunPriceBasis basis) {
  RunCost r;
  if (!is_training(s.task) || !performance || !performance->time_to_train_s) return r;
  const double hours = *performance->time_to_train_s / 3600.0;
  std::string priced;
  const bool cloud_ok = basis != RunPriceBasis::kOnPrem;
  const bool on_prem_ok = basis != RunPriceBasis::kCloud;
  if (cloud_ok && ownership && ownership->cloud && ownership->cloud->usd_per_run) {
    r.usd_total = ownership->cloud->usd_per_run;
    priced = format_text(FMT_COMPILE("cloud ${:.2f}/hour x {:.1f} h"),
                         ownership->cloud->usd_per_hour, hours);
  } else if (on_prem_ok && ownership && ownership->on_prem && ownership->on_prem->usd_per_run) {
    r.usd_total = ownership->on_prem->usd_per_run;
    priced = format_text(FMT_COMPILE("on-prem ${:.2f}/hour amortized x {:.1f} h"),
                         ownership->on_prem->usd_per_hour, hours);
  }
  const double pue = ownership ? ownership->assumptions.pue : 1.0;
  r.kwh = training_run_kwh(s, performance, power, pue);
  if (r.kwh) {
    r.basis = format_text(FMT_COMPILE("{}{}{:.1f} kW x {:.1f} h x PUE {:g}"), priced,
                          priced.empty() ? "" : "; ", peak_kw(power), hours, pue);
  } else {
    r.basis = priced;
  }
  return r;
}

std::optional<double> training_run_kwh(const Scenario& s,
                                       const std::optional<PerformanceEstimate>& performance,
                                       const PowerEstimate& power, double pue) {
  if (!is_training(s.task) || !performance || !performance->time_to_train_s ||
      !power.node_peak_watts || !power.nodes)
    return std::nullopt;
  // The nodes at their peak draw for the whole run, times the facility's PUE (data/costs.json):
  // training keeps the GPUs saturated.
  return peak_kw(power) * (*performance->time_to_train_s / 3600.0) * pue;
}

}  // namespace gpusizer
