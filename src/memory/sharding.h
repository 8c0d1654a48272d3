#pragma once
// How a model's bytes land on one GPU under tensor, pipeline, expert and ZeRO-3 sharding.
#include "gpusizer/scenario.h"

namespace gpusizer::memory {

/// Bytes of one copy of the model (or of a per-parameter quantity such as gradients), by where
/// they live: transformer layers (dense part), routed experts, token embedding, output head.
struct ModelBytes {
  double layers = 0;
  double experts = 0;
  double embedding = 0;
  double lm_head = 0;
  double total() const { return layers + experts + embedding + lm_head; }
};

/// Bytes on the busiest GPU: layers split over pp stages (embedding on the first, head on the
/// last), everything split over tp (vocabulary-parallel embedding, Megatron-LM), experts over
/// tp*ep, and over dp when `zero_sharded` (ZeRO/FSDP).
double per_gpu(const ModelBytes& bytes, const Scenario& s, bool zero_sharded);

}  // namespace gpusizer::memory
