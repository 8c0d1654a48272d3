#pragma once
// The scenario's "traffic" and "slo" objects (docs/contract.md, v2): strict keys, every bad
// field named.
#include <nlohmann/json.hpp>

#include "gpusizer/scenario.h"
#include "scenario/scenario_fields.h"

namespace gpusizer {

/// Reads "traffic" and "slo" into `s` after its lengths and task are known. Traffic lengths the
/// object leaves out are the scenario's prompt_len and output_len; when the scenario gives no
/// lengths of its own, it takes the traffic's means (so memory sizes the same requests). Throws
/// InputError naming the field.
void parse_traffic(const ScenarioFields& input, Scenario& s);

/// The traffic's mean lengths the object left out follow the scenario's prompt_len and
/// output_len (also after an edit of them, scenario_edit.h); a p90 must stay within what the
/// means allow. Throws InputError naming the p90 field.
void follow_scenario_lengths(Traffic& tr, const Scenario& s, bool prompt_given, bool output_given);

}  // namespace gpusizer
