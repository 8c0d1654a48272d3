#pragma once
// Inline model configs imported once (issue 18): a JSONL batch, Calculon's grid for one, repeats
// the same {"hf_config": {...}} on every line, and importing it was about a quarter of such a
// line. The cache is keyed by the config's JSON value (nlohmann's ordering compares it member by
// member), shared by the threads of a batch and bounded.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "gpusizer/importers.h"

namespace gpusizer {

/// An order on JSON values that tells types apart (negative, zero or positive, as
/// std::string::compare): nlohmann's own operator< holds 4096 and 4096.0 equivalent, and the
/// importer may accept one and refuse the other. By type (value_t's order), then objects and
/// arrays by size and member by member (key, then value), strings, booleans and numbers by value
/// (a NaN after every number, equal to another NaN).
int compare_json(const nlohmann::json& a, const nlohmann::json& b);

/// import_hf_config(config, where), from a process-wide cache when the same config was imported
/// before: the cache's own entry, shared and never changed (issue 18: a copy of the imported
/// model and its moves into the scenario were ~0.8k instructions a line). Errors are not cached:
/// a config that fails throws the same InputError every time.
std::shared_ptr<const ImportedModel> import_hf_config_cached(const nlohmann::json& config,
                                                             const std::string& where);

}  // namespace gpusizer
