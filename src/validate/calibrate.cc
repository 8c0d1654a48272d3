#include "gpusizer/calibrate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>

#include "estimate/bands.h"
#include "gpusizer/error.h"
#include "gpusizer/json/calibrate.h"
#include "gpusizer/speed.h"
#include "speed/training_speed.h"

namespace gpusizer {
namespace {

std::optional<double> pick(const PerformanceEstimate& p, const std::string& key) {
  const std::optional<double>* figure = performance_figure(p, key);
  return figure ? *figure : std::nullopt;
}

double loss(const std::vector<const PreparedCase*>& rows, const Catalog& catalog,
            const SpeedProfile& profile) {
  double sum = 0;
  for (const PreparedCase* c : rows) {
    const auto p = predict_case(*c, catalog, profile);
    // A missing or non-positive prediction counts as a factor-of-e^3 miss.
    const double e = p && *p > 0 && std::isfinite(*p) ? std::log(*p / c->spec.measured) : 3.0;
    sum += e * e;
  }
  return rows.empty() ? 0 : sum / static_cast<double>(rows.size());
}

}  // namespace

std::vector<SpeedCase> read_speed_cases(std::string_view jsonl, std::string_view default_use) {
  std::vector<SpeedCase> cases;
  std::istringstream in{std::string(jsonl)};
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = "throughput_cases line " + std::to_string(n);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(where, std::string("is not valid JSON: ") + e.what(), "bad_file");
    }
    try {
      SpeedCase c;
      c.id = j.at("id").get<std::string>();
      c.group = j.value("group", "");
      c.compare = j.at("compare").get<std::string>();
      c.measured = j.at("measured").get<double>();
      c.include = j.value("include", true);
      c.use = j.value("use", std::string(default_use));
      c.notes = j.value("notes", "");
      c.exclude_reason = j.value("exclude_reason", "");
      c.scenario = j.at("scenario");
      if (c.measured <= 0) throw InputError(where + ": measured", "must be positive", "bad_file");
      cases.push_back(std::move(c));
    } catch (const nlohmann::json::exception& e) {
      throw InputError(where, e.what(), "bad_file");
    }
  }
  return cases;
}

