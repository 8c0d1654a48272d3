// The library's own way to ready a speed case: parse_scenario, then estimate() for the memory
// figures (memory.max_batch) that max_output_tokens_per_s needs.
#include "gpusizer/calibrate.h"
#include "gpusizer/estimate.h"
#include "gpusizer/scenario.h"

namespace gpusizer {
std::vector<PreparedCase> prepare_speed_cases(const std::vector<SpeedCase>& cases,
                                              const Catalog& catalog) {
  return prepare_speed_cases(cases, catalog, [](PreparedCase& c, const Catalog& cat) {
    Scenario s = resolve_scenario(c.spec.scenario, cat);
    c.base = estimate(s, cat);
    c.base.performance.reset();
    c.scenario = std::move(s);
  });
}

}  // namespace gpusizer

namespace gpusizer {

nlohmann::json validate_speed_shipped(const Catalog& catalog) {
  const auto cases = read_speed_cases(catalog.throughput_cases());
  return to_json(validate_speed(prepare_speed_cases(cases, catalog), catalog, catalog.speed()));
}

}  // namespace gpusizer
