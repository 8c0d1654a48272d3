#pragma once
// Deriving the speed bands (gpusizer/speed_bands.h) from a speed validation, and checking them.
#include <string>
#include <vector>

#include "gpusizer/calibrate.h"
#include "gpusizer/speed_bands.h"

namespace gpusizer {

/// Per kind of figure (and per engine with enough rows), the k-th smallest and k-th largest rate
/// error over the validation's n check-half rows (out of sample), k = max(1, floor(0.05 (n + 1))).
SpeedBands derive_speed_bands(const std::vector<PreparedCase>& cases, const SpeedValidation& v,
                              const std::string& date);

/// How many measurements of a kind lie inside their band, per use (calibrate, validate, all); a
/// check-half row against the bands drawn without its source group (leave one source out).
struct BandCoverage {
  std::string kind, use;
  int n = 0, inside = 0;
};

std::vector<BandCoverage> band_coverage(const std::vector<PreparedCase>& cases,
                                        const SpeedValidation& v, const SpeedBands& bands);

/// derive_speed_bands over the shipped throughput cases: what data/speed_bands.json holds.
SpeedBands derive_shipped_speed_bands(const Catalog& catalog, const std::string& date);

}  // namespace gpusizer
