#pragma once
// Calibration and validation of the speed estimator against measured throughput
// (data/validation/throughput_cases.jsonl, docs/speed.md): fit the profile's free efficiencies on
// the 'calibrate' rows, report the error on every row.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpusizer/catalog.h"
#include "gpusizer/error_summary.h"
#include "gpusizer/estimate.h"
#include "gpusizer/speed_profile.h"

namespace gpusizer {

/// One row of throughput_cases.jsonl.
struct SpeedCase {
  std::string id, group, compare, use, notes, exclude_reason;
  nlohmann::json scenario;
  double measured = 0;
  bool include = true;
};

/// Reads JSON lines; throws InputError naming the line and key at fault. A row without "use"
/// gets `default_use` (the shipped file's rows say theirs; a user's rows calibrate).
std::vector<SpeedCase> read_speed_cases(std::string_view jsonl,
                                        std::string_view default_use = "validate");

/// A case with its scenario checked and its memory estimate (max_batch, the KV pool) made once:
/// the speed estimator reads it under every profile the calibration tries.
struct PreparedCase {
  SpeedCase spec;
  std::optional<Scenario> scenario;
  MemoryEstimate memory;
  std::string error;  ///< why the scenario could not be built
};

/// Builds `c.scenario` and `c.memory` from `c.spec`, or sets `c.error`.
using CasePreparer = std::function<void(PreparedCase& c, const Catalog& catalog)>;

/// Prepares the cases with resolve_scenario and the numbers-only memory estimate (the library's
/// own path).
std::vector<PreparedCase> prepare_speed_cases(const std::vector<SpeedCase>& cases,
                                              const Catalog& catalog);
/// Prepares the cases with a caller's preparer.
std::vector<PreparedCase> prepare_speed_cases(const std::vector<SpeedCase>& cases,
                                              const Catalog& catalog, const CasePreparer& prepare);

/// The estimate's value of the case's `compare` key under `profile`; nullopt when not estimated.
/// `band`, when given, receives the band the estimate itself gives that figure, if any; `room`,
/// how many times faster the hardware lets that figure go (hardware_room of estimate/bands.h;
/// 0: unknown).
std::optional<double> predict_case(const PreparedCase& c, const Catalog& catalog,
                                   const SpeedProfile& profile,
                                   std::pair<double, double>* band = nullptr,
                                   double* room = nullptr);

struct SpeedValidation {
  /// Per metric (all groups: group "") and per group and metric, per use; and "all metrics".
  std::vector<ErrorSummary> stats;
  nlohmann::json rows;  ///< per case: id, group, compare, use, measured, predicted, error
  int failed = 0;       ///< included cases with no prediction
};

/// Errors of every included case under `profile`.
SpeedValidation validate_speed(const std::vector<PreparedCase>& cases, const Catalog& catalog,
                               const SpeedProfile& profile);

struct CalibrationResult {
  nlohmann::json profile;                  ///< the input profile document with the fitted values
  double loss_before = 0, loss_after = 0;  ///< mean squared log error over the calibrate rows
  int n = 0;
  std::vector<std::pair<std::string, double>> fitted;  ///< JSON pointer -> value
};

/// Fits the parameters listed in the profile's "calibration" section: coordinate descent with
/// golden-section search inside [min, max] per parameter, minimising the mean over included
/// 'calibrate' rows of ln(predicted / measured)^2. Deterministic.
CalibrationResult calibrate_speed(const std::vector<PreparedCase>& cases, const Catalog& catalog,
                                  const SpeedProfile& start);

}  // namespace gpusizer
