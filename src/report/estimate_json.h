#pragma once
// The contract's JSON for estimates and scenarios (docs/contract.md "Estimate (output JSON)").
#include <nlohmann/json.hpp>

#include "gpusizer/estimate.h"

namespace gpusizer {

/// The Estimate as contract JSON: bytes as integers, absent figures omitted or null.
nlohmann::json to_json(const Estimate& e);

/// The resolved scenario (defaults applied), shown beside the estimate.
nlohmann::json to_json(const Scenario& s);

}  // namespace gpusizer
