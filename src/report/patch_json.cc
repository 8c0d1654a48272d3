// A change's merge patch, written once: straight to the answer's text writer (issue 18: no tree)
// in nlohmann's key order, and through the tree writer for to_patch(edit).
#include "gpusizer/json/scenario.h"
#include "gpusizer/scenario_edit.h"
#include "report/describe.h"
#include "report/json_writer.h"
#include "report/raw_writer.h"

namespace gpusizer {
namespace {

// "parallel": the split fields set, or null when the edit drops the input's split (default_split
// with no field set over it), or nothing.
template <typename W>
void describe_split_patch(W& w, const ScenarioEdit& e) {
  const bool any = e.tp || e.pp || e.dp || e.ep || e.cp || e.pp_interleave || e.sequence_parallel;
  if (!any) {
    if (e.default_split) {
      w.key("parallel");
      w.null();
    }
    return;
  }
  w.key("parallel");
  w.begin_object();
  w.field("cp", e.cp);
  w.field("dp", e.dp);
  w.field("ep", e.ep);
  w.field("pp", e.pp);
  w.field("pp_interleave", e.pp_interleave);
  w.field("sequence_parallel", e.sequence_parallel);
  w.field("tp", e.tp);
  w.end_object();
}

// "training": the options set; gradient_checkpointing as the contract spells it (true, false,
// "selective").
template <typename W>
void describe_training_patch(W& w, const ScenarioEdit& e) {
  if (!e.recompute && !e.flash_attention && !e.optimizer && !e.offload && !e.zero_stage &&
      !e.grad_accum && !e.global_batch && !e.mixed_precision)
    return;
  w.key("training");
  w.begin_object();
  w.field("flash_attention", e.flash_attention);
  w.field("global_batch", e.global_batch);
  w.field("grad_accum", e.grad_accum);
  if (e.recompute) {
    w.key("gradient_checkpointing");
    if (*e.recompute == Recompute::kSelective)
      w.string("selective");
    else
      w.boolean(*e.recompute == Recompute::kFull);
  }
  if (e.mixed_precision) w.field("mixed_precision", to_string(*e.mixed_precision));
  if (e.offload) w.field("offload", to_string(*e.offload));
  if (e.optimizer) w.field("optimizer", to_string(*e.optimizer));
  w.field("zero_stage", e.zero_stage);
  w.end_object();
}

}  // namespace

template <typename W>
void describe_patch(W& w, const ScenarioEdit& e) {
  w.begin_object();
  w.field("batch", e.batch);
  w.field("gpu", e.gpu);
  w.field("gpu_count", e.gpu_count);
  w.field("gpus_per_node", e.gpus_per_node);
  w.field("kv_cache", e.kv_cache);
  w.field("output_len", e.output_len);
  describe_split_patch(w, e);
  w.field("prompt_len", e.prompt_len);
  w.field("seq_len", e.seq_len);
  if (e.task) w.field("task", task_name(*e.task));  // a view: no string made
  describe_training_patch(w, e);
  w.field("weights", e.weights);
  w.end_object();
}

nlohmann::json to_patch(const ScenarioEdit& e) {
  TreeWriter w;
  describe_patch(w, e);
  return w.take();
}

// For the three backends (report/describe.h, report/raw_writer.h).
template void describe_patch(TreeWriter&, const ScenarioEdit&);
template void describe_patch(TextWriter&, const ScenarioEdit&);
template void describe_patch(RawWriter&, const ScenarioEdit&);

}  // namespace gpusizer
