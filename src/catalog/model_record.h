#pragma once
// Reads one record of data/models.jsonl (the catalog schema) into a Model.
#include <nlohmann/json.hpp>
#include <string>

#include "gpusizer/model.h"

namespace gpusizer {

/// A model's catalog id: its name in lower case.
std::string model_id(std::string name);

/// Builds a Model from a catalog record; throws InputError naming `where` and the field.
Model model_from_record(const nlohmann::json& record, const std::string& where);

}  // namespace gpusizer
