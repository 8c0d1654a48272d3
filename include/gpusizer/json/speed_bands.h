#pragma once
// data/speed_bands.json in and out: the table `gpusizer validate --bands` derives and the
// catalog reads (gpusizer/speed_bands.h).
#include <nlohmann/json.hpp>
#include <string>

#include "gpusizer/speed_bands.h"

namespace gpusizer {

/// Reads data/speed_bands.json strictly: {"source", "date", "bands": [{kind, engine,
/// low_error, high_error, n}]}; throws InputError naming the file and key.
SpeedBands read_speed_bands(const nlohmann::json& doc, const std::string& file);

/// The bands as the document read_speed_bands reads.
nlohmann::json to_json(const SpeedBands& bands);

}  // namespace gpusizer
