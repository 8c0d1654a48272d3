#pragma once
// The site: money (data/costs.json) and machine-room (data/facility.json) assumptions. The
// catalog holds the defaults read from the data files; a scenario's "costs" and "facility"
// objects override them field by field.
#include <nlohmann/json.hpp>
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
  nlohmann::json server_usd_per_node;  ///< form-factor class -> USD for one node without GPUs
  std::string date;
};

/// The machine room.
struct Facility {
  double host_base_watts = 0, host_watts_per_gpu = 0, power_margin = 0, rack_budget_watts = 0,
         power_factor = 0;
  int64_t consumer_cards_per_closed_chassis = 0;
};

/// Reads data/costs.json: every figure required and in range, unknown keys refused.
CostAssumptions read_cost_defaults(const nlohmann::json& doc, const std::string& file);
/// Reads data/facility.json likewise.
Facility read_facility_defaults(const nlohmann::json& doc, const std::string& file);

/// `defaults` with a scenario's "costs" object applied; bad fields throw InputError naming
/// "costs.<field>".
CostAssumptions with_cost_overrides(CostAssumptions defaults, const nlohmann::json& overrides);
/// `defaults` with a scenario's "facility" object applied ("facility.<field>").
Facility with_facility_overrides(Facility defaults, const nlohmann::json& overrides);

}  // namespace gpusizer
