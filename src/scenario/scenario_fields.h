#pragma once
// The scenario object's members, read in one pass (issue 18): parse_scenario reads each field
// from its slot instead of searching the object's map for it (~25 searches a line), and turns
// the keys it does not know into notes without searching the list of known keys for each.
#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"
#include "gpusizer/scenario_edit.h"

namespace gpusizer {

/// The scenario object's keys, in scenario_keys().top's order (scenario_test.cc checks it).
namespace key {
enum : size_t {
  model,
  task,
  weights,
  kv_cache,
  batch,
  seq_len,
  prompt_len,
  output_len,
  engine,
  engine_version,
  gpu_memory_utilization,
  max_num_batched_tokens,
  max_num_seqs,
  max_model_len,
  training,
  parallel,
  gpu,
  gpu_count,
  gpus_per_node,
  image_size,
  dataset_items,
  epochs,
  method,
  changes,
  basis,
  costs,
  facility,
  traffic,
  slo,
  offline_requests,
  kTopCount
};
}  // namespace key

/// The "training" object's keys, in scenario_keys().training's order.
namespace training_key {
enum : size_t {
  optimizer,
  mixed_precision,
  gradient_checkpointing,
  flash_attention,
  lora_rank,
  lora_targets,
  modules_to_save,
  zero_stage,
  offload,
  grad_accum,
  global_batch,
  tokens,
  chunked_loss,
  optimizer_in_backward,
  activation_offload,
  compile,
  trainable_layers,
  kCount
};
}  // namespace training_key

/// The "parallel" object's keys, in scenario_keys().parallel's order.
namespace parallel_key {
enum : size_t { tp, pp, dp, ep, sequence_parallel, pp_interleave, cp, tp_comm_overlap, kCount };
}  // namespace parallel_key

using ScenarioFields = Members<key::kTopCount>;

/// The members of a scenario; throws parse_scenario's InputError when `input` is not an object.
/// The pointers point into `input`.
ScenarioFields scenario_fields(const nlohmann::json& input);

class ScenarioText;

/// The members of a scenario's text (gpusizer/json/scenario_text.h; not an overload of
/// scenario_fields, which nlohmann's conversions would test a JSON argument against): its own
/// values when it was read by its members, otherwise scenario_fields of its tree. The pointers
/// point into `text`.
struct ScenarioFieldsAccess {
  static ScenarioFields fields(const ScenarioText& text);
};
inline ScenarioFields text_fields(const ScenarioText& text) {
  return ScenarioFieldsAccess::fields(text);
}

/// parse_scenario from the members already read (the answer reads "basis", "changes", "method"
/// and "model" from the same members).
Scenario parse_scenario(const ScenarioFields& input, const Catalog& catalog, ScenarioGiven& given);

}  // namespace gpusizer
