#include "memory/sharding.h"

#include <algorithm>

namespace gpusizer::memory {

SplitBytes per_gpu_split(const ModelBytes& b, const Scenario& s) {
  const double tp = static_cast<double>(s.parallel.tp);
  const double experts = b.experts / static_cast<double>(s.expert_shards());
  SplitBytes r;
  if (s.parallel.pp == 1) {
    // One stage: every layer, the embedding and the head (the stage fraction below is 1).
    r.experts = experts;
    r.whole = (b.layers / tp + experts) + (b.embedding + b.lm_head) / tp;
  } else {
    // Stages hold ceil(L/pp) layers at most (Megatron-LM splits layers evenly).
    const double pp = static_cast<double>(s.parallel.pp);
    const double layers = static_cast<double>(std::max<int64_t>(1, s.model->num_layers));
    const double stage_fraction =
        s.model->num_layers > 0 ? std::ceil(layers / pp) / layers : 1.0 / pp;
    r.experts = experts * stage_fraction;
    r.whole = (b.layers / tp + experts) * stage_fraction + std::max(b.embedding, b.lm_head) / tp;
  }
  return r;
}

double zero_shard(const SplitBytes& b, const Scenario& s) {
  const double expert_ranks = static_cast<double>(s.expert_data_ranks());
  // Without expert parallelism both groups are the same ranks: one division, the bytes of a
  // dense model exactly as whole / dp.
  if (s.parallel.ep == 1) return b.whole / expert_ranks;
  return (b.whole - b.experts) / static_cast<double>(s.dense_data_ranks()) +
         b.experts / expert_ranks;
}

double per_gpu(const ModelBytes& b, const Scenario& s, bool zero_sharded) {
  const SplitBytes split = per_gpu_split(b, s);
  return zero_sharded ? zero_shard(split, s) : split.whole;
}

}  // namespace gpusizer::memory
