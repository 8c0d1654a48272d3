#pragma once
// `gpusizer validate`: runs every shipped measurement case through the estimator and reports the
// error per source group and overall (data/validation/memory_cases.jsonl).
#include <string>
#include <string_view>
#include <vector>

#include "gpusizer/catalog.h"
#include "gpusizer/error_summary.h"

namespace gpusizer {

struct CaseResult {
  std::string id;
  std::string group;
  std::string compare;  ///< output key compared: allocated_bytes, weights_bytes, ...
  double measured = 0;
  double predicted = 0;
  double error = 0;     ///< (predicted - measured) / measured
  std::string failure;  ///< set when the scenario could not be estimated
};

/// Measurements of the device total inside the estimate's [low_bytes, high_bytes] band.
struct MemoryBandCoverage {
  std::string use;  ///< calibrate, validate or all
  int n = 0, inside = 0;
};

struct ValidationReport {
  std::vector<CaseResult> cases;
  std::vector<ErrorSummary> groups;  ///< one per source group, then "all"
  std::vector<MemoryBandCoverage> band_coverage;
  size_t excluded = 0;
};

/// Runs the memory cases (JSONL text, one case per line) and summarises the errors.
ValidationReport validate_memory(std::string_view cases_jsonl, const Catalog& catalog);

}  // namespace gpusizer
