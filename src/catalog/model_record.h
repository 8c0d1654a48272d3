#pragma once
// Reads one record of data/models.jsonl (the catalog schema) into a Model.
#include <nlohmann/json.hpp>

#include "gpusizer/model.h"

namespace gpusizer {

/// Builds a Model from a catalog record; throws InputError naming `where` and the field.
Model model_from_record(const nlohmann::json& record, const std::string& where);

}  // namespace gpusizer
