#include "memory/model_counts.h"

#include "memory/memory_parts.h"

namespace gpusizer {

ModelCounts count_model(const Scenario& s) {
  ModelCounts c;
  c.params = count_params(s.model);
  c.modules = linear_modules(s.model);
  c.trainable = memory::trainable_split(s, c.params, c.modules);
  return c;
}

}  // namespace gpusizer
