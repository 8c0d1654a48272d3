#pragma once
// Speed: roofline estimates of serving (prefill, decode) and training (step time, MFU) from
// FLOPs, bytes, the GPU's rates and calibrated efficiencies (data/speed.json, docs/speed.md).
#include <map>
#include <string>
#include <vector>

#include "gpusizer/estimate.h"
#include "gpusizer/speed_profile.h"

namespace gpusizer {

/// Fills the speed figures for a scenario with a GPU, using the memory estimate for the batch
/// that fits. Adds warnings and basis entries to `estimate`.
PerformanceEstimate estimate_speed(const Scenario& scenario, const Catalog& catalog,
                                   Estimate& estimate);

/// The same with an explicit speed profile (calibration, user profiles).
PerformanceEstimate estimate_speed(const Scenario& scenario, const Catalog& catalog,
                                   Estimate& estimate, const SpeedProfile& profile);

}  // namespace gpusizer
