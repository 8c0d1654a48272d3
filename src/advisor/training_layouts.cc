#include "advisor/training_layouts.h"

#include <algorithm>

#include "gpusizer/error.h"
#include "memory/memory_estimate.h"

namespace gpusizer {
namespace {

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i * i <= n; ++i)
    if (n % i == 0) {
      d.push_back(i);
      if (i != n / i) d.push_back(n / i);
    }
  std::sort(d.begin(), d.end());
  return d;
}

}  // namespace

LayoutSearchResult search_training_layouts(const Scenario& base, const Catalog& catalog,
                                           const SpeedProfile& profile,
                                           const LayoutSearchOptions& o) {
  if (!base.gpu) throw InputError("gpu", "a training layout search needs a GPU type");
  if (!is_training(base.task)) throw InputError("task", "a layout search is for training tasks");
  const int64_t n = std::max<int64_t>(1, base.gpu_count);
  const int64_t node = std::max<int64_t>(1, base.gpus_per_node);
  const int64_t global =
      base.training.global_batch > 0
          ? base.training.global_batch
          : std::max<int64_t>(1, base.batch) * std::max<int64_t>(1, base.training.grad_accum) * n;
  const int64_t heads = std::max<int64_t>(1, base.model.num_heads);
  const int64_t layers = std::max<int64_t>(1, base.model.num_layers);

  // Tensor parallelism splits heads and the MLP over t ranks (Shoeybi et al. 2019, sec. 3); its
  // per-layer all-reduces keep it inside the NVLink domain (Narayanan et al. 2021, sec. 3.2:
  // "tensor-model-parallel size up to the number of GPUs in a server").
  std::vector<int64_t> tps;
  const int64_t tp_max = o.tp_beyond_node ? n : std::min(n, node);
  for (int64_t t = 1; t <= tp_max; t *= 2)
    if (heads % t == 0 && (o.allow_fewer_gpus || n % t == 0)) tps.push_back(t);

  LayoutSearchResult result;
  std::vector<TrainingLayout> fitting;
  std::string why;
  const std::vector<int64_t> batch_divisors = divisors(global);
  Scenario s = base;
  for (const int64_t t : tps) {
    for (int64_t pp = 1; pp <= std::min(layers, n / t); ++pp) {
      if (!o.allow_fewer_gpus && (n / t) % pp != 0) continue;
      for (const int64_t dp : batch_divisors) {  // the global batch stays fixed
        const int64_t used = t * pp * dp;
        if (used > n) break;
        if (used != n && !o.allow_fewer_gpus) continue;
        const int64_t per_replica = global / dp;
        for (int64_t v = 1; v <= (pp > 1 ? o.max_interleave : 1); ++v) {
          // Interleaving needs whole layers per model chunk (Megatron
          // --num-layers-per-virtual-pipeline-stage).
          if (v > 1 && layers % (pp * v) != 0) continue;
          for (int64_t b = 1; b <= std::min(per_replica, o.max_micro_batch); b *= 2) {
            if (per_replica % b != 0) continue;
            const int64_t m = per_replica / b;
            // The interleaved schedule runs micro-batches in groups of pp (Megatron
            // schedules.py: num_microbatches % pipeline_parallel_size == 0).
            if (v > 1 && m % pp != 0) continue;
            for (const Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
              for (const bool sp : {false, true}) {
                if (sp && t == 1) continue;
                for (int zero = 0; zero <= 3; ++zero) {
                  // Megatron's distributed optimizer is ZeRO-1; stages 2-3 shard gradients and
                  // weights, which pipelines do not combine with (DeepSpeed: ZeRO-2/3 with PP
                  // unsupported). One replica needs no sharding.
                  if (zero > 1 && pp > 1) continue;
                  // Megatron-LM shards at most the optimizer (--use-distributed-optimizer).
                  if (zero > catalog.engine(base.engine).max_zero_stage) continue;
                  if (zero > 0 && dp == 1) continue;
                  // One scenario reused: every field a layout sets is set here.
                  s.gpu_count = used;
                  s.batch = b;
                  s.training.grad_accum = m;
                  s.training.global_batch = global;
                  s.training.recompute = rc;
                  s.training.zero_stage = zero;
                  s.parallel.tp = t;
                  s.parallel.pp = pp;
                  s.parallel.dp = dp;
                  s.parallel.pp_interleave = v;
                  s.parallel.sequence_parallel = sp;
                  ++result.candidates;
                  Estimate scratch;
                  const MemoryEstimate mem = estimate_memory(s, catalog, scratch, false);
                  if (!mem.fits || !*mem.fits) continue;
                  const auto speed = training_speed(s, profile, why);
                  if (!speed) continue;
                  TrainingLayout l;
                  l.parallel = s.parallel;
                  l.gpus = used;
                  l.micro_batch = b;
                  l.grad_accum = m;
                  l.recompute = rc;
                  l.zero_stage = zero;
                  l.memory_bytes = mem.total;
                  l.step_time_s = speed->step_time_s;
                  l.tokens_per_s = speed->tokens_per_s;
                  l.mfu = speed->mfu;
                  l.breakdown = speed->breakdown;
                  fitting.push_back(l);
                }
              }
            }
          }
        }
      }
    }
  }
  result.fitting = static_cast<int64_t>(fitting.size());
  const auto keep = static_cast<size_t>(std::max<int64_t>(0, o.top_n));
  auto faster = [](const TrainingLayout& a, const TrainingLayout& b) {
    return a.step_time_s < b.step_time_s;
  };
  if (fitting.size() > keep) {
    std::partial_sort(fitting.begin(), fitting.begin() + static_cast<std::ptrdiff_t>(keep),
                      fitting.end(), faster);
    fitting.resize(keep);
  } else {
    std::sort(fitting.begin(), fitting.end(), faster);
  }
  result.top = std::move(fitting);
  return result;
}

}  // namespace gpusizer
