// The shared candidate steps (advisor/candidates.h); the GPU filter and lever words are
// recommend.cc's, shared from there.
#include "advisor/candidates.h"

#include "estimate/layout.h"

namespace gpusizer {

void fp16_fallbacks(const Scenario& base, const Gpu& g, ScenarioEdit& e) {
  // The FP8 recipes on a GPU without their tensor cores: MXFP8 falls back to per-tensor FP8,
  // FP8 to bf16 AMP, the precisions those GPUs train in (check_fp8_training refuses the rest).
  const MixedPrecision asked = e.mixed_precision.value_or(base.training.mixed_precision);
  if (is_fp8(asked) && is_training(e.task.value_or(base.task))) {
    if (asked == MixedPrecision::kMxfp8 && !g.supports("mxfp8"))
      e.mixed_precision = MixedPrecision::kFp8;
    if (!g.supports("fp8")) e.mixed_precision = MixedPrecision::kBf16;
  }
  if (g.supports("bf16")) return;
  if (!e.weights && base.weights->id == "bf16") e.weights = "fp16";
  if (e.kv_cache.value_or(base.kv_cache->id) == "bf16" &&
      e.weights.value_or(base.weights->id) == "fp16")
    e.kv_cache = "fp16";
  const MixedPrecision mixed = e.mixed_precision.value_or(base.training.mixed_precision);
  if (is_training(e.task.value_or(base.task)) && computes_in_bf16(mixed))
    e.mixed_precision = MixedPrecision::kFp16;
}

Scenario candidate(const Scenario& parsed, const ScenarioGiven& given, const ScenarioEdit& edit,
                   const Catalog& catalog) {
  Scenario s = edited(parsed, given, edit, catalog);
  resolve_in_place(s, catalog);
  return s;
}

const Scenario& candidate(ScenarioEditor& editor, const ScenarioEdit& edit,
                          const Catalog& catalog) {
  Scenario& s = editor.edit(edit);
  resolve_in_place(s, catalog);  // the layout and memory fraction: fields an edit changes
  return s;
}

}  // namespace gpusizer
