#pragma once
// The contract's scenario JSON in (parse_scenario, resolve_scenario) and a typed edit out as
// its merge patch (to_patch). docs/contract.md defines the keys.
#include <nlohmann/json.hpp>

#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"
#include "gpusizer/scenario_edit.h"

namespace gpusizer {

/// Checks and completes a scenario from the contract's JSON. Throws InputError naming the field.
Scenario parse_scenario(const nlohmann::json& input, const Catalog& catalog);

/// parse_scenario, also saying which fields the input gave.
Scenario parse_scenario(const nlohmann::json& input, const Catalog& catalog, ScenarioGiven& given);

/// The contract's scenario JSON as a fully resolved Scenario: parse_scenario, then the layouts
/// left to gpusizer (the serving split per replica, estimate/layout.h). What the faces call.
Scenario resolve_scenario(const nlohmann::json& input, const Catalog& catalog);

/// The edit as a merge patch on the scenario JSON (docs/contract.md, "changes"[].patch).
nlohmann::json to_patch(const ScenarioEdit& edit);

}  // namespace gpusizer
