#pragma once
// The fraction of a GPU's memory a preallocating engine gives its budget: the scenario's when
// given, else its release's default, which SGLang from 0.5.3 derives from the GPU's memory as
// nvidia-smi reports it (engine_profile.h ReservedMemoryRule).
#include "gpusizer/catalog.h"
#include "gpusizer/engine_profile.h"
#include "gpusizer/scenario.h"

namespace gpusizer::memory {

/// The GPU memory nvidia-smi reports as memory.total: the capacity vendors market in binary units
/// less the in-band ECC of datacenter GDDR cards.
double smi_total_bytes(const Gpu& gpu, const DeviceProfile& device);

/// Whether SGLang would capture piecewise prefill CUDA graphs for the scenario (from 0.5.10).
bool piecewise_prefill_graphs(const Scenario& s);

/// What a release's default fraction is derived from for the scenario: its TP x PP, given chunked
/// prefill size, GPU (nvidia-smi's total), piecewise prefill graphs and MLA.
FractionInputs fraction_inputs(const Scenario& s, const Catalog& catalog);

/// The fraction a release whose default follows the GPU's memory sizes its KV pool by.
double derived_pool_fraction(const Scenario& s, const Catalog& catalog, const EngineRelease& rel);

/// The fraction the release of the scenario's engine `rel` sizes its KV pool by (inline: the
/// other releases keep their one call, on every estimate).
inline double pool_fraction(const Scenario& s, const Catalog& catalog, const EngineRelease& rel) {
  if (rel.reserved_memory.classes.empty())
    return memory_fraction(rel, s.gpu_memory_utilization_given, s.gpu_memory_utilization,
                           s.parallel.tp);
  return derived_pool_fraction(s, catalog, rel);
}

}  // namespace gpusizer::memory
