#pragma once
// Cost of ownership: cloud rental (per hour, per million tokens or requests, per training run)
// against buying (GPUs + servers, amortization, power x PUE, maintenance), in USD and CNY, and
// the break-even between them. Defaults from data/costs.json; prices per GPU from data/gpus.csv.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpusizer/site.h"

namespace gpusizer {

struct Scenario;
struct Estimate;

struct CloudCost {
  double usd_per_hour = 0;
  std::optional<double> usd_per_million_tokens, usd_per_million_requests, usd_per_run;
  std::string instance, price_date;
};

struct OnPremCost {
  double gpus_usd = 0, servers_usd = 0, capex_usd = 0, capex_cny = 0;
  double energy_usd_per_hour = 0;  ///< at full draw (no margin) x PUE, while running
  double maintenance_usd_per_year = 0;
  double usd_per_hour = 0;  ///< amortized cost per hour of useful work at the utilization
  double cny_per_hour = 0;
  std::optional<double> usd_per_million_tokens, usd_per_run;
};

struct BreakEven {
  std::optional<double> utilization;  ///< share of hours above which buying beats renting
  std::optional<double> months;       ///< at the assumed utilization, when cumulative cost meets
  std::string verdict;
};

struct Ownership {
  std::optional<CloudCost> cloud;
  std::optional<OnPremCost> on_prem;
  BreakEven break_even;
  CostAssumptions assumptions;
  std::vector<std::string> basis;
};

/// Cloud and on-prem cost of the scenario's system, using the speed and power of its estimate.
Ownership ownership_cost(const Scenario& s, const Estimate& e, const CostAssumptions& a);

/// The ownership block as JSON (the "ownership" key of an estimate's "cost").
nlohmann::json to_json(const Ownership& o);

}  // namespace gpusizer