std::vector<PreparedCase> prepare_speed_cases(const std::vector<SpeedCase>& cases,
                                              const Catalog& catalog, const CasePreparer& prepare) {
  std::vector<PreparedCase> out;
  out.reserve(cases.size());
  for (const auto& spec : cases) {
    PreparedCase c;
    c.spec = spec;
    if (spec.include) {
      try {
        prepare(c, catalog);
      } catch (const std::exception& e) {
        c.scenario.reset();
        c.error = e.what();
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<double> predict_case(const PreparedCase& c, const Catalog& catalog,
                                   const SpeedProfile& profile, std::pair<double, double>* band,
                                   double* room) {
  if (!c.scenario) return std::nullopt;
  const PerformanceEstimate p = estimate_speed(*c.scenario, catalog, c.memory, nullptr, profile);
  // A band the speed estimate drew itself (the load figures', from the load model at the band's
  // edges); the others are the kind's band around the prediction (speed_bands_fit.cc).
  if (band)
    if (const auto* b = p.bands.find(c.spec.compare)) *band = *b;
  if (room) *room = hardware_room(p, c.spec.compare, mfu_ceiling(*c.scenario, profile));
  if (c.spec.compare == "e2e_output_tokens_per_s") {
    // One timed generate() of a fixed batch (vLLM benchmarks/benchmark_latency.py): the prefill
    // of every prompt, then output_len decode steps; tokens out / that latency.
    if (!p.ttft_ms || !p.tpot_ms) return std::nullopt;
    const double batch = static_cast<double>(std::max<int64_t>(1, c.scenario->batch));
    const double out = static_cast<double>(std::max<int64_t>(1, c.scenario->output_len));
    return batch * out / ((*p.ttft_ms + out * *p.tpot_ms) * 1e-3);
  }
  return pick(p, c.spec.compare);
}

SpeedValidation validate_speed(const std::vector<PreparedCase>& cases, const Catalog& catalog,
                               const SpeedProfile& profile) {
  SpeedValidation v;
  v.rows = nlohmann::json::array();
  // (group, metric, use) -> signed errors; "" group = all groups, "all" use = both sides.
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<double>> err;
  for (const auto& c : cases) {
    if (!c.spec.include) continue;
    nlohmann::json row = {{"id", c.spec.id},
                          {"group", c.spec.group},
                          {"compare", c.spec.compare},
                          {"use", c.spec.use},
                          {"measured", c.spec.measured}};
    std::pair<double, double> band{0, 0};
    double room = 0;
    const auto p = predict_case(c, catalog, profile, &band, &room);
    if (!p || !std::isfinite(*p)) {
      ++v.failed;
      row["error"] = c.error.empty() ? "not estimated" : c.error;
      v.rows.push_back(row);
      continue;
    }
    const double e = *p / c.spec.measured - 1.0;
    row["predicted"] = *p;
    row["rel_error"] = e;
    if (band.second > 0) row["band"] = {band.first, band.second};
    if (room > 0) row["room"] = room;
    v.rows.push_back(row);
    // Per source and metric, per metric over every source, and every metric together (the
    // check half's overall median that issue 14's aims are stated on).
    for (const auto& [g, metric] :
         {std::pair{c.spec.group, c.spec.compare}, std::pair{std::string(), c.spec.compare},
          std::pair{std::string(), std::string("all metrics")}})
      for (const std::string& u : {c.spec.use, std::string("all")})
        err[{g, metric, u}].push_back(e);
  }
  for (const auto& [key, errors] : err) {
    ErrorSummary s = summarize(std::get<0>(key), errors);
    s.metric = std::get<1>(key);
    s.use = std::get<2>(key);
    v.stats.push_back(std::move(s));
  }
  return v;
}

nlohmann::json to_json(const SpeedValidation& v) {
  nlohmann::json summary = nlohmann::json::array();
  for (const auto& s : v.stats)
    summary.push_back({{"group", s.group.empty() ? "(all)" : s.group},
                       {"metric", s.metric},
                       {"use", s.use},
                       {"n", s.n},
                       {"median_abs_error", s.median},
                       {"p90_abs_error", s.p90},
                       {"max_abs_error", s.max},
                       {"median_error", s.bias}});
  return {{"summary", summary}, {"rows", v.rows}, {"failed", v.failed}};
}

CalibrationResult calibrate_speed(const std::vector<PreparedCase>& cases, const Catalog& catalog,
                                  const SpeedProfile& start) {
  CalibrationResult r;
  nlohmann::json doc = start.doc();
  std::vector<const PreparedCase*> rows;
  for (const auto& c : cases)
    if (c.spec.include && c.spec.use == "calibrate" && c.scenario) rows.push_back(&c);
  r.n = static_cast<int>(rows.size());
  r.loss_before = loss(rows, catalog, start);
  const auto& cal = doc.contains("calibration") ? doc.at("calibration") : nlohmann::json::object();
  const int sweeps = cal.value("sweeps", 3);
  const nlohmann::json params = cal.value("parameters", nlohmann::json::array());
  auto eval = [&](const nlohmann::json::json_pointer& ptr, double x) {
    nlohmann::json trial = doc;
    trial[ptr] = x;
    return loss(rows, catalog, SpeedProfile::from_json(trial));
  };
  double best = r.loss_before;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    for (const auto& p : params) {
      const nlohmann::json::json_pointer ptr(p.at("path").get<std::string>());
      double lo = p.at("min").get<double>(), hi = p.at("max").get<double>();
      // Golden-section search (Kiefer 1953) on [lo, hi], 30 steps: interval x 0.618^30.
      const double g = (std::sqrt(5.0) - 1.0) / 2.0;
      double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
      double fa = eval(ptr, a), fb = eval(ptr, b);
      for (int i = 0; i < 30; ++i) {
        if (fa < fb) {
          hi = b, b = a, fb = fa;
          a = hi - g * (hi - lo);
          fa = eval(ptr, a);
        } else {
          lo = a, a = b, fa = fb;
          b = lo + g * (hi - lo);
          fb = eval(ptr, b);
        }
      }
      const double x = fa < fb ? a : b, fx = std::min(fa, fb);
      if (fx < best) {  // keep the old value unless the search found better
        doc[ptr] = x;
        best = fx;
      }
    }
  }
  for (const auto& p : params) {
    const nlohmann::json::json_pointer ptr(p.at("path").get<std::string>());
    if (doc.contains(ptr)) r.fitted.emplace_back(ptr.to_string(), doc.at(ptr).get<double>());
  }
  r.loss_after = best;
  r.profile = doc;
  return r;
}

}  // namespace gpusizer
