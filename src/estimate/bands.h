#pragma once
// Bands on the speed, time and cost figures of an estimate (gpusizer/speed_bands.h).
#include "gpusizer/cost.h"
#include "gpusizer/explanations.h"
#include "gpusizer/performance_estimate.h"
#include "gpusizer/scenario.h"
#include "gpusizer/speed_bands.h"

#include <string_view>
#include <utility>

namespace gpusizer {

/// Sets the bands of the speed figures `p` and of the cost figures `cost` (from the band of the
/// throughput they divide by) from the bands of the scenario's engine; explains them in
/// why->basis under "bands" (no text when `why` is null). A training step's bands stop where its
/// MFU would pass `mfu_ceiling` (mfu_ceiling() of speed/training_speed.h; 0: no ceiling), a serving
/// phase's where it would pass its roofline (p.peak_room), and the text says so.
void add_speed_bands(const Scenario& s, const SpeedBands& bands, PerformanceEstimate& p,
                     CostEstimate& cost, Explanations* why, double mfu_ceiling = 0);

/// `band` (low, high) around `value`, a figure of `kind`, held to `room`: a rate's high at most
/// value x room, a time's low at least value / room (band_of's inverse for times); as it is when
/// room is 0. The estimate's bands (add_speed_bands) and validate's coverage hold the same way.
std::pair<double, double> held_to_room(std::pair<double, double> band, double value,
                                       const FigureKind& kind, double room);

/// How many times faster than predicted the hardware lets the figure named `figure` go: a rate
/// at most room x, a time at least 1 / room x its predicted value. The MFU ceiling over the MFU
/// for the training figures (at least 1), the phase's room under its roofline for the serving
/// ones (p.peak_room); 0 when there is none (the figure is not banded or not held).
double hardware_room(const PerformanceEstimate& p, std::string_view figure, double mfu_ceiling);

}  // namespace gpusizer
