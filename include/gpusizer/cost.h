#pragma once
// Cost of ownership: cloud rental (per hour, per million tokens or requests, per training run)
// against buying (GPUs + servers, amortization, power x PUE, maintenance), in USD and CNY, and
// the break-even between them. Defaults from data/costs.json; prices per GPU from data/gpus.csv.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpusizer/performance_estimate.h"
#include "gpusizer/power_estimate.h"
#include "gpusizer/site.h"

namespace gpusizer {

struct Scenario;
class Catalog;

/// The fleet rented as whole cloud instances (data/instances.csv): `count` x one shape.
struct CloudCost {
  double usd_per_hour = 0;  ///< the whole fleet
  std::optional<double> usd_per_million_tokens, usd_per_million_requests, usd_per_run;
  std::string instance, price_date;  ///< the shape's name ("g5.48xlarge") and its price's date
  std::string provider;
  int64_t count = 0;                 ///< whole instances rented
  int64_t gpus_per_instance = 0;     ///< GPUs in one instance
  double instance_usd_per_hour = 0;  ///< one instance, in USD (CNY converted at usd_to_cny)
  double listed_price_per_hour = 0;  ///< one instance as listed, in `currency`
  std::string currency;              ///< "USD" or "CNY"
};

struct OnPremCost {
  double gpus_usd = 0, servers_usd = 0, capex_usd = 0, capex_cny = 0;
  std::string server;  ///< the server form bought (data/servers.csv id); empty: costs.json class
  int64_t servers = 0;
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

struct CostEstimate {
  std::optional<double> usd_per_hour;
  std::optional<double> usd_per_million_tokens;
  std::optional<double> usd_per_million_requests;  ///< serving: output_len tokens a request
  std::optional<double> usd_per_run;               ///< training: when training.tokens is given
  /// Figure -> [low, high] from the band of the throughput it divides by: at most
  /// usd_per_million_requests, usd_per_million_tokens and usd_per_run.
  NamedFigures<std::pair<double, double>, 3> bands;
  std::optional<double> usd_total;  ///< training: the whole run (cost/run_cost.h), with tokens
};

struct Ownership {
  std::optional<CloudCost> cloud;
  std::optional<OnPremCost> on_prem;
  BreakEven break_even;
  CostAssumptions assumptions;
  std::vector<std::string> basis;
  std::string not_rented;  ///< why there is no cloud price (no instance of this GPU); else empty
};

/// Cloud and on-prem cost of the scenario's system, from its speed (`performance`, none when not
/// estimated) and its power:
/// the fleet in whole cloud instances (data/instances.csv; `region` "cn" takes the instances of
/// mainland-China regions, anything else the others) and whole servers (data/servers.csv).
Ownership ownership_cost(const Scenario& s, const std::optional<PerformanceEstimate>& performance,
                         const PowerEstimate& power, const CostAssumptions& a,
                         const Catalog& catalog, const std::string& region = "");

}  // namespace gpusizer
