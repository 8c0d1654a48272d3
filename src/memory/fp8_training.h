#pragma once
// FP8 training's memory (training.mixed_precision fp8, mxfp8): the layers' weights as the engine
// holds them, and the FP8 copies of the GEMMs' inputs saved for the backward. The optimizer's
// states and fp32 master copy are bf16 AMP's: the recipes quantize at each GEMM.
#include "core/fp8_recipe.h"
#include "gpusizer/engine_profile.h"
#include "gpusizer/scenario.h"

namespace gpusizer::memory {

/// Bytes per layer matrix parameter of the weights on the GPU under an FP8 recipe
/// (engines.json fp8_weights), `sixteen_bit` for the working copy:
/// - per-pass: the 16-bit copy alone (the FP8 casts live only through each GEMM);
/// - cached: the 16-bit copy and its FP8 copies kept between steps (Transformer Engine's weight
///   workspace when the caller passes is_first_microbatch);
/// - primary: the FP8 copies alone (Megatron-Core fp8_param_gather: TE modules built with FP8
///   parameters; the optimizer keeps the fp32 master).
/// Under ZeRO-3 / FSDP the copies of a gathered layer live only while it runs, and FP8 primary
/// weights are sharded in their row-wise layout alone (Megatron FSDP keep_fp8_transpose_cache
/// off). Negative outside the FP8 recipes: the caller keeps its own rule.
inline double fp8_weight_bytes(const Scenario& s, const EngineProfile& engine, double sixteen_bit) {
  const double value = fp8_value_bytes(s.training.mixed_precision);
  if (value <= 0) return -1.0;
  const bool sharded = s.training.zero_stage >= 3;
  const double copies = value * fp8_copies(s.training.mixed_precision, s.gpu.get());
  switch (engine.fp8_weights) {
    case Fp8Weights::kPrimary:
      return sharded ? value : copies;
    case Fp8Weights::kCached:
      return sharded ? sixteen_bit : sixteen_bit + copies;
    case Fp8Weights::kPerPass:
      break;
  }
  return sixteen_bit;
}

/// Bytes a trained linear layer saves per value of its input for the weight gradient: the FP8
/// column-wise copy under an engine that saves it (engines.json fp8_saves_quantized_inputs;
/// Transformer Engine's _Linear.forward keeps only that usage of its quantized input), else
/// `sixteen_bit`, the activation dtype's.
inline double saved_input_bytes(const Scenario& s, const EngineProfile& engine,
                                double sixteen_bit) {
  const double fp8 = fp8_value_bytes(s.training.mixed_precision);
  return fp8 > 0 && engine.fp8_saves_quantized_inputs ? fp8 : sixteen_bit;
}

}  // namespace gpusizer::memory
