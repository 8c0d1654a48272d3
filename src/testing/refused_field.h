#pragma once
// The field a scenario is refused on: parse_scenario's InputError names it (exit 2 in the CLI),
// or "accepted" when the scenario parses. One helper for the tests of each refusal.
#include <nlohmann/json.hpp>
#include <string>

#include "gpusizer/catalog.h"
#include "gpusizer/error.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer::testing {

inline std::string refused_field(const nlohmann::json& scenario) {
  try {
    parse_scenario(scenario, Catalog::builtin());
  } catch (const InputError& e) {
    return e.field();
  }
  return "accepted";
}

}  // namespace gpusizer::testing
