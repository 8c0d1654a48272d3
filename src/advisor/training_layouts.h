#pragma once
// Layout search for a training job on a fixed GPU type and count: tensor parallelism inside the
// node's fast-link domain, pipeline parallelism with interleaving, data parallelism, micro-batch
// and gradient accumulation at the fixed global batch, recomputation, sequence parallelism and
// the ZeRO stage. Layouts are pruned by memory first (the memory estimator, bytes only) and the
// ones that fit are ranked by step time (the stage model of src/speed/training_speed.cc).
// Not wired into `recommend` yet.
#include <cstdint>
#include <vector>

#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"
#include "gpusizer/speed_profile.h"
#include "speed/training_speed.h"

namespace gpusizer {

struct LayoutSearchOptions {
  int64_t top_n = 20;
  bool tp_beyond_node = false;  ///< allow tensor groups larger than gpus_per_node
  int64_t max_interleave = 4;   ///< largest pipeline interleave v tried
  int64_t max_micro_batch = 16;
  /// Also try layouts on fewer GPUs than gpu_count (tp x pp x dp <= gpu_count): a count such as
  /// 5128 = 8 x 641 leaves no data-parallel size that divides the global batch.
  bool allow_fewer_gpus = false;
};

struct TrainingLayout {
  Parallelism parallel;
  int64_t gpus = 0;  ///< tp x pp x dp
  int64_t micro_batch = 1, grad_accum = 1;
  Recompute recompute = Recompute::kNone;
  int zero_stage = 0;
  double memory_bytes = 0;  ///< per GPU, device total
  double step_time_s = 0;
  double tokens_per_s = 0;
  double mfu = 0;
  StepBreakdown breakdown;
};

struct LayoutSearchResult {
  std::vector<TrainingLayout> top;  ///< fastest first
  int64_t candidates = 0;           ///< layouts enumerated
  int64_t fitting = 0;              ///< of them, those whose memory fits
};

/// Searches the layouts of `base` (model, task, GPU, gpu_count, gpus_per_node, seq_len, engine,
/// training.global_batch; when that is 0, batch x grad_accum x gpu_count). Throws InputError when
/// the scenario has no GPU.
LayoutSearchResult search_training_layouts(const Scenario& base, const Catalog& catalog,
                                           const SpeedProfile& profile,
                                           const LayoutSearchOptions& options = {});

}  // namespace gpusizer
