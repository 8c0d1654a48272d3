#pragma once
// `gpusizer check LOG`: the estimate beside what a log measured, component by component, and the
// log's speed figures as calibration rows (docs/stores-and-logs.md).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpusizer/calibrate.h"
#include "gpusizer/catalog.h"
#include "gpusizer/log_reader.h"

namespace gpusizer {

/// The scenario of a run: `flags` (the command's scenario flags) for what the log does not say,
/// the log's own settings for what it does.
nlohmann::json run_scenario(const LogRun& run, const nlohmann::json& flags);

/// Every run of the log with its estimate: {"format", "runs": [{"source", "label", "scenario",
/// "notes", "error"?, "rows": [{"component", "key", "log", "estimate", "rel_error", "unit",
/// "line", "text", "repeats", "derived", "note"}]}]}. rel_error = estimate / log - 1. When the
/// log's model or GPU name is not known here and a flag gives one, the flag is used (noted).
nlohmann::json check_log(const LogReading& log, const nlohmann::json& flags,
                         const Catalog& catalog);

/// The check as a table (or markdown): one block per run.
std::string render_check(const nlohmann::json& check, bool markdown);

/// The log's speed figures (llama-bench t/s, a figures file's tokens/s) as calibration rows
/// (use "calibrate"), ids "<format>-<run>-<key>"; the logged engine version mapped to its
/// release as check_log maps it (a version no release covers: the newest, with a note).
std::vector<SpeedCase> speed_cases_from_log(const LogReading& log, const nlohmann::json& flags,
                                            const Catalog& catalog);

}  // namespace gpusizer
