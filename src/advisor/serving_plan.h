#pragma once
// The fleet search for a serving scenario with traffic (docs/advisor.md, "Sizing a fleet for
// traffic"): GPU type x replica layout x weights/KV formats, replicas counted from the highest
// rate one replica carries within the SLO (speed/serving_load.h), ranked by the objective.
#include <optional>
#include <string>
#include <vector>

#include "gpusizer/advisor.h"
#include "gpusizer/scenario_edit.h"

namespace gpusizer {

/// Fills `r` (whose constraints are parsed) for `base`, a serving scenario with traffic as
/// parsed (`given`: what its input fixed); each replica and fleet is an edit of it.
void plan_serving(const Scenario& base, const ScenarioGiven& given, const Catalog& catalog,
                  Recommendation& r);

/// The fleet's hourly price: the one place the traffic search reads money, today the option's
/// own hourly cost (cloud or amortized on-prem, explain::price_of), so that pricing by whole
/// instances or servers can replace it in one place.
std::optional<double> fleet_usd_per_hour(const Option& o, const Constraints& c);

}  // namespace gpusizer
