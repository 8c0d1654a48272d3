#pragma once
// Bands on the speed, time and cost figures of an estimate (gpusizer/speed_bands.h).
#include "gpusizer/estimate.h"
#include "gpusizer/speed_bands.h"

namespace gpusizer {

/// Sets performance.bands and cost.bands from the bands of the scenario's engine; explains them
/// in e.basis["bands"].
void add_speed_bands(const Scenario& s, const SpeedBands& bands, Estimate& e);

}  // namespace gpusizer
