#pragma once
// The engine of a scenario: the one it names, or the default for its task, GPU and weights
// (engines.json "defaults"); its release; warnings for knobs the engine does not have.
#include <nlohmann/json.hpp>

#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"
#include "scenario/scenario_fields.h"

namespace gpusizer {

/// Sets s.engine (canonical name), s.engine_version and s.engine_basis from `input` ("engine",
/// "engine_version"), the task, the weights and the model already in `s`. Throws InputError for
/// an unknown engine or version, or an engine that does not run the task. Returns the engine's
/// profile (catalog.engine(s.engine)). A serving scenario that names no engine has its GPU
/// ("gpu") looked up here for the default engine: it is set in s.gpu, so that the system's
/// fields do not look it up again.
const EngineProfile& resolve_engine(const ScenarioFields& input, const Catalog& catalog,
                                    Scenario& s);

/// Throws the InputError resolve_engine throws for an engine that does not run the task.
void check_engine_runs_task(const EngineProfile& engine, const Scenario& s);

/// For an edited scenario (scenario_edit.h) whose input named no engine: the default for its
/// task, weights and GPU, and its release (the one named, else the newest), as resolve_engine
/// chooses them. Throws as resolve_engine does. A named engine is left as it is.
void rederive_engine(const Catalog& catalog, bool engine_given, bool version_given, Scenario& s);

/// For the advisor: a serving scenario whose engine was the default takes the default for `gpu`
/// instead (llama.cpp on Apple, vLLM on NVIDIA); true when it did. Other scenarios are unchanged.
bool retarget_default_engine(Scenario& s, const Gpu& gpu, const Catalog& catalog);

/// The engine `s` runs on `gpu`: the one retarget_default_engine would leave it with, without
/// copying the scenario (the advisor's catalog filter asks it of every GPU).
const EngineProfile& engine_on(const Scenario& s, const Gpu& gpu, const Catalog& catalog);

/// Notes for knobs in `input` that `engine` (the scenario's) ignores (gpu_memory_utilization
/// under hf, ...).
void note_ignored_knobs(const ScenarioFields& input, const Catalog& catalog,
                        const EngineProfile& engine, Scenario& s);

}  // namespace gpusizer
