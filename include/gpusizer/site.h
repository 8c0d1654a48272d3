#pragma once
// The site: money (data/costs.json) and machine-room (data/facility.json) assumptions. The
// catalog holds the defaults read from the data files; a scenario's "costs" and "facility"
// objects override them field by field.
#include <cstdint>
#include <map>
#include <string>

namespace gpusizer {

/// The money side of a site.
struct CostAssumptions {
  double usd_to_cny = 0;
  double electricity_usd_per_kwh = 0;
  double pue = 0;
  double amortization_years = 0;
  double utilization = 0;  ///< share of hours the GPUs do useful work
  double maintenance_fraction_per_year = 0;
  double hours_per_month = 0;
  std::map<std::string, double>
      server_usd_per_node;  ///< form-factor class -> USD, one node, no GPUs
  std::string date;
};

/// The machine room.
struct Facility {
  double host_base_watts = 0, host_watts_per_gpu = 0, power_margin = 0, rack_budget_watts = 0,
         power_factor = 0;
  int64_t consumer_cards_per_closed_chassis = 0;
};

}  // namespace gpusizer
