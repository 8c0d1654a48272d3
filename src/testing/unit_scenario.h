#pragma once
// Scenarios for the unit tests of one estimator part, built straight from the built-in catalog
// without the parser's defaults, so that each test states every field its figure depends on.
#include <string_view>

#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"

namespace gpusizer {

// The fields every such test names; the others keep Scenario's defaults and the test sets them.
struct UnitScenario {
  std::string_view model = {};
  std::string_view weights = "bf16";   ///< a format of the catalog's "weights" kind
  std::string_view kv_cache = "bf16";  ///< a format of the catalog's "kv" kind
  Task task = Task::kInference;
  std::string_view engine = "hf";
  std::string_view gpu = {};  ///< empty: no GPU, as in a memory-only estimate
};

inline Scenario unit_scenario(const UnitScenario& u) {
  const Catalog& cat = Catalog::builtin();
  Scenario s;
  s.model = cat.model(u.model);
  if (!u.gpu.empty()) s.gpu = cat.gpu(u.gpu);
  s.weights = cat.format_ref(u.weights, "weights", "weights");
  s.kv_cache = cat.format_ref(u.kv_cache, "kv", "kv_cache");
  s.task = u.task;
  s.engine = std::string(u.engine);
  return s;
}

}  // namespace gpusizer
