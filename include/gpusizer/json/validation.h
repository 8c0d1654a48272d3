#pragma once
// The memory validation report as JSON (what `gpusizer validate` prints for memory).
#include <nlohmann/json.hpp>

#include "gpusizer/validation.h"

namespace gpusizer {

/// The report as JSON: per case, per source group and the band coverage.
nlohmann::json to_json(const ValidationReport& report);

}  // namespace gpusizer
