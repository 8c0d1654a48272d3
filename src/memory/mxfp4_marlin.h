#pragma once
// vLLM's MXFP4 routed experts on a GPU without FP4 tensor cores: the Marlin weight-only kernel's
// padded expert tensors (mxfp4_marlin.cc).
#include <cstdint>

#include "gpusizer/engine_profile.h"
#include "gpusizer/scenario.h"

namespace gpusizer::memory {

/// Whether vLLM runs the scenario's MXFP4 routed experts through its Marlin MoE kernel: vLLM
/// serving mxfp4 weights of a mixture-of-experts model on an NVIDIA GPU of compute capability
/// 8.x (Ampere, Ada), where no FlashInfer or Triton MXFP4 kernel is offered.
bool vllm_marlin_mxfp4(const Scenario& s, const EngineProfile& engine);

/// Bytes of one routed expert on one rank after vLLM's Marlin MXFP4 loading: its gate/up and
/// down matrices at 4 bits plus one 8-bit E8M0 scale per 32 values, at the padded shapes
/// (hidden size to a multiple of 256, the rank's intermediate slice to a multiple of 128), and
/// its bf16 biases when the model has expert biases. `intermediate_per_rank` is the expert's
/// intermediate size divided over the ranks that split it.
double marlin_mxfp4_expert_bytes(int64_t hidden, int64_t intermediate_per_rank, bool bias);

/// The routed experts' bytes over all expert shards (per_gpu divides them by
/// Scenario::expert_shards()) on the Marlin path: tensor parallelism splits every expert's
/// intermediate dimension, expert parallelism keeps experts whole (vLLM's MoE runs with tp 1).
double marlin_mxfp4_routed_bytes(const Scenario& s);

}  // namespace gpusizer::memory
