#pragma once
// A scenario as the estimate reads it: parsed from its JSON and resolved (estimate/layout.h:
// the layout and memory fraction derived) against the built-in catalog. One helper for the
// tests of the estimators' parts.
#include <nlohmann/json.hpp>

#include "estimate/layout.h"
#include "gpusizer/catalog.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer::testing {

inline Scenario resolved_scenario(const nlohmann::json& scenario) {
  const Catalog& catalog = Catalog::builtin();
  return resolved(parse_scenario(scenario, catalog), catalog);
}

}  // namespace gpusizer::testing
