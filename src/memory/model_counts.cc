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

double lora_missing_inputs(const Model& m, const LinearModules& modules, uint32_t lora_modules) {
  if (lora_modules == 0 || !memory::fused_qkv(m)) return 0;
  int found = 0;
  for (size_t i = 0; i < modules.size(); ++i) {
    const std::string_view name = modules[i].name;
    if ((lora_modules & (1u << i)) && (name == "q_proj" || name == "k_proj" || name == "v_proj"))
      ++found;
  }
  if (found != 3) return 0;
  return 2.0 * static_cast<double>(m.num_layers) * static_cast<double>(m.hidden_size);
}

AdapterParams adapter_params(const Model& m, const LinearModules& modules, uint32_t lora_modules,
                             int64_t rank) {
  AdapterParams n;
  const double r = static_cast<double>(rank);
  for (size_t i = 0; i < modules.size(); ++i) {
    if (!(lora_modules & (1u << i))) continue;
    const LinearModule& mod = modules[i];
    const double count = static_cast<double>(mod.count);
    double active = count;
    if (mod.expert && m.num_experts > 0)
      active *= static_cast<double>(m.experts_per_token) / static_cast<double>(m.num_experts);
    const double features = static_cast<double>(mod.in + mod.out);
    n.all += count * r * features;
    n.active += active * r * features;
  }
  const double missing = r * lora_missing_inputs(m, modules, lora_modules);
  n.all -= missing;
  n.active -= missing;
  return n;
}

void count_training(const Scenario& s, ModelCounts& c) {
  if (s.task == Task::kLora || s.task == Task::kQlora) {
    c.lora_modules = lora_module_mask(s.training, c.modules);
    c.lora_missing_inputs = lora_missing_inputs(*s.model, c.modules, c.lora_modules);
    c.adapters = adapter_params(*s.model, c.modules, c.lora_modules, s.training.lora_rank);
  }
  c.trainable = memory::trainable_split(s, c.params, c.adapters.all);
}

void clear_training(ModelCounts& c) {
  c.trainable = {};
  c.lora_modules = 0;
  c.lora_missing_inputs = 0;
  c.adapters = {};
}

ModelCounts count_model(const Scenario& s) {
  ModelCounts c(*s.model);
  count_training(s, c);
  return c;
}

}  // namespace gpusizer
