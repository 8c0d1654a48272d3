#pragma once
// The speed validation as JSON (what `gpusizer validate` prints for speed).
#include <nlohmann/json.hpp>

#include "gpusizer/calibrate.h"
#include "gpusizer/catalog.h"

namespace gpusizer {

/// The validation as JSON: {"summary": [...], "rows": [...], "failed": n}.
nlohmann::json to_json(const SpeedValidation& v);

/// validate_speed over the built-in data/validation/throughput_cases.jsonl with the built-in
/// profile, as JSON (what `gpusizer validate` prints for speed).
nlohmann::json validate_speed_shipped(const Catalog& catalog);

}  // namespace gpusizer
