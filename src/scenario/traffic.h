#pragma once
// The scenario's "traffic" and "slo" objects (docs/contract.md, v2): strict keys, every bad
// field named.
#include <nlohmann/json.hpp>

#include "gpusizer/scenario.h"

namespace gpusizer {

/// Reads "traffic" and "slo" into `s` after its lengths and task are known. Traffic lengths the
/// object leaves out are the scenario's prompt_len and output_len; when the scenario gives no
/// lengths of its own, it takes the traffic's means (so memory sizes the same requests). Throws
/// InputError naming the field.
void parse_traffic(const nlohmann::json& input, Scenario& s);

}  // namespace gpusizer
