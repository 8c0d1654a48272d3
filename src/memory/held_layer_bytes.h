#pragma once
// The bytes a model's layers are held in: one rule for the memory estimate (stored_weights,
// model_states.cc) and the speed model's weight reads (weight_costs, speed/model_costs.cc), so
// that what decode reads is what the memory stores.
#include <algorithm>
#include <string_view>

#include "gpusizer/model.h"
#include "gpusizer/number_format.h"

namespace gpusizer::memory {

/// `layer_params` parameters (everything but the embedding, the head and the routed experts) held
/// in `f`: a float format keeps them all in its bits; a quantized one keeps the matrices outside
/// the routed experts in its dense format (gpt-oss mxfp4: bf16 beside the experts) and the norms,
/// biases, sinks and routers in 16 bits. Inline: stored_weights is on every estimate's path.
inline double held_layer_bytes(const NumberFormat& f, bool moe, double layer_params,
                               const LinearModules& mods) {
  if (f.kind == std::string_view("float")) return layer_params * f.bytes_per_value();
  double matrix = 0, router = 0;
  for (const auto& m : mods) {
    const double n = static_cast<double>(m.in * m.out * m.count);
    if (m.role == MatrixRole::kRouter)
      router += n;
    else if (!m.expert)
      matrix += n;
  }
  const double small = 2.0;  // norms, biases, routers stay 16-bit in every quantized format
  const double other = std::max(0.0, layer_params - matrix - router);
  return matrix * f.dense_bytes_per_value(moe) + (other + router) * small;
}

}  // namespace gpusizer::memory
