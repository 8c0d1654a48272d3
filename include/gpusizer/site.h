#pragma once
// The site: money (data/costs.json) and machine-room (data/facility.json) assumptions. The
// catalog holds the defaults read from the data files; a scenario's "costs" and "facility"
// objects override them field by field.
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace gpusizer {

/// Form-factor class -> USD for the host of one node without its GPUs (costs.json
/// server_usd_per_node).
using ServerPrices = std::map<std::string, double>;

/// The money side of a site.
struct CostAssumptions {
  double usd_to_cny = 0;
  double electricity_usd_per_kwh = 0;
  double pue = 0;
  double amortization_years = 0;
  double utilization = 0;  ///< share of hours the GPUs do useful work
  double maintenance_fraction_per_year = 0;
  double hours_per_month = 0;
  /// Shared and never changed in place: every estimate copies the assumptions (with a scenario's
  /// overrides) into its answer, and a copy of a pointer allocates nothing where a copy of the
  /// map made six nodes (issue 18); an override builds a map of its own (with_cost_overrides).
  /// Null reads as no prices.
  std::shared_ptr<const ServerPrices> server_usd_per_node;
  std::string date;
};

/// The machine room.
struct Facility {
  double host_base_watts = 0, host_watts_per_gpu = 0, power_margin = 0, rack_budget_watts = 0,
         power_factor = 0;
  int64_t consumer_cards_per_closed_chassis = 0;
};

}  // namespace gpusizer
