#pragma once
// What a matrix's shape does to its GEMM, shared by the serving and the training speed: the
// share of the rate a GEMM of a given size reaches, and the share of a module's instances that
// run per token.
#include <algorithm>

#include "gpusizer/model.h"

namespace gpusizer {

/// Fraction of its rate a GEMM reaches at size `w` along a dimension that saturates with
/// `k_half`: w / (w + k_half). Each output tile runs a main loop over the depth behind a fixed
/// prologue and epilogue, and narrow outputs fill fewer tiles and waves, so large GEMMs amortise
/// the fixed work and small ones do not (NVIDIA "Matrix Multiplication Background" user guide,
/// "Dimension quantization effects"; CUTLASS efficient_gemm.md); it saturates at 1.
inline double gemm_size_eff(double w, double k_half) {
  return w / (w + std::max(0.0, k_half));
}

/// Share of a module's instances that run for one token: experts_per_token / experts for a
/// routed expert, 1 for every other matrix.
inline double active_share(const LinearModule& mod, const Model& m) {
  return mod.expert && m.num_experts > 0
             ? static_cast<double>(m.experts_per_token) / static_cast<double>(m.num_experts)
             : 1.0;
}

}  // namespace gpusizer
