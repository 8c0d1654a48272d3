#pragma once
// What one estimate counts of its model, counted once per call (issue 18). estimate() counts the
// model's parameters and lists its linear modules once and passes the counts to the memory parts
// and the speed setup, which counted them again each (three parameter counts, two module lists
// and, for adapter training, the LoRA split three times per estimate). A pure function of the
// scenario: it holds no catalog entry and no text.
#include "gpusizer/model.h"
#include "gpusizer/scenario.h"
#include "memory/sharding.h"

namespace gpusizer {

/// LoRA adapter parameters (Hu et al. 2021, sec. 4.1: W + B A, A in R^{r x in}, B in
/// R^{out x r}): those of every adapted matrix, and those one token touches (routed experts at
/// k / E). Counted once per estimate (count_model); the memory's trainable parameters and the
/// training step's adapter FLOPs read the same figures.
struct AdapterParams {
  double all = 0, active = 0;
};

struct ModelCounts {
  /// Counts `model`; `trainable` is left 0 (count_model sets it). A constructor, not an
  /// aggregate: brace-initialising the aggregate zeroed all of it first, the module list's
  /// storage included (about 120 instructions an estimate).
  explicit ModelCounts(const Model& model);
  ParamCounts params;              ///< count_params(s.model)
  LinearModules modules;           ///< linear_modules(s.model)
  memory::ModelBytes trainable;    ///< trainable parameters by place (0 for inference)
  uint32_t lora_modules = 0;       ///< LoRA tasks: bit i set when modules[i] carries an adapter
  double lora_missing_inputs = 0;  ///< LoRA tasks: lora_missing_inputs(model, modules, mask)
  AdapterParams adapters;          ///< LoRA tasks: adapter_params(model, modules, mask, rank)
};

/// The modules `t.lora_targets` adapt, as a mask over `modules` (bit i: modules[i]), by the one
/// rule lora_target_matches; no targets means "all-linear", the contract's default. The memory
/// and the step read this mask instead of matching names each.
uint32_t lora_module_mask(const TrainingOptions& t, const LinearModules& modules);

/// Input features, over the whole model, of the LoRA A matrices that `modules` lists but the
/// model does not have. PEFT wraps each targeted nn.Linear with one lora_A (in x r) and one lora_B
/// (r x out) (peft/tuners/lora/layer.py LoraLayer.update_layer); a fused q/k/v Linear
/// (memory_parts.h fused_qkv: Qwen v1's c_attn, modeling_qwen.py nn.Linear(hidden_size,
/// 3 * projection_size)) is one such Linear where the list has q_proj, k_proj and v_proj, so with
/// all three adapted two A matrices of hidden_size inputs per layer are not there: 2 x layers x
/// hidden, else 0. The adapters hold r x this fewer parameters and move this many fewer input
/// features per token. The one rule the memory (trainable parameters) and the training step
/// (adapter parameters, FLOPs and bytes) read.
double lora_missing_inputs(const Model& m, const LinearModules& modules, uint32_t lora_modules);

/// The adapters of the modules in `lora_modules`, each of rank `rank`, less the A matrices a
/// fused q/k/v Linear lacks (lora_missing_inputs; q, k and v are never routed experts, so every
/// token touches them).
AdapterParams adapter_params(const Model& m, const LinearModules& modules, uint32_t lora_modules,
                             int64_t rank);

/// Counts `s.model` and the parameters `s` trains (full, freeze, LoRA adapters and the
/// modules_to_save copies), and for LoRA tasks the adapted modules.
ModelCounts count_model(const Scenario& s);
/// count_model's second half, into counts of `s.model` made in place (ModelCounts(s.model)):
/// the adapted modules and the trainable parameters.
void count_training(const Scenario& s, ModelCounts& c);
/// count_training's fields of `c` back to what ModelCounts(model) leaves them: a copy of the
/// counts of the model under one task, so made, is its counts before another task's part (issue
/// 18: the model's parameters and matrices counted again, ~300 instructions).
void clear_training(ModelCounts& c);

}  // namespace gpusizer
