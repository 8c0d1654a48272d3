#pragma once
// Layout search for a training job on a fixed GPU type and count: tensor parallelism inside the
// node's fast-link domain, pipeline parallelism with interleaving, context and expert
// parallelism, data parallelism, micro-batch and gradient accumulation at the fixed global
// batch, recomputation, sequence parallelism, the ZeRO stage and CPU offload, each within what
// the engine offers. Layouts are pruned by memory first (the memory estimator, bytes only) and
// the ones that fit are ranked by step time (the stage model of src/speed/training_speed.cc).
// `recommend` reaches it through src/advisor/training_plan.cc.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpusizer/advisor.h"
#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"
#include "gpusizer/scenario_edit.h"
#include "gpusizer/speed_profile.h"
#include "speed/training_speed.h"

namespace gpusizer {

struct LayoutSearchOptions {
  int64_t top_n = 20;
  bool tp_beyond_node = false;  ///< allow tensor groups larger than gpus_per_node
  int64_t max_interleave = 4;   ///< largest pipeline interleave v tried
  int64_t max_micro_batch = 16;
  /// Smallest sequence slice one context-parallel rank keeps (Megatron-Core recommends context
  /// parallelism for long sequences; below a few thousand tokens per rank its ring costs more
  /// than it saves).
  int64_t min_cp_tokens = 4096;
  /// Also try layouts on fewer GPUs than gpu_count (tp x pp x cp x ep x dp <= gpu_count): a
  /// count such as 5128 = 8 x 641 leaves no data-parallel size that divides the global batch.
  bool allow_fewer_gpus = false;
  /// Share of the GPU's usable memory kept free (recommend's headroom).
  double headroom = 0;
  /// Skip what cannot win: a (v, micro-batch) cell whose least-memory member does not fit, and
  /// every later cell with as large a micro-batch; stronger recomputation or offload once a
  /// weaker one fits (both only add time). false: estimate every candidate (tests compare).
  bool prune = true;
  LayoutPins pins;
};

struct TrainingLayout {
  Parallelism parallel;
  int64_t gpus = 0;  ///< tp x pp x cp x ep x dp
  int64_t micro_batch = 1, grad_accum = 1;
  Recompute recompute = Recompute::kNone;
  int zero_stage = 0;
  Offload offload = Offload::kNone;
  double memory_bytes = 0;  ///< per GPU, device total
  double step_time_s = 0;
  double tokens_per_s = 0;
  double mfu = 0;
  StepBreakdown breakdown;
};

struct LayoutSearchResult {
  std::vector<TrainingLayout> top;  ///< fastest first
  int64_t candidates = 0;           ///< layouts decided (estimated, or excluded by a bound)
  int64_t memory_estimates = 0;     ///< memory estimator calls
  int64_t fitting = 0;              ///< layouts that fit and were timed
  /// The layout closest to fitting when none fits: its memory per GPU and the usable memory.
  double closest_bytes = 0, usable_bytes = 0;
  std::optional<TrainingLayout> closest;
};

/// Searches the layouts of `base` (model, task, GPU, gpu_count, gpus_per_node, seq_len, engine,
/// training.global_batch; when that is 0, batch x grad_accum x gpu_count). Throws InputError when
/// the scenario has no GPU.
LayoutSearchResult search_training_layouts(const Scenario& base, const Catalog& catalog,
                                           const SpeedProfile& profile,
                                           const LayoutSearchOptions& options = {});

/// The layout as an edit of the job's scenario (scenario_edit.h): its whole split, micro-batch,
/// accumulation, recomputation, ZeRO stage and offload, at the job's `global_batch`.
ScenarioEdit layout_edit(const TrainingLayout& layout, int64_t global_batch);

}  // namespace gpusizer
