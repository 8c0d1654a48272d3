#pragma once
// Reading data/costs.json and data/facility.json, and applying a scenario's "costs" and
// "facility" objects to them.
#include <nlohmann/json.hpp>
#include <string>

#include "gpusizer/site.h"

namespace gpusizer {

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
