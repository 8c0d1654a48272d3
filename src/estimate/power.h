#pragma once
// Power and the machine room: GPU board power, node power with the design margin, fleet power,
// BTU/h, UPS kVA and annual energy (data/facility.json, data/costs.json for PUE and utilization).
#include "cost/fleet.h"
#include "gpusizer/catalog.h"
#include "gpusizer/explanations.h"
#include "gpusizer/power_estimate.h"
#include "gpusizer/scenario.h"
#include "gpusizer/site.h"

namespace gpusizer {

/// Peak draw of one node of `per_node` GPUs, no margin: GPUs at TDP + the host of `server`
/// (data/servers.csv), or of the facility when there is no form or `facility_host` is set.
double node_peak_watts(const Gpu& gpu, int64_t per_node, const Facility& facility,
                       const ServerForm* server, bool facility_host);

/// Power of the scenario's GPUs in whole nodes of their server form (cost/fleet.h), with the
/// racks they need; none without a GPU of known TDP. `why` (null: numbers only) receives the
/// basis and warns when a node exceeds the rack budget or consumer cards sit too densely in a
/// closed chassis.
PowerEstimate estimate_power(const Scenario& s, const Facility& site, const CostAssumptions& costs,
                             const Catalog& catalog, Explanations* why);

/// The same into `power` (default-constructed: an estimate's own, made in place instead of
/// moved into it, issue 18), and the nodes it counted (`plan`, left as it was without a GPU of
/// known TDP) for the ownership of the same scenario (cost/ownership_figures.h,
/// estimate_ownership).
void estimate_power(const Scenario& s, const Facility& site, const CostAssumptions& costs,
                    const Catalog& catalog, Explanations* why, NodePlan& plan,
                    PowerEstimate& power);

}  // namespace gpusizer
