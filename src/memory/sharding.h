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

/// Bytes of a model state on the busiest GPU before ZeRO shards them, with the routed experts'
/// share apart: ZeRO shards the two over different groups of ranks (zero_shard).
struct SplitBytes {
  double whole = 0;    ///< all of it
  double experts = 0;  ///< the routed experts' share of `whole`
};

/// Bytes on the busiest GPU: layers split over pp stages (embedding on the first, head on the
/// last), everything split over tp (vocabulary-parallel embedding, Megatron-LM), experts over
/// tp*ep.
SplitBytes per_gpu_split(const ModelBytes& bytes, const Scenario& s);

/// ZeRO's (FSDP's, Megatron's distributed optimizer's) shard of `b` on one GPU: the dense part
/// over the ranks that hold the same dense parameters (Scenario::dense_data_ranks), the experts
/// over those that hold the same experts (Scenario::expert_data_ranks).
double zero_shard(const SplitBytes& b, const Scenario& s);

/// per_gpu_split's whole, or its zero_shard when `zero_sharded`.
double per_gpu(const ModelBytes& bytes, const Scenario& s, bool zero_sharded);

}  // namespace gpusizer::memory
