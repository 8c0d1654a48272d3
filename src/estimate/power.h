#pragma once
// Power and the machine room: GPU board power, node power with the design margin, fleet power,
// BTU/h, UPS kVA and annual energy (data/facility.json, data/costs.json for PUE and utilization).
#include "gpusizer/estimate.h"

namespace gpusizer {

/// Fills e.power for the scenario's GPUs; warns when a node exceeds the rack budget or consumer
/// cards sit too densely in a closed chassis.
void estimate_power(const Scenario& s, const Facility& site, const CostAssumptions& costs,
                    Estimate& e);

}  // namespace gpusizer
