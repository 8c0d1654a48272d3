#include "memory/model_counts.h"

#include <algorithm>

#include "memory/memory_parts.h"

namespace gpusizer {

// Built in place, not assigned: a LinearModules holds its 16 modules inline (issue 18).
ModelCounts::ModelCounts(const Model& model)
    : params(count_params(model)), modules(linear_modules(model)) {}

uint32_t lora_module_mask(const TrainingOptions& t, const LinearModules& modules) {
  static_assert(LinearModules::kCapacity <= 32, "one bit per module");
  using namespace std::string_view_literals;  // sizes compared first, no strlen
  const bool all_linear = t.lora_targets.empty() ||
                          std::find(t.lora_targets.begin(), t.lora_targets.end(), "all-linear"sv) !=
                              t.lora_targets.end();
  uint32_t mask = 0;
  if (all_linear) {  // every matrix but the router: no name is compared
    for (size_t i = 0; i < modules.size(); ++i)
      mask |= static_cast<uint32_t>(modules[i].role != MatrixRole::kRouter) << i;
    return mask;
  }
  for (size_t i = 0; i < modules.size(); ++i)
    for (const auto& target : t.lora_targets)
      if (lora_target_matches(target, modules[i].name)) mask |= 1u << i;
  return mask;
}

ModelCounts count_model(const Scenario& s) {
  ModelCounts c(s.model);
  if (s.task == Task::kLora || s.task == Task::kQlora)
    c.lora_modules = lora_module_mask(s.training, c.modules);
  c.trainable = memory::trainable_split(s, c.params, c.modules, c.lora_modules);
  return c;
}

}  // namespace gpusizer
