#pragma once
// The candidate machinery the advisor's searches share: why a GPU is out before any estimate
// (an enum; its text is made for the rejected list), the weight formats worth trying, the
// levers of a candidate in words, whether a candidate fits with headroom, and a typed edit of a
// parsed scenario made ready to estimate (changes and fit).
#include <string>
#include <vector>

#include "gpusizer/advisor.h"
#include "gpusizer/scenario_edit.h"

namespace gpusizer {

/// Why a GPU is out of a search before any estimate.
enum class GpuOut {
  kIn,                   ///< stays in
  kNotAllowed,           ///< not in the constraints' gpus list (not listed as rejected)
  kVendor,               ///< not the vendor asked for
  kSegment,              ///< not the segment asked for
  kChina,                ///< region cn: export-controlled or not sold, and not rented there
  kConsumerPretraining,  ///< pre-training on a GeForce card (driver licence)
  kNotProduction,        ///< production needs ECC and a datacenter card
  kNotRented,            ///< cloud deployment: no instance of it
  kNoPurchasePrice,      ///< on-prem budget: no launch price
  kEngineVendor,         ///< the engine does not run on its vendor
  kNoCuda,               ///< training engine without Apple support
  kNoMemoryFigures,      ///< the catalog lacks its memory or bandwidth
};

GpuOut gpu_out(const Gpu& g, const Scenario& s, const Constraints& c, const Catalog& catalog);
/// The reason in words ("vendor AMD, not nvidia"); "" for kIn.
std::string gpu_out_text(GpuOut why, const Gpu& g, const Scenario& s, const Constraints& c,
                         const Catalog& catalog);

/// Weight formats worth trying on a GPU, best quality first (lower-precision ones with
/// allow_quantization).
std::vector<const NumberFormat*> weight_formats(const Scenario& s, const Gpu& g,
                                                const Constraints& c, const Catalog& catalog);
/// The levers a candidate pulls relative to `base`, in words ("fp8 weights, TP=2").
std::string levers_in_words(const Scenario& t, const Scenario& base, const Gpu& g);

/// Memory a candidate needs per GPU against what it has.
struct MemoryFit {
  double needed = 0, capacity = 0;
  bool fits = false;  ///< the estimate fits and needed <= capacity x (1 - headroom)
};
// Inline: a change search asks it of each candidate (issue 18: the call and its result's copy).
inline MemoryFit memory_fit(const Scenario& s, const Estimate& e, double headroom) {
  MemoryFit f;
  f.needed = memory_needed(s, e);
  f.capacity = e.memory.capacity.value_or(0);
  f.fits = e.memory.fits.value_or(false) && f.needed <= f.capacity * (1.0 - headroom);
  return f;
}

/// The 16-bit fallbacks of a GPU without BF16, added to the edit `e` of `base` (a field `e`
/// already sets is the candidate's): bf16 weights are served and trained as fp16; a bf16 KV
/// cache beside fp16 weights becomes fp16 (vLLM's KV cache takes the model's dtype, and
/// FP16 is the dtype without BF16); training's bf16 or pure-bf16 mixed precision becomes fp16
/// AMP (PyTorch autocast with torch.float16 and a GradScaler; bf16 needs Ampere or newer).
/// Training's mxfp8 becomes fp8 without block-scaled tensor cores, and fp8 bf16 without FP8 ones.
void fp16_fallbacks(const Scenario& base, const Gpu& g, ScenarioEdit& e);

/// A parsed scenario with a typed edit (scenario_edit.h), checked and resolved for estimate():
/// what resolve_scenario gives for the scenario JSON with to_patch(edit) merged in. Throws
/// InputError when the edited scenario is invalid (a split the model cannot take, ...).
Scenario candidate(const Scenario& parsed, const ScenarioGiven& given, const ScenarioEdit& edit,
                   const Catalog& catalog);
/// The same through a search's editor (ScenarioEditor, scenario_edit.h): its one working
/// candidate, valid until the next edit.
const Scenario& candidate(ScenarioEditor& editor, const ScenarioEdit& edit, const Catalog& catalog);

}  // namespace gpusizer
