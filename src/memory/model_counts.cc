#include "memory/model_counts.h"

#include "memory/memory_parts.h"

namespace gpusizer {

ModelCounts count_model(const Scenario& s) {
  // Built in place, not assigned: a LinearModules holds its 16 modules inline (issue 18).
  ModelCounts c{count_params(s.model), linear_modules(s.model), {}};
  c.trainable = memory::trainable_split(s, c.params, c.modules);
  return c;
}

}  // namespace gpusizer
