#pragma once
// Power and the machine room: GPU board power, node power with the design margin, fleet power,
// BTU/h, UPS kVA and annual energy (data/facility.json, data/costs.json for PUE and utilization).
#include "gpusizer/estimate.h"

namespace gpusizer {

/// Machine-room figures with the scenario's "facility" overrides applied.
struct Facility {
  double host_base_watts = 0, host_watts_per_gpu = 0, power_margin = 0, rack_budget_watts = 0,
         power_factor = 0;
  int64_t consumer_cards_per_closed_chassis = 2;
};

/// data/facility.json with `overrides` applied; bad fields throw InputError "facility.<field>".
Facility facility_assumptions(const nlohmann::json& overrides);

/// Fills e.power for the scenario's GPUs; warns when a node exceeds the rack budget or consumer
/// cards sit too densely in a closed chassis.
void estimate_power(const Scenario& s, const CostAssumptions& costs, Estimate& e);

}  // namespace gpusizer
