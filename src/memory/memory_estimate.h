#pragma once
// Assembles the per-GPU memory estimate from its parts: the three levels (allocated, reserved,
// device total), the uncertainty band, fit, the largest batch and the KV pool of preallocating
// engines.
#include "gpusizer/estimate.h"

namespace gpusizer {

/// Estimates memory for a checked scenario; adds basis entries and warnings to `out` (the basis
/// of the batch-dependent parts only when `explain` is set).
MemoryEstimate estimate_memory(const Scenario& s, const Catalog& catalog, Estimate& out,
                               bool explain = true);

}  // namespace gpusizer
