#include "advisor/training_layouts.h"

#include <algorithm>
#include <limits>

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

template <typename T>
std::vector<T> pinned_or(const std::optional<T>& pin, std::vector<T> all) {
  if (pin) return {*pin};
  return all;
}

// Recomputation from least to most memory saved (and time added).
std::vector<Recompute> recompute_levels(const EngineLevers& l, const LayoutPins& pins) {
  if (pins.recompute) return {*pins.recompute};
  if (l.selective) return {Recompute::kNone, Recompute::kSelective, Recompute::kFull};
  return {Recompute::kNone, Recompute::kFull};
}

}  // namespace

EngineLevers engine_levers(const std::string& engine) {
  EngineLevers l;
  if (engine == "megatron") {
    // Megatron-LM/Core: TP + SP, PP with virtual stages, CP, EP; the distributed optimizer is
    // ZeRO-1 (--use-distributed-optimizer) and may keep its states on the host
    // (--optimizer-cpu-offload, Megatron-Core HybridDeviceOptimizer).
    l.zero_stages = {0, 1};
    l.offloads = {"none", "optimizer"};
  } else if (engine == "deepspeed") {
    // DeepSpeed: ZeRO 0-3 with ZeRO-Offload (offload_optimizer, stages 1-3) and ZeRO-Infinity
    // (offload_param, stage 3), PipelineModule pipelines, DeepSpeed-MoE expert parallelism; no
    // tensor, sequence or context parallelism of its own (those come from Megatron-DeepSpeed) and
    // checkpointing is whole-layer (deepspeed.checkpointing).
    l.tp = l.sp = l.cp = l.selective = false;
    l.offloads = {"none", "optimizer", "optimizer+params"};
  } else if (engine == "fsdp") {
    // PyTorch FSDP2 as torchtitan composes it: TP with sequence-parallel norms, PP, CP, EP, and
    // NO_SHARD / SHARD_GRAD_OP / FULL_SHARD (ZeRO 0, 2, 3); CPUOffloadPolicy moves parameters,
    // gradients and optimizer states to the host together (FULL_SHARD only). torchtitan's
    // "selective" activation checkpointing is counted as selective.
    l.zero_stages = {0, 2, 3};
    l.offloads = {"none", "optimizer+params"};
  } else {
    // Hugging Face Trainer / accelerate: data parallelism (DDP) and, through its DeepSpeed and
    // FSDP integrations, ZeRO 0-3 with offload; whole-layer gradient checkpointing; layers
    // split over GPUs with device_map (naive pipeline parallelism, timed as such in
    // training_speed.cc), not interleaved.
    l.tp = l.sp = l.cp = l.ep = l.selective = false;
    l.max_interleave = 1;
    l.offloads = {"none", "optimizer", "optimizer+params"};
  }
  return l;
}

Scenario apply_layout(const Scenario& base, const TrainingLayout& l) {
  Scenario s = base;
  s.gpu_count = l.gpus;
  s.parallel = l.parallel;
  s.batch = l.micro_batch;
  s.training.grad_accum = l.grad_accum;
  s.training.recompute = l.recompute;
  s.training.zero_stage = l.zero_stage;
  s.training.offload = l.offload;
  s.default_layout = false;
  return s;
}

