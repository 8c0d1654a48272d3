// The library's own way to ready a speed case: resolve_scenario, then the numbers-only memory
// estimate (memory.max_batch, the KV pool) that max_output_tokens_per_s needs.
#include "gpusizer/calibrate.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/calibrate.h"
#include "gpusizer/json/scenario.h"
#include "gpusizer/scenario.h"
#include "gpusizer/speed_bands_fit.h"

namespace gpusizer {
std::vector<PreparedCase> prepare_speed_cases(const std::vector<SpeedCase>& cases,
                                              const Catalog& catalog) {
  return prepare_speed_cases(cases, catalog, [](PreparedCase& c, const Catalog& cat) {
    Scenario s = resolve_scenario(c.spec.scenario, cat);
    c.memory = estimate(s, cat, Detail::kMemory).memory;
    c.scenario = std::move(s);
  });
}

}  // namespace gpusizer

namespace gpusizer {

nlohmann::json validate_speed_shipped(const Catalog& catalog) {
  const auto cases = prepare_speed_cases(read_speed_cases(catalog.throughput_cases()), catalog);
  const SpeedValidation v = validate_speed(cases, catalog, catalog.speed());
  nlohmann::json out = to_json(v);
  out["band_coverage"] = nlohmann::json::array();
  for (const auto& c : band_coverage(cases, v, catalog.speed_bands()))
    out["band_coverage"].push_back({{"kind", c.kind},
                                    {"use", c.use},
                                    {"n", c.n},
                                    {"inside", c.inside},
                                    {"share", static_cast<double>(c.inside) / c.n}});
  return out;
}

SpeedBands derive_shipped_speed_bands(const Catalog& catalog, const std::string& date) {
  const auto cases = prepare_speed_cases(read_speed_cases(catalog.throughput_cases()), catalog);
  return derive_speed_bands(cases, validate_speed(cases, catalog, catalog.speed()), date);
}

}  // namespace gpusizer
