#pragma once
// The importers' JSON faces: a Hugging Face config.json object in, the imported model out.
#include <nlohmann/json.hpp>
#include <string>

#include "gpusizer/catalog.h"
#include "gpusizer/importers.h"

namespace gpusizer {

/// Builds a Model from a Hugging Face config.json object; `where` prefixes JSON paths in errors.
ImportedModel import_hf_config(const nlohmann::json& config, const std::string& where);

/// The imported model as JSON: architecture fields, exact parameter counts (count_params), the
/// weight files' bytes by dtype, weights format, analytic-vs-file comparison and warnings.
nlohmann::json imported_to_json(const ImportedModel& imported, const Catalog& catalog);

}  // namespace gpusizer
