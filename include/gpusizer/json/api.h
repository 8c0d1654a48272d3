#pragma once
// The library's JSON face: what the CLI and the HTTP server call. Inputs and outputs are the
// contract's JSON (docs/contract.md); bad input throws InputError naming the field.
#include <nlohmann/json.hpp>
#include <string>

#include "gpusizer/catalog.h"
#include "gpusizer/json/scenario_text.h"

namespace gpusizer {

/// One scenario in, one Estimate out, as contract JSON.
nlohmann::json estimate_json(const nlohmann::json& scenario,
                             const Catalog& catalog = Catalog::builtin());

/// The same answer appended to `out` as compact JSON text, written without building the tree:
/// the bytes append_json(out, estimate_json(scenario, catalog)) writes (the JSONL path).
void append_estimate_json(std::string& out, const nlohmann::json& scenario,
                          const Catalog& catalog = Catalog::builtin());

/// The same answer for a scenario's text (a JSONL line, an HTTP body): the bytes the tree's
/// append_estimate_json writes for parse_json_input's tree of the text, and the same errors.
void append_estimate_json(std::string& out, const ScenarioText& scenario,
                          const Catalog& catalog = Catalog::builtin());

/// The contract's Recommendation for a scenario without a fixed GPU (or with a list of allowed
/// GPUs): ranked options and rejected GPUs. Provided by the advisor.
nlohmann::json recommend_json(const nlohmann::json& request,
                              const Catalog& catalog = Catalog::builtin());

/// The buyer's checklist answered in one document: scenario, memory, top options with speed,
/// cost and power, cloud vs on-prem, risks and what to change (the request of recommend_json).
nlohmann::json report_json(const nlohmann::json& request,
                           const Catalog& catalog = Catalog::builtin());

/// The reverse question for a scenario with a GPU: the largest catalog models, contexts and
/// batches that fit.
nlohmann::json fit_models_json(const nlohmann::json& scenario,
                               const Catalog& catalog = Catalog::builtin());

/// The GPU catalog as JSON: every column of data/gpus.csv per GPU, numbers as numbers.
nlohmann::json gpus_json(const Catalog& catalog = Catalog::builtin());

/// The model catalog as JSON: architecture and exact parameter counts per model.
nlohmann::json models_json(const Catalog& catalog = Catalog::builtin());

/// The error object of the contract: {"error": {"code": ..., "message": ...}}.
nlohmann::json error_json(const std::string& code, const std::string& message);

}  // namespace gpusizer
