#pragma once
// Reading data/engines.json into the typed engine profiles (gpusizer/engine_profile.h); each
// reader throws InputError naming the file and the missing or bad key.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpusizer/engine_profile.h"

namespace gpusizer {

/// Reads engines.json deepspeed.zero3; throws InputError naming the missing or bad key.
Zero3Defaults read_zero3_defaults(const nlohmann::json& engines, const std::string& file);

/// Reads engines.json "defaults".
EngineDefaults read_engine_defaults(const nlohmann::json& engines, const std::string& file);

/// Reads every engine of engines.json (all keys but "device", "defaults" and comments).
std::vector<EngineProfile> read_engine_profiles(const nlohmann::json& engines,
                                                const std::string& file);
DeviceProfile read_device_profile(const nlohmann::json& engines, const std::string& file);

}  // namespace gpusizer
