#pragma once
// Assembles the per-GPU memory estimate from its parts: the three levels (allocated, reserved,
// device total), the uncertainty band, fit, the largest batch and the KV pool of preallocating
// engines.
#include <string_view>

#include "gpusizer/catalog.h"
#include "gpusizer/explanations.h"
#include "gpusizer/memory_estimate.h"
#include "gpusizer/scenario.h"
#include "memory/memory_parts.h"
#include "memory/model_counts.h"

namespace gpusizer::memory {
class PartsMemo;
}  // namespace gpusizer::memory

namespace gpusizer {

/// A training estimate's peak phase when the optimizer step is the peak: only then do its
/// optimizer bytes hold the step's temporaries beside the states (at any other peak, and without
/// a paged optimizer, whose states count in the overhead, they are memory::optimizer_states').
inline constexpr std::string_view kOptimizerStepPeak =
    "optimizer step (activations freed, gradients held)";

/// Estimates memory for a checked scenario, with the basis of every figure and the warnings in
/// `why`; null builds no text (numbers only: searches, the largest batch).
MemoryEstimate estimate_memory(const Scenario& s, const Catalog& catalog, Explanations* why);
/// The same with the model already counted (count_model(s)): estimate() counts once per call.
MemoryEstimate estimate_memory(const Scenario& s, const Catalog& catalog, const ModelCounts& counts,
                               Explanations* why);
/// The same with the engine's rules looked up too (`rules` = memory::engine_rules(s, catalog)):
/// estimate() passes the engine on to the speed estimate.
MemoryEstimate estimate_memory(const Scenario& s, const Catalog& catalog, const ModelCounts& counts,
                               const memory::EngineRules& rules, Explanations* why);
/// The same, bytes only, for one of a search's candidates, into `out` whatever it held (a
/// search's one Estimate: issue 18, the figures made in a temporary and copied cost ~25
/// instructions a candidate): the parts whose fields an earlier candidate of the search had are
/// taken from `memo` (memory/parts_memo.h), the others computed and kept there. The figures are
/// those estimate_memory(s, catalog, counts, rules, nullptr) gives.
void estimate_memory(const Scenario& s, const Catalog& catalog, const ModelCounts& counts,
                     const memory::EngineRules& rules, memory::PartsMemo& memo,
                     MemoryEstimate& out);

/// A lower bound of the device total (bytes per GPU) of a training scenario that differs from `s`
/// in its optimizer alone, neither optimizer paged; `m` is s's estimate, its engine's allocator
/// `engine` (the one `rules` gave it). Only the optimizer states and the step's temporaries read
/// the optimizer (memory/parts_memo.h): every other part is s's in every phase, so the other
/// scenario's peak holds at least s's peak less its optimizer bytes. 0 (no bound) for serving or
/// a paged optimizer (its states count in the overhead). A change search skips a combination
/// that adds 8-bit AdamW to one whose bound is past the GPU (issue 18).
double total_without_optimizer(const Scenario& s, const MemoryEstimate& m,
                               const EngineProfile& engine);

}  // namespace gpusizer
