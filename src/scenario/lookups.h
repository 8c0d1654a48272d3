#pragma once
// Reading a scenario's catalog lookups (ScenarioLookups, gpusizer/scenario.h): each accessor
// checks the key and falls back to the lookup by name when the scenario was edited after it was
// resolved, or is estimated with another catalog or speed profile.
#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"

namespace gpusizer {

/// Looks up s.lookups in `catalog` for the scenario's engine, GPU and weights format. Without
/// `speed` (the advisor's edited candidates), the engine profile only. An engine the catalog does
/// not know leaves the entries empty (the estimators then name it).
void resolve_lookups(Scenario& s, const Catalog& catalog, bool speed = true);

/// The scenario's engine profile: the resolved one when it is still the scenario's, else
/// catalog.engine(s.engine).
inline const EngineProfile& engine_profile(const Scenario& s, const Catalog& catalog) {
  const ScenarioLookups& l = s.lookups;
  if (l.catalog == &catalog && l.engine && l.engine->name == s.engine) return *l.engine;
  return catalog.engine(s.engine);
}

/// engine.release(s.engine_version) for `engine` = engine_profile(s, catalog): the resolved
/// release while it is still that engine's and the scenario's version, else looked up by version.
inline const EngineRelease& engine_release(const Scenario& s, const EngineProfile& engine) {
  const ScenarioLookups& l = s.lookups;
  if (l.release && l.engine == &engine && l.release->version == s.engine_version) return *l.release;
  return engine.release(s.engine_version);
}

/// The resolved speed-profile entries when they were looked up in `profile` for the scenario's
/// current engine, GPU and weights format; nullptr otherwise (look them up in `profile`).
inline const ScenarioLookups* speed_lookups(const Scenario& s, const SpeedProfile& profile) {
  const ScenarioLookups& l = s.lookups;
  if (!l.speed || &l.catalog->speed() != &profile || l.gpu.get() != s.gpu.get() ||
      l.engine->name != s.engine || l.weights.get() != s.weights.get())
    return nullptr;
  return &l;
}

}  // namespace gpusizer
