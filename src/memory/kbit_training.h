#pragma once
// k-bit (bitsandbytes) fine-tuning as Hugging Face PEFT prepares it (kbit_training.cc).
#include "gpusizer/engine_profile.h"
#include "gpusizer/model.h"
#include "gpusizer/scenario.h"

namespace gpusizer::memory {

/// True when a QLoRA run on `engine` goes through PEFT's prepare_model_for_kbit_training, which
/// casts every non-quantized 16-bit parameter to fp32 (engines.json kbit_training_fp32_upcast).
bool kbit_fp32_upcast(const Scenario& s, const EngineProfile& engine);

/// Extra weight bytes per GPU of that cast: 2 B per embedding, head and norm parameter, of the
/// model's parameters `params` (count_params(s.model), which the estimate has counted: issue 18,
/// ~130 instructions to count them again).
double kbit_upcast_extra_bytes(const Scenario& s, const EngineProfile& engine,
                               const ParamCounts& params);

/// Whether the run is sharded so that TRL skips the cast: a sharded (FSDP/ZeRO-3) QLoRA run
/// loads Params4bit on cpu/meta.
inline bool kbit_upcast_skipped(const Scenario& s) {
  return s.training.zero_stage >= 3;
}
/// The cast's extra bytes as a run that is not so sharded has them (the ZeRO stage not read), so
/// that the model states' totals (state_totals.h) serve every stage.
double kbit_upcast_extra_bytes_unsharded(const Scenario& s, const EngineProfile& engine,
                                         const ParamCounts& params);

}  // namespace gpusizer::memory