LayoutSearchResult search_training_layouts(const Scenario& base, const Catalog& catalog,
                                           const SpeedProfile& profile,
                                           const LayoutSearchOptions& o) {
  if (!base.gpu) throw InputError("gpu", "a training layout search needs a GPU type");
  if (!is_training(base.task) || base.task == Task::kCvTrain)
    throw InputError("task", "a layout search is for training tasks on token sequences");
  const int64_t n = std::max<int64_t>(1, base.gpu_count);
  const int64_t node = std::max<int64_t>(1, base.gpus_per_node);
  const int64_t global =
      base.training.global_batch > 0
          ? base.training.global_batch
          : std::max<int64_t>(1, base.batch) * std::max<int64_t>(1, base.training.grad_accum) * n;
  const int64_t heads = std::max<int64_t>(1, base.model.num_heads);
  const int64_t layers = std::max<int64_t>(1, base.model.num_layers);
  const EngineLevers lv = engine_levers(base.engine);
  const LayoutPins& pin = o.pins;
  const bool fewer = o.allow_fewer_gpus;

  // Tensor parallelism splits heads and the MLP over t ranks (Shoeybi et al. 2019, sec. 3); its
  // per-layer all-reduces keep it inside the NVLink domain (Narayanan et al. 2021, sec. 3.2:
  // "tensor-model-parallel size up to the number of GPUs in a server").
  std::vector<int64_t> tps;
  const int64_t tp_max = !lv.tp ? 1 : o.tp_beyond_node ? n : std::min(n, node);
  for (int64_t t = 1; t <= tp_max; t *= 2)
    if (heads % t == 0 && (fewer || n % t == 0)) tps.push_back(t);
  if (pin.tp) tps = {*pin.tp};
  // Context parallelism: powers of two splitting each sequence into 2 x cp chunks (Megatron-Core
  // get_batch_on_this_cp_rank), each rank keeping at least min_cp_tokens.
  std::vector<int64_t> cps = {1};
  if (lv.cp)
    for (int64_t c = 2; base.seq_len % (2 * c) == 0 && base.seq_len / c >= o.min_cp_tokens; c *= 2)
      cps.push_back(c);
  if (pin.cp) cps = {*pin.cp};
  // Expert parallelism: powers of two dividing the experts.
  std::vector<int64_t> eps = {1};
  if (lv.ep && base.model.is_moe())
    for (int64_t e = 2; e <= base.model.num_experts && base.model.num_experts % e == 0; e *= 2)
      eps.push_back(e);
  if (pin.ep) eps = {*pin.ep};
  const std::vector<Recompute> rcs = recompute_levels(lv, pin);
  const std::vector<std::string> offloads = pinned_or(pin.offload, lv.offloads);
  const std::vector<int> zeros = pinned_or(pin.zero_stage, lv.zero_stages);

  LayoutSearchResult result;
  std::vector<TrainingLayout> fitting;
  std::string why;
  Estimate scratch;
  const std::vector<int64_t> batch_divisors = divisors(global);
  double capacity = 0;
  Scenario s = base;
  s.default_layout = false;
  s.training.global_batch = global;

  // Memory of one layout; sets `fits` against the usable memory.
  auto memory_of = [&](bool& fits) {
    ++result.memory_estimates;
    const MemoryEstimate mem = estimate_memory(s, catalog, scratch, false);
    capacity = mem.capacity.value_or(0);
    const double usable = capacity * (1.0 - o.headroom);
    fits = mem.fits.value_or(false) && mem.total <= usable;
    if (!fits && (result.closest_bytes == 0 || mem.total < result.closest_bytes)) {
      result.closest_bytes = mem.total;
      result.usable_bytes = usable;
      TrainingLayout l;
      l.parallel = s.parallel;
      l.gpus = s.gpu_count;
      l.micro_batch = s.batch;
      l.grad_accum = s.training.grad_accum;
      l.recompute = s.training.recompute;
      l.zero_stage = s.training.zero_stage;
      l.offload = s.training.offload;
      l.memory_bytes = mem.total;
      result.closest = l;
    }
    return mem.total;
  };

  for (const int64_t t : tps) {
    for (int64_t pp = 1; pp <= std::min(layers, n / t); ++pp) {
      if (pin.pp && pp != *pin.pp) continue;
      if (pp > 1 && !lv.pp && !pin.pp) break;
      if (!fewer && (n / t) % pp != 0) continue;
      for (const int64_t cp : cps) {
        for (const int64_t ep : eps) {
          const int64_t replica = t * pp * cp * ep;
          if (replica > n || (!fewer && n % replica != 0)) continue;
          for (const int64_t dp : batch_divisors) {  // the global batch stays fixed
            if (pin.dp && dp != *pin.dp) continue;
            const int64_t used = replica * dp;
            if (used > n) break;
            if (used != n && !fewer) continue;
            // Every rank outside the tensor, pipeline and context groups reads its own data
            // (expert-parallel ranks are carved out of the data-parallel ones).
            if (global % (dp * ep) != 0) continue;
            const int64_t per_replica = global / (dp * ep);
            // The (v, b) pairs of this group: interleaving needs whole layers per model chunk
            // (Megatron --num-layers-per-virtual-pipeline-stage) and micro-batches in groups of
            // pp (schedules.py: num_microbatches % pipeline_parallel_size == 0).
            struct Vb {
              int64_t v, b;
            };
            std::vector<Vb> vbs;
            for (int64_t v = 1; v <= (pp > 1 ? std::min(o.max_interleave, lv.max_interleave) : 1);
                 ++v) {
              if (pin.pp_interleave && v != *pin.pp_interleave && pp > 1) continue;
              if (v > 1 && layers % (pp * v) != 0) continue;
              for (int64_t b = 1; b <= std::min(per_replica, o.max_micro_batch); b *= 2) {
                if (pin.micro_batch && b != *pin.micro_batch) continue;
                if (per_replica % b != 0) continue;
                if (v > 1 && (per_replica / b) % pp != 0) continue;
                vbs.push_back({v, b});
              }
            }
            if (vbs.empty()) continue;
            std::vector<bool> sps = {false};
            if (lv.sp && t > 1) sps = {false, true};
            if (pin.sequence_parallel) sps = {*pin.sequence_parallel && t > 1};
            for (const int zero : zeros) {
              // ZeRO-2/3 shard gradients and weights, which pipelines do not combine with
              // (DeepSpeed: ZeRO-2/3 with PP unsupported). One replica needs no sharding,
              // except to offload (ZeRO-Offload's single-GPU case, Ren et al. 2021 sec. 5).
              if (zero > 1 && pp > 1) continue;
              // ZeRO-Offload needs ZeRO 1+ (DeepSpeed offload_optimizer) and parameter offload
              // ZeRO-3 (offload_param; FSDP CPUOffload with FULL_SHARD). Cheapest first.
              std::vector<const std::string*> offs;
              for (const std::string& off : offloads) {
                if (off != "none" && zero == 0) continue;
                if (off == "optimizer+params" && zero < 3) continue;
                if (zero > 0 && dp == 1 && off == "none") continue;
                offs.push_back(&off);
              }
              if (offs.empty()) continue;
              const auto per_vb = static_cast<int64_t>(sps.size() * rcs.size() * offs.size());
              // ZeRO-1 and -2 shard the optimizer states over dp: less memory and a dp-times
              // shorter optimizer step for the same traffic (Rajbhandari et al. 2020 sec. 5.1,
              // 7.2.1), so with dp > 1 every ZeRO-0 layout has a faster sharded twin that fits.
              const bool sharded_twin =
                  std::find(zeros.begin(), zeros.end(), 1) != zeros.end() ||
                  (pp == 1 && std::find(zeros.begin(), zeros.end(), 2) != zeros.end());
              if (o.prune && zero == 0 && dp > 1 && sharded_twin) {
                result.candidates += per_vb * static_cast<int64_t>(vbs.size());
                continue;
              }
              s.gpu_count = used;
              s.training.zero_stage = zero;
              s.parallel.tp = t;
              s.parallel.pp = pp;
              s.parallel.dp = dp;
              s.parallel.cp = cp;
              s.parallel.ep = ep;
              // Bounds: memory grows with v (more micro-batches in flight) and with b
              // (min(pp, m) x b in flight), and falls with SP, recomputation and offload. A cell
              // (v, b) whose least-memory member (SP, the strongest recomputation and offload)
              // does not fit holds nothing that fits, nor does any cell after it with a b at
              // least as large (cells come in order of v, then b).
              int64_t blocked_v = -1;  // v whose micro-batch b fit nowhere
              int64_t blocked_b = std::numeric_limits<int64_t>::max();
              for (const Vb& vb : vbs) {
                if (o.prune && (vb.v == blocked_v || vb.b >= blocked_b)) {
                  result.candidates += per_vb;
                  continue;
                }
                bool any = false;
                s.batch = vb.b;
                s.training.grad_accum = per_replica / vb.b;
                s.parallel.pp_interleave = vb.v;
                if (o.prune && per_vb > 1) {
                  s.parallel.sequence_parallel = sps.back();
                  s.training.recompute = rcs.back();
                  s.training.offload = *offs.back();
                  bool fits = false;
                  memory_of(fits);
                  if (!fits) {
                    result.candidates += per_vb;
                    blocked_v = vb.v;
                    blocked_b = std::min(blocked_b, vb.b);
                    continue;
                  }
                }
                for (const bool sp : sps) {
                  s.parallel.sequence_parallel = sp;
                  for (size_t ri = 0; ri < rcs.size(); ++ri) {
                    s.training.recompute = rcs[ri];
                    bool fit_plain = false;
                    for (size_t oi = 0; oi < offs.size(); ++oi) {
                      ++result.candidates;
                      s.training.offload = *offs[oi];
                      bool fits = false;
                      const double bytes = memory_of(fits);
                      if (!fits) continue;
                      any = true;
                      const auto speed = training_speed(s, profile, why);
                      if (!speed) break;
                      TrainingLayout l;
                      l.parallel = s.parallel;
                      l.gpus = used;
                      l.micro_batch = vb.b;
                      l.grad_accum = s.training.grad_accum;
                      l.recompute = rcs[ri];
                      l.zero_stage = zero;
                      l.offload = *offs[oi];
                      l.memory_bytes = bytes;
                      l.step_time_s = speed->step_time_s;
                      l.tokens_per_s = speed->tokens_per_s;
                      l.mfu = speed->mfu;
                      l.breakdown = speed->breakdown;
                      fitting.push_back(l);
                      if (!o.prune) continue;
                      // Offload only adds time (PCIe and the host optimizer, Ren et al. 2021):
                      // the same layout with more of it is not tried.
                      result.candidates += static_cast<int64_t>(offs.size() - oi - 1);
                      fit_plain = oi == 0;
                      break;
                    }
                    if (o.prune && fit_plain) {
                      // Stronger recomputation only adds time to a layout that fits.
                      result.candidates +=
                          static_cast<int64_t>((rcs.size() - ri - 1) * offs.size());
                      break;
                    }
                  }
                }
                // Micro-batches grow along vbs within one v: a larger one fits nowhere either.
                if (!any) {
                  blocked_v = vb.v;
                  blocked_b = std::min(blocked_b, vb.b);
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
