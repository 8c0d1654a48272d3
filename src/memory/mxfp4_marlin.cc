// vLLM's MXFP4 MoE on GPUs without FP4 tensor cores (compute capability 8.x).
//
// Which kernel: vLLM's Mxfp4MoEMethod takes the Marlin weight-only kernel on CUDA below compute
// capability 9.0; its FlashInfer kernels need SM90 or SM100 and its Triton (triton_kernels)
// kernels 9.0 <= capability < 11.0. vLLM 0.10.1: vllm/model_executor/layers/quantization/
// mxfp4.py Mxfp4MoEMethod._should_use_marlin ("marlin kernel has better performance on
// ampere"); later releases: get_mxfp4_backend there, then select_mxfp4_moe_backend in
// vllm/model_executor/layers/fused_moe/oracle/mxfp4.py (0.19 line).
//
// Shapes: on that path create_weights pads the rank's intermediate slice to a multiple of 128
// and the hidden size to a multiple of 256 ("the moe marlin kernel requires that for each linear
// n % 256 == 0 and k % 128 == 0"; mxfp4_round_up_hidden_size_and_intermediate_size in the
// oracle), and allocates per expert w13 [2 I_pad, H_pad / 2] and w2 [H_pad, I_pad / 2] uint8
// (two fp4 values a byte), scales [.., / 32] uint8 (E8M0, one per 32 values) and bf16 biases
// w13_bias [2 I_pad] and w2_bias [H_pad]. prepare_moe_fp4_layer_for_marlin
// (vllm/model_executor/layers/quantization/utils/marlin_utils_fp4.py) repacks the weights into
// int32 tiles of the same size, turns the scales back into float8_e8m0fnu (1 B) after permuting
// them and keeps the biases 16-bit: the bytes after loading are those of the padded shapes.
#include "memory/mxfp4_marlin.h"

#include <string_view>

namespace gpusizer::memory {
namespace {

// The Marlin MoE kernel's tile rule as vLLM's create_weights applies it (see above).
constexpr int64_t kHiddenTile = 256;
constexpr int64_t kIntermediateTile = 128;
constexpr double kMxfp4Block = 32;  // values per E8M0 scale (OCP Microscaling spec v1.0)

int64_t round_up(int64_t n, int64_t tile) {
  return (n + tile - 1) / tile * tile;
}

}  // namespace

bool vllm_marlin_mxfp4(const Scenario& s, const EngineProfile& engine) {
  // The model first: a dense model returns before the engine's and format's names are compared.
  if (!s.model->is_moe() || s.model->num_moe_layers <= 0 || !s.gpu) return false;
  if (engine.name != "vllm" || s.weights->id != "mxfp4") return false;
  // Compute capability 8.x: Ampere (8.0, 8.6) and Ada Lovelace (8.9). Mxfp4Config's minimum
  // capability is 8.0, so no older architecture runs the format at all.
  const std::string_view family = s.gpu->architecture_family();
  return s.gpu->vendor == "NVIDIA" && (family == "Ampere" || family == "Ada");
}

double marlin_mxfp4_expert_bytes(int64_t hidden, int64_t intermediate_per_rank, bool bias) {
  const double h = static_cast<double>(round_up(hidden, kHiddenTile));
  const double i = static_cast<double>(round_up(intermediate_per_rank, kIntermediateTile));
  const double values = 2.0 * i * h + h * i;  // w13 (gate and up) and w2 (down)
  const double matrices = values * (0.5 + 1.0 / kMxfp4Block);
  const double biases = bias ? (2.0 * i + h) * 2.0 : 0.0;
  return matrices + biases;
}

double marlin_mxfp4_routed_bytes(const Scenario& s) {
  const Model& m = *s.model;
  const int64_t shards = s.expert_shards();
  // Under expert parallelism each rank holds whole experts; under tensor parallelism each rank
  // holds every expert's 1/tp intermediate slice (FusedMoE intermediate_size_per_partition).
  const int64_t split = s.parallel.ep > 1 ? 1 : shards;
  const double per_expert =
      marlin_mxfp4_expert_bytes(m.hidden_size, m.moe_intermediate_size / split, m.expert_bias);
  return static_cast<double>(m.num_moe_layers * m.num_experts) * per_expert *
         static_cast<double>(split);
}

}  // namespace gpusizer::memory
