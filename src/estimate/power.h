#pragma once
// Power and heat: GPU board power, node power with the design margin, BTU/h (data/facility.json).
#include "gpusizer/estimate.h"

namespace gpusizer {

/// Fills e.power for the scenario's GPUs; warns when a node exceeds the rack budget.
void estimate_power(const Scenario& s, const Catalog& catalog, Estimate& e);

}  // namespace gpusizer
