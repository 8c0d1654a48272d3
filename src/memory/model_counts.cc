#include "memory/model_counts.h"

#include "memory/memory_parts.h"

namespace gpusizer {

// Built in place, not assigned: a LinearModules holds its 16 modules inline (issue 18).
ModelCounts::ModelCounts(const Model& model)
    : params(count_params(model)), modules(linear_modules(model)) {}

ModelCounts count_model(const Scenario& s) {
  ModelCounts c(s.model);
  c.trainable = memory::trainable_split(s, c.params, c.modules);
  return c;
}

}  // namespace gpusizer
