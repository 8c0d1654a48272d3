// Bands of the speed figures from the validation errors, and how many measurements fall inside
// them (gpusizer/speed_bands.h).
#include "gpusizer/speed_bands_fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include "estimate/bands.h"
#include "gpusizer/validation.h"

namespace gpusizer {
namespace {

// Fewer rows than these are too few to stand for a kind or an engine.
constexpr int kMinKindRows = 8;
constexpr int kMinEngineRows = 10;
// Share of new measurements a band aims to hold.
constexpr double kCoverage = 0.9;

struct RowError {
  std::string kind, engine, use, group;
  bool moe = false;  ///< a training row of a mixture-of-experts model: drawn into "/moe" bands
  double measured = 0, predicted = 0;
  FigureKind figure;
  std::optional<std::pair<double, double>> band;  ///< the estimate's own band, where it drew one
  double room = 0;  ///< how many times faster the hardware lets the figure go (0: unknown)
};

// Every validated row with a prediction and a figure kind, with the engine of its scenario.
std::vector<RowError> row_errors(const std::vector<PreparedCase>& cases, const SpeedValidation& v) {
  std::map<std::string, std::string> engine_of;
  std::map<std::string, bool> moe_of;
  for (const auto& c : cases)
    if (c.scenario) {
      engine_of[c.spec.id] = c.scenario->engine;
      moe_of[c.spec.id] = c.scenario->model->is_moe();
    }
  std::vector<RowError> out;
  for (const auto& row : v.rows) {
    if (!row.contains("predicted")) continue;
    const auto kind = figure_kind(row.value("compare", ""));
    const auto engine = engine_of.find(row.value("id", ""));
    if (!kind || engine == engine_of.end()) continue;
    RowError e{std::string(kind->kind),
               engine->second,
               row.value("use", ""),
               row.value("group", ""),
               kind->kind == "training" && moe_of[engine->first],
               row.value("measured", 0.0),
               row.value("predicted", 0.0),
               *kind,
               std::nullopt};
    if (const auto b = row.find("band"); b != row.end() && b->is_array() && b->size() == 2)
      e.band = std::pair{(*b)[0].get<double>(), (*b)[1].get<double>()};
    e.room = row.value("room", 0.0);
    out.push_back(std::move(e));
  }
  return out;
}

// predicted rate / measured rate - 1, for rates and times alike.
double rate_error(const RowError& r) {
  return r.figure.is_time ? r.measured / r.predicted - 1 : r.predicted / r.measured - 1;
}

// Distribution-free prediction interval from order statistics (Wilks 1941, "Determination of
// sample sizes for setting tolerance limits"; split conformal prediction, Lei et al. 2018,
// "Distribution-free predictive inference for regression", sec. 2.2): for n exchangeable errors
// sorted e(1) <= ... <= e(n), a new error falls in [e(k), e(n+1-k)] with probability
// (n + 1 - 2k) / (n + 1). k is the largest rank that keeps this at kCoverage or more, at least 1
// (the rows' whole range, which holds (n - 1) / (n + 1) of new errors when n is small).
// Percentiles (the 10th to 90th, before session 14) hold 80% of the rows that draw them by
// construction, and fewer of new ones.
int outer_rank(size_t n) {
  // 1e-9 keeps an exact whole product whole: (1 - 0.9) / 2 is 0.04999... in binary, so 39 rows'
  // rank 2 came out 1.
  const double k = std::floor((1 - kCoverage) / 2 * static_cast<double>(n + 1) + 1e-9);
  return std::max(1, static_cast<int>(k));
}

SpeedBand band_from(const std::string& kind, const std::string& engine,
                    std::vector<double> errors) {
  std::sort(errors.begin(), errors.end());
  const auto k = static_cast<size_t>(outer_rank(errors.size()));
  return {kind, engine, errors[k - 1], errors[errors.size() - k], static_cast<int>(errors.size())};
}

// The rows a band is drawn from: the check half's. Their errors are out of sample: the
// calibration fitted its figures to the other half, whose errors it made small, so bands drawn
// from those held about three quarters of the check half's throughput rows, not 90% (session
// 26). The check half's sources stand for a user's own set-up, a source the fit never saw
// (split conformal prediction: the residuals come from data the fit did not use, Lei et al.
// 2018 sec. 2.2). Rows whose estimate drew its own band (the load figures') are not errors of
// the kind's band and stay out of it.
bool draws_bands(const RowError& r) {
  return r.use == "validate" && !r.band && r.predicted > 0 && r.measured > 0;
}

// The bands of the rows that draw them, leaving out one source group (none when empty). A
// mixture-of-experts model's training rows draw bands of their own, "*/moe" and "ENGINE/moe"
// (session 32: their errors span -67% to +279% where dense models' span -15% to +39%, and one
// band for both made every dense estimate's band as wide as theirs).
std::vector<SpeedBand> bands_of(const std::vector<RowError>& rows, const std::string& left_out) {
  const std::string moe = "/moe";
  std::map<std::pair<std::string, std::string>, std::vector<double>> by_kind;  // kind, "*"-key
  std::map<std::pair<std::string, std::string>, std::vector<double>> by_engine;
  for (const RowError& r : rows) {
    if (!draws_bands(r) || (!left_out.empty() && r.group == left_out)) continue;
    const std::string suffix = r.moe ? moe : std::string();
    by_kind[{r.kind, "*" + suffix}].push_back(rate_error(r));
    by_engine[{r.kind, r.engine + suffix}].push_back(rate_error(r));
  }
  std::vector<SpeedBand> out;
  for (const auto& [kind_key, errors] : by_kind) {
    if (static_cast<int>(errors.size()) < kMinKindRows) continue;
    const auto& [kind, any] = kind_key;
    out.push_back(band_from(kind, any, errors));
    const bool moe_kind = any.ends_with(moe);
    for (const auto& [key, engine_errors] : by_engine)
      if (key.first == kind && key.second.ends_with(moe) == moe_kind &&
          static_cast<int>(engine_errors.size()) >= kMinEngineRows)
        out.push_back(band_from(kind, key.second, engine_errors));
  }
  return out;
}

}  // namespace

SpeedBands derive_speed_bands(const std::vector<PreparedCase>& cases, const SpeedValidation& v,
                              const std::string& date) {
  SpeedBands bands;
  bands.source =
      "gpusizer validate --bands: the k-th smallest and k-th largest rate error of the n "
      "check-half rows of data/validation/throughput_cases.jsonl (out of sample: the "
      "calibration fits the other half), k = max(1, floor(0.05 (n + 1))): a distribution-free "
      "interval that holds at least 90% of new errors when n >= 19 and (n - 1) / (n + 1) below "
      "(Wilks 1941; split conformal prediction, Lei et al. 2018) (engines with at least " +
      std::to_string(kMinEngineRows) + " rows get their own band, kinds need " +
      std::to_string(kMinKindRows) + ")";
  bands.date = date;
  bands.bands_ = bands_of(row_errors(cases, v), "");
  return bands;
}

std::vector<BandCoverage> band_coverage(const std::vector<PreparedCase>& cases,
                                        const SpeedValidation& v, const SpeedBands& bands) {
  std::map<std::pair<std::string, std::string>, BandCoverage> tally;
  const std::vector<RowError> rows = row_errors(cases, v);
  // A check-half row is measured against the bands its own source did not help draw (leave
  // one source out, the jackknife+ of Barber et al. 2021 with a source as the unit, as Dunn,
  // Wasserman and Ramdas 2022 treat grouped data): the share inside is what a user's new
  // set-up can expect, not the in-sample share of the rows that drew the band. The other rows
  // (the calibration half, the load figures' own bands) never drew a band.
  std::map<std::string, SpeedBands> without_source;
  for (const RowError& r : rows) {
    const SpeedBands* drawn = &bands;
    if (draws_bands(r)) {
      auto [it, added] = without_source.try_emplace(r.group);
      if (added) it->second.bands_ = bands_of(rows, r.group);
      drawn = &it->second;
    }
    const SpeedBand* band = drawn->find(r.kind, r.engine, r.moe);
    if (!band) continue;
    // The estimate's own band where it drew one (the load figures'), else the kind's around the
    // prediction, as the estimate draws it (estimate/bands.cc).
    // Held where the hardware allows no more, as the estimate holds it (estimate/bands.cc).
    const auto [low, high] =
        r.band ? *r.band
               : held_to_room(band_of(r.predicted, r.figure, *band), r.predicted, r.figure, r.room);
    // The calibration rows at the band's edges made it; a rounding of the estimate's sums in the
    // last bit must not count them outside.
    const double slack = 1e-9 * r.measured;
    const bool inside = r.measured >= low - slack && r.measured <= high + slack;
    for (const std::string& use : {r.use, std::string("all")}) {
      BandCoverage& c = tally[{r.kind, use}];
      c.kind = r.kind;
      c.use = use;
      ++c.n;
      c.inside += inside;
    }
  }
  std::vector<BandCoverage> out;
  for (const auto& [key, c] : tally) out.push_back(c);
  return out;
}

}  // namespace gpusizer
