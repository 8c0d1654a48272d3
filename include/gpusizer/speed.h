#pragma once
// Speed: roofline estimates of serving (prefill, decode) and training (step time, MFU) from
// FLOPs, bytes, the GPU's rates and calibrated efficiencies (data/speed.json, docs/speed.md).
#include <map>
#include <string>
#include <vector>

#include "gpusizer/catalog.h"
#include "gpusizer/explanations.h"
#include "gpusizer/memory_estimate.h"
#include "gpusizer/performance_estimate.h"
#include "gpusizer/scenario.h"
#include "gpusizer/speed_profile.h"

namespace gpusizer {

/// The speed figures for a scenario with a GPU, using the memory estimate for the batch that
/// fits (its max_batch and KV capacity), with an explicit speed profile (calibration, user
/// profiles). Warnings and basis entries go to `why`; null builds no text (numbers only).
PerformanceEstimate estimate_speed(const Scenario& scenario, const Catalog& catalog,
                                   const MemoryEstimate& memory, Explanations* why,
                                   const SpeedProfile& profile);

/// The same with the catalog's speed profile.
PerformanceEstimate estimate_speed(const Scenario& scenario, const Catalog& catalog,
                                   const MemoryEstimate& memory, Explanations* why);

}  // namespace gpusizer
