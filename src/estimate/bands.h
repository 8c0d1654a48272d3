#pragma once
// Bands on the speed, time and cost figures of an estimate (gpusizer/speed_bands.h).
#include "gpusizer/cost.h"
#include "gpusizer/explanations.h"
#include "gpusizer/performance_estimate.h"
#include "gpusizer/scenario.h"
#include "gpusizer/speed_bands.h"

namespace gpusizer {

/// Sets the bands of the speed figures `p` and of the cost figures `cost` (from the band of the
/// throughput they divide by) from the bands of the scenario's engine; explains them in
/// why->basis under "bands" (no text when `why` is null). Without `set_bands`, only the text: an
/// answer that leaves the speed and cost figures out (a setup that does not fit) writes it alone.
/// A training step's bands stop where its MFU would pass `mfu_ceiling` (mfu_ceiling() of
/// speed/training_speed.h; 0: no ceiling), and the text says so.
void add_speed_bands(const Scenario& s, const SpeedBands& bands, PerformanceEstimate& p,
                     CostEstimate& cost, Explanations* why, bool set_bands = true,
                     double mfu_ceiling = 0);

}  // namespace gpusizer
