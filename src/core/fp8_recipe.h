#pragma once
// The FP8 training recipes' layout facts that memory and speed both read
// (training.mixed_precision fp8, mxfp8): how many bytes an FP8 value takes and how many FP8
// copies of a tensor its GEMMs need.
#include "gpusizer/gpu.h"
#include "gpusizer/training_options.h"

namespace gpusizer {

/// Bytes of one value in the recipe's FP8 layout: one byte, plus MXFP8's one E8M0 scale per 32
/// values (OCP Microscaling Formats spec v1.0, sec. 5.2); a per-tensor scale is a few bytes a
/// tensor. 0 outside the FP8 recipes. Inline: every training estimate asks.
inline double fp8_value_bytes(MixedPrecision p) {
  if (p == MixedPrecision::kFp8) return 1.0;
  if (p == MixedPrecision::kMxfp8) return 1.0 + 1.0 / 32.0;
  return 0.0;
}

/// Whether the GPU's FP8 GEMMs take either operand layout: Transformer Engine's
/// nvte_is_non_tn_fp8_gemm_supported, compute capability 10.x, 11.x or 13+ (the datacenter
/// Blackwell chips, GB1xx in gpus.csv's architecture); Hopper and Ada (9.0, 8.9) take FP8
/// operands K-major only, and so does consumer Blackwell (12.x). Other vendors are taken as the
/// stricter rule.
bool fp8_gemm_any_layout(const Gpu& gpu);

/// FP8 copies of a tensor (weight, input or gradient) that its forward and backward GEMMs need:
/// a row-wise one, and a column-wise (transposed) one where the GEMM takes FP8 K-major only; MXFP8
/// always two, its block scales running along rows in one and columns in the other
/// (transformer_engine/pytorch/tensor/mxfp8_tensor.py). `gpu` null: the stricter rule.
inline int fp8_copies(MixedPrecision p, const Gpu* gpu) {
  if (p == MixedPrecision::kMxfp8) return 2;
  if (p != MixedPrecision::kFp8) return 0;
  return gpu && fp8_gemm_any_layout(*gpu) ? 1 : 2;
}

}  // namespace gpusizer
