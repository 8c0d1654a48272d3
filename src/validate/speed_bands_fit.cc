// Bands of the speed figures from the validation errors, and how many measurements fall inside
// them (gpusizer/speed_bands.h).
#include "gpusizer/speed_bands_fit.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "gpusizer/validation.h"

namespace gpusizer {
namespace {

// Fewer rows than these give percentiles too coarse to stand for a kind or an engine: 10th and
// 90th percentiles of 8 rows already interpolate between the two extreme pairs.
constexpr int kMinKindRows = 8;
constexpr int kMinEngineRows = 10;

struct RowError {
  std::string kind, engine, use;
  double measured = 0, predicted = 0;
  FigureKind figure;
};

// Every validated row with a prediction and a figure kind, with the engine of its scenario.
std::vector<RowError> row_errors(const std::vector<PreparedCase>& cases, const SpeedValidation& v) {
  std::map<std::string, std::string> engine_of;
  for (const auto& c : cases)
    if (c.scenario) engine_of[c.spec.id] = c.scenario->engine;
  std::vector<RowError> out;
  for (const auto& row : v.rows) {
    if (!row.contains("predicted")) continue;
    const auto kind = figure_kind(row.value("compare", ""));
    const auto engine = engine_of.find(row.value("id", ""));
    if (!kind || engine == engine_of.end()) continue;
    out.push_back({std::string(kind->kind), engine->second, row.value("use", ""),
                   row.value("measured", 0.0), row.value("predicted", 0.0), *kind});
  }
  return out;
}

// predicted rate / measured rate - 1, for rates and times alike.
double rate_error(const RowError& r) {
  return r.figure.is_time ? r.measured / r.predicted - 1 : r.predicted / r.measured - 1;
}

SpeedBand band_from(const std::string& kind, const std::string& engine,
                    const std::vector<double>& errors) {
  return {kind, engine, quantile(errors, 0.1), quantile(errors, 0.9),
          static_cast<int>(errors.size())};
}

}  // namespace

SpeedBands derive_speed_bands(const std::vector<PreparedCase>& cases, const SpeedValidation& v,
                              const std::string& date) {
  std::map<std::string, std::vector<double>> by_kind;
  std::map<std::pair<std::string, std::string>, std::vector<double>> by_engine;
  for (const RowError& r : row_errors(cases, v)) {
    if (r.use != "calibrate" || !(r.predicted > 0) || !(r.measured > 0)) continue;
    by_kind[r.kind].push_back(rate_error(r));
    by_engine[{r.kind, r.engine}].push_back(rate_error(r));
  }
  SpeedBands bands;
  bands.source =
      "gpusizer validate --bands: 10th and 90th percentiles of the rate error on the "
      "calibration rows of data/validation/throughput_cases.jsonl (engines with at least " +
      std::to_string(kMinEngineRows) + " rows get their own band, kinds need " +
      std::to_string(kMinKindRows) + ")";
  bands.date = date;
  for (const auto& [kind, errors] : by_kind) {
    if (static_cast<int>(errors.size()) < kMinKindRows) continue;
    bands.bands_.push_back(band_from(kind, "*", errors));
    for (const auto& [key, engine_errors] : by_engine)
      if (key.first == kind && static_cast<int>(engine_errors.size()) >= kMinEngineRows)
        bands.bands_.push_back(band_from(kind, key.second, engine_errors));
  }
  return bands;
}

std::vector<BandCoverage> band_coverage(const std::vector<PreparedCase>& cases,
                                        const SpeedValidation& v, const SpeedBands& bands) {
  std::map<std::pair<std::string, std::string>, BandCoverage> tally;
  for (const RowError& r : row_errors(cases, v)) {
    const SpeedBand* band = bands.find(r.kind, r.engine);
    if (!band) continue;
    const auto [low, high] = band_of(r.predicted, r.figure, *band);
    for (const std::string& use : {r.use, std::string("all")}) {
      BandCoverage& c = tally[{r.kind, use}];
      c.kind = r.kind;
      c.use = use;
      ++c.n;
      c.inside += r.measured >= low && r.measured <= high;
    }
  }
  std::vector<BandCoverage> out;
  for (const auto& [key, c] : tally) out.push_back(c);
  return out;
}

}  // namespace gpusizer
