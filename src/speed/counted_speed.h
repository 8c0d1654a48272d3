#pragma once
// estimate_speed (gpusizer/speed.h) with the model already counted: estimate() counts the model
// once per call (memory/model_counts.h) and passes the counts to memory and speed.
#include "gpusizer/speed.h"
#include "memory/model_counts.h"
#include "speed/training_speed.h"

namespace gpusizer {

/// estimate_speed with the catalog's speed profile, `engine` = engine_profile(scenario, catalog)
/// and `counts` = count_model(scenario), written into `perf` (default-constructed; the scenario
/// has a GPU): estimate() looks the engine up and counts the model once for memory and speed, and
/// fills its own optional in place instead of moving a whole PerformanceEstimate into it. A
/// search passes its `memo` (ModuleSumsMemo, training_speed.h).
void estimate_speed(const Scenario& scenario, const Catalog& catalog, const EngineProfile& engine,
                    const MemoryEstimate& memory, const ModelCounts& counts, Explanations* why,
                    PerformanceEstimate& perf, ModuleSumsMemo* memo = nullptr);

/// The same without a training step's split by part (step_breakdown_s, made with `why`): an
/// answer that leaves the performance out (a setup that does not fit) does not write it (issue
/// 18: ~570 instructions such a training line). A function of its own, not a flag: the
/// numbers-only estimates pass no more arguments for it.
void estimate_speed_without_breakdown(const Scenario& scenario, const Catalog& catalog,
                                      const EngineProfile& engine, const MemoryEstimate& memory,
                                      const ModelCounts& counts, Explanations* why,
                                      PerformanceEstimate& perf, ModuleSumsMemo* memo);

}  // namespace gpusizer
