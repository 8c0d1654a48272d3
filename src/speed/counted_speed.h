#pragma once
// estimate_speed (gpusizer/speed.h) with the model already counted: estimate() counts the model
// once per call (memory/model_counts.h) and passes the counts to memory and speed.
#include "gpusizer/speed.h"
#include "memory/model_counts.h"

namespace gpusizer {

/// estimate_speed with the catalog's speed profile and `counts` = count_model(scenario), written
/// into `perf` (default-constructed; the scenario has a GPU): estimate() fills its own optional in
/// place instead of moving a whole PerformanceEstimate into it.
void estimate_speed(const Scenario& scenario, const Catalog& catalog, const MemoryEstimate& memory,
                    const ModelCounts& counts, Explanations* why, PerformanceEstimate& perf);

}  // namespace gpusizer
