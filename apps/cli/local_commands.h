#pragma once
// Commands about what the user already has: the models in the local stores
// (`gpusizer models --local`) and start-up or benchmark logs (`gpusizer check LOG`).
#include <nlohmann/json.hpp>
#include <string>

#include "gpusizer/catalog.h"

namespace gpusizer::cli {

/// Lists the models the Hugging Face cache, ModelScope's cache and Ollama's store hold, with their
/// sizes, in `format` (table, markdown, json, jsonl, csv). Returns the exit code.
int run_local_models(const std::string& format);

/// Reads a log or figures file (docs/stores-and-logs.md) and prints the estimate beside every
/// figure, with the error; `flags` are the scenario flags, used where the log says nothing. Exit
/// code 2 when a run could not be estimated.
int run_check(const std::string& path, const nlohmann::json& flags, const Catalog& catalog,
              const std::string& format);

/// Fits the speed efficiencies to the rows of a throughput_cases.jsonl file, a log or a figures
/// file; prints every row read with its error before and after (memory figures are checked, not
/// fitted). Writes the fitted profile only to `output` when one is given.
int run_calibrate(const std::string& path, const nlohmann::json& flags, const Catalog& catalog,
                  const std::string& output);

}  // namespace gpusizer::cli
