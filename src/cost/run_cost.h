#pragma once
// The price and energy of one whole training run: the one function the rest of the code asks
// (estimate, recommend), so that a fleet price (whole instances or servers) can replace the
// per-GPU figures in one place.
#include <optional>
#include <string>

namespace gpusizer {

struct Scenario;
struct Estimate;

struct RunCost {
  std::optional<double> usd_total;  ///< the run at the cloud price, else on-prem amortized
  std::optional<double> kwh;        ///< energy the nodes draw over the run, PUE included
  std::string basis;
};

/// Needs the estimate's time_to_train_s (training.tokens given), its ownership and power.
RunCost price_training_run(const Scenario& s, const Estimate& e);

}  // namespace gpusizer
