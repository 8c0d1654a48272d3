#pragma once
// The price and energy of one whole training run: the one function the rest of the code asks
// (estimate, recommend), so that a fleet price (whole instances or servers) can replace the
// per-GPU figures in one place.
#include <optional>
#include <string>

#include "gpusizer/cost.h"
#include "gpusizer/performance_estimate.h"
#include "gpusizer/power_estimate.h"

namespace gpusizer {

struct Scenario;

struct RunCost {
  std::optional<double> usd_total;  ///< the run at the cloud price, else on-prem amortized
  std::optional<double> kwh;        ///< energy the nodes draw over the run, PUE included
  std::string basis;
};

/// Whose hourly price the run is charged at.
enum class RunPriceBasis {
  kCloudFirst,  ///< the cloud instances when the GPU is rented anywhere, else on-prem servers
  kCloud,       ///< the cloud instances only
  kOnPrem,      ///< the on-prem servers, amortized
};

/// Needs the speed's time_to_train_s (training.tokens given), the ownership and the power.
/// `recommend` passes the basis of the option's own fleet price (fleet_usd_per_hour), so that
/// the run's total and the option's hourly price are one price.
RunCost price_training_run(const Scenario& s, const std::optional<PerformanceEstimate>& performance,
                           const std::optional<Ownership>& ownership, const PowerEstimate& power,
                           RunPriceBasis basis = RunPriceBasis::kCloudFirst);

/// The run's energy alone (price_training_run's kwh): the nodes at their peak draw for the run,
/// times `pue`; none without a time to train (training.tokens) or a node count.
std::optional<double> training_run_kwh(const Scenario& s,
                                       const std::optional<PerformanceEstimate>& performance,
                                       const PowerEstimate& power, double pue);

}  // namespace gpusizer
