#pragma once
// Reading a scenario's catalog lookups (ScenarioLookups, gpusizer/scenario.h): each accessor
// checks the key and falls back to the lookup by name when the scenario was edited after it was
// resolved, or is estimated with another catalog or speed profile.
#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"

namespace gpusizer {

/// Looks up s.lookups in `catalog` for the scenario's engine, GPU and weights format, and counts
/// its model. Without `speed` (the advisor's edited candidates), the engine profile only, and the
/// model's counts are kept as they are. An engine the catalog does not know leaves the entries
/// empty (the estimators then name it).
void resolve_lookups(Scenario& s, const Catalog& catalog, bool speed = true);

/// The scenario's engine profile: the resolved one when it is still the scenario's, else
/// catalog.engine(s.engine).
inline const EngineProfile& engine_profile(const Scenario& s, const Catalog& catalog) {
  const ScenarioLookups& l = s.lookups;
  if (l.catalog == &catalog && l.engine && l.engine->name == s.engine) return *l.engine;
  return catalog.engine(s.engine);
}

/// The resolved speed-profile entries when they were looked up in `profile` for the scenario's
/// current engine, GPU and weights format; nullptr otherwise (look them up in `profile`).
inline const ScenarioLookups* speed_lookups(const Scenario& s, const SpeedProfile& profile) {
  const ScenarioLookups& l = s.lookups;
  if (!l.speed || &l.catalog->speed() != &profile || l.gpu.get() != s.gpu.get() ||
      l.engine->name != s.engine || l.weights_id != s.weights.id ||
      l.weights_kind != s.weights.kind)
    return nullptr;
  return &l;
}

/// The model's counts as resolved with the scenario while its model is the one they were
/// counted from; nullptr otherwise (count them). The check compares every field of the model, so
/// read it once per estimator and pass the counts on.
inline const ModelFacts* model_facts(const Scenario& s) {
  const auto& f = s.lookups.model;
  return f && f->model == s.model ? f.get() : nullptr;
}

}  // namespace gpusizer
