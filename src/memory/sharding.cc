#include "memory/sharding.h"

#include <algorithm>

namespace gpusizer::memory {

double per_gpu(const ModelBytes& b, const Scenario& s, bool zero_sharded) {
  const double tp = static_cast<double>(s.parallel.tp);
  const double expert_shards = static_cast<double>(s.expert_shards());
  double busiest;
  if (s.parallel.pp == 1) {
    // One stage: every layer, the embedding and the head (the stage fraction below is 1).
    busiest = (b.layers / tp + b.experts / expert_shards) + (b.embedding + b.lm_head) / tp;
  } else {
    // Stages hold ceil(L/pp) layers at most (Megatron-LM splits layers evenly).
    const double pp = static_cast<double>(s.parallel.pp);
    const double layers = static_cast<double>(std::max<int64_t>(1, s.model->num_layers));
    const double stage_fraction =
        s.model->num_layers > 0 ? std::ceil(layers / pp) / layers : 1.0 / pp;
    const double body = (b.layers / tp + b.experts / expert_shards) * stage_fraction;
    busiest = body + std::max(b.embedding, b.lm_head) / tp;
  }
  if (zero_sharded) busiest /= static_cast<double>(s.parallel.dp);
  return busiest;
}

}  // namespace gpusizer::memory
