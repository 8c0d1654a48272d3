#include "advisor/training_layouts.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "gpusizer/error.h"
#include "memory/memory_estimate.h"
#include "memory/model_counts.h"

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
std::vector<Recompute> recompute_levels(const TrainingLevers& l, const LayoutPins& pins) {
  if (pins.recompute) return {*pins.recompute};
  if (l.selective) return {Recompute::kNone, Recompute::kSelective, Recompute::kFull};
  return {Recompute::kNone, Recompute::kFull};
}

}  // namespace

ScenarioEdit layout_edit(const TrainingLayout& l, int64_t global_batch) {
  const Parallelism& p = l.parallel;
  return {.batch = l.micro_batch,
          .gpu_count = l.gpus,
          .tp = p.tp,
          .pp = p.pp,
          .dp = p.dp,
          .ep = p.ep,
          .cp = p.cp,
          .pp_interleave = p.pp_interleave,
          .sequence_parallel = p.sequence_parallel,
          .recompute = l.recompute,
          .offload = l.offload,
          .zero_stage = l.zero_stage,
          .grad_accum = l.grad_accum,
          .global_batch = global_batch};
}

namespace {

// The values each lever takes for this job (pins kept), and the job's fixed sizes.
struct SearchGrid {
  int64_t n = 1, global = 1, layers = 1;
  bool fewer = false;
  std::vector<int64_t> tps, cps, eps, batch_divisors;
  std::vector<Recompute> rcs;
  std::vector<Offload> offloads;
  std::vector<int> zeros;
};

SearchGrid search_grid(const Scenario& base, const TrainingLevers& lv,
                       const LayoutSearchOptions& o) {
  SearchGrid g;
  const LayoutPins& pin = o.pins;
  g.n = std::max<int64_t>(1, base.gpu_count);
  const int64_t node = std::max<int64_t>(1, base.gpus_per_node);
  g.global =
      base.training.global_batch > 0
          ? base.training.global_batch
          : std::max<int64_t>(1, base.batch) * std::max<int64_t>(1, base.training.grad_accum) * g.n;
  const int64_t heads = std::max<int64_t>(1, base.model->num_heads);
  g.layers = std::max<int64_t>(1, base.model->num_layers);
  g.fewer = o.allow_fewer_gpus;
  // Tensor parallelism splits heads and the MLP over t ranks (Shoeybi et al. 2019, sec. 3); its
  // per-layer all-reduces keep it inside the NVLink domain (Narayanan et al. 2021, sec. 3.2:
  // "tensor-model-parallel size up to the number of GPUs in a server").
  const int64_t tp_max = !lv.tp ? 1 : o.tp_beyond_node ? g.n : std::min(g.n, node);
  for (int64_t t = 1; t <= tp_max; t *= 2)
    if (heads % t == 0 && (g.fewer || g.n % t == 0)) g.tps.push_back(t);
  if (pin.tp) g.tps = {*pin.tp};
  // Context parallelism: powers of two splitting each sequence into 2 x cp chunks (Megatron-Core
  // get_batch_on_this_cp_rank), each rank keeping at least min_cp_tokens.
  g.cps = {1};
  if (lv.cp)
    for (int64_t c = 2; base.seq_len % (2 * c) == 0 && base.seq_len / c >= o.min_cp_tokens; c *= 2)
      g.cps.push_back(c);
  if (pin.cp) g.cps = {*pin.cp};
  // Expert parallelism: powers of two dividing the experts.
  g.eps = {1};
  if (lv.ep && base.model->is_moe())
    for (int64_t e = 2; e <= base.model->num_experts && base.model->num_experts % e == 0; e *= 2)
      g.eps.push_back(e);
  if (pin.ep) g.eps = {*pin.ep};
  g.rcs = recompute_levels(lv, pin);
  g.offloads = pinned_or(pin.offload, lv.offloads);
  g.zeros = pinned_or(pin.zero_stage, lv.zero_stages);
  g.batch_divisors = divisors(g.global);
  return g;
}

struct Vb {
  int64_t v, b;
};

// The search over one job: the scenario it varies in place and what it has found. The layouts
// change only the parallel layout, the batch split, recomputation, ZeRO and offload, none of which
// the model's counts depend on (count_model: the model, the task and its adapter or freeze
// options), so the model is counted once for the search and every memory and speed estimate of
// it reads those counts, as estimate() passes its own.
class LayoutSearch {
 public:
  LayoutSearch(const Scenario& base, const Catalog& catalog, const SpeedProfile& profile,
               const LayoutSearchOptions& o)
      : catalog_(catalog),
        profile_(profile),
        o_(o),
        engine_(catalog.engine(base.engine)),
        lv_(engine_.training_levers),
        g_(search_grid(base, lv_, o)),
        s_(base),
        counts_(count_model(base)) {
    s_.default_layout = false;
    s_.training.global_batch = g_.global;
  }

  LayoutSearchResult run();

 private:
  void search_group(int64_t t, int64_t pp, int64_t cp, int64_t ep, int64_t dp);
  std::vector<Vb> interleave_and_micro_batches(int64_t pp, int64_t per_replica) const;
  std::vector<Offload> offloads_for(int zero, int64_t ranks) const;
  void search_zero(int zero, const std::vector<Vb>& vbs, const std::vector<bool>& sps,
                   int64_t per_replica);
  bool search_cell(const std::vector<bool>& sps, const std::vector<Offload>& offs);
  bool fits_memory(double& bytes);
  void keep(double bytes, const TrainingSpeed& speed);
  TrainingLayout current_layout(double bytes) const;

  const Catalog& catalog_;
  const SpeedProfile& profile_;
  const LayoutSearchOptions& o_;
  const EngineProfile& engine_;
  const TrainingLevers& lv_;
  const SearchGrid g_;
  Scenario s_;
  const ModelCounts counts_;  ///< count_model(s_), the same for every layout
  LayoutSearchResult result_;
  std::vector<TrainingLayout> fitting_;
  std::string why_;
  /// Smallest micro-batch found not to fit, by (ZeRO stage, v), over the data-parallel sizes
  /// >= 2 of the current (tp, pp, cp, ep) group tried so far.
  std::map<std::pair<int, int64_t>, int64_t> no_fit_b_;
};

// Memory of the current layout (the memory estimator, bytes only) against the usable memory;
// remembers the layout closest to fitting.
bool LayoutSearch::fits_memory(double& bytes) {
  ++result_.memory_estimates;
  const MemoryEstimate mem = estimate_memory(s_, catalog_, counts_, nullptr);
  const double usable = mem.capacity.value_or(0) * (1.0 - o_.headroom);
  const bool fits = mem.fits.value_or(false) && mem.total <= usable;
  bytes = mem.total;
  if (!fits && (result_.closest_bytes == 0 || mem.total < result_.closest_bytes)) {
    result_.closest_bytes = mem.total;
    result_.usable_bytes = usable;
    result_.closest = current_layout(mem.total);
  }
  return fits;
}

// The layout the search's scenario holds now, with its memory per GPU.
TrainingLayout LayoutSearch::current_layout(double bytes) const {
  TrainingLayout l;
  l.parallel = s_.parallel;
  l.gpus = s_.gpu_count;
  l.micro_batch = s_.batch;
  l.grad_accum = s_.training.grad_accum;
  l.recompute = s_.training.recompute;
  l.zero_stage = s_.training.zero_stage;
  l.offload = s_.training.offload;
  l.memory_bytes = bytes;
  return l;
}

void LayoutSearch::keep(double bytes, const TrainingSpeed& speed) {
  TrainingLayout l = current_layout(bytes);
  l.step_time_s = speed.step_time_s;
  l.tokens_per_s = speed.tokens_per_s;
  l.mfu = speed.mfu;
  l.breakdown = speed.breakdown;
  fitting_.push_back(std::move(l));
}

LayoutSearchResult LayoutSearch::run() {
  const int64_t n = g_.n;
  for (const int64_t t : g_.tps) {
    for (int64_t pp = 1; pp <= std::min(g_.layers, n / t); ++pp) {
      if (o_.pins.pp && pp != *o_.pins.pp) continue;
      if (pp > 1 && !lv_.pp && !o_.pins.pp) break;
      if (!g_.fewer && (n / t) % pp != 0) continue;
      for (const int64_t cp : g_.cps) {
        for (const int64_t ep : g_.eps) {
          const int64_t replica = t * pp * cp * ep;
          if (replica > n || (!g_.fewer && n % replica != 0)) continue;
          // The global batch stays fixed: dp divides it. Largest first, so that what does not
          // fit at one dp >= 2 bounds the smaller ones (no_fit_b_).
          no_fit_b_.clear();
          for (auto it = g_.batch_divisors.rbegin(); it != g_.batch_divisors.rend(); ++it) {
            const int64_t dp = *it;
            if (o_.pins.dp && dp != *o_.pins.dp) continue;
            const int64_t used = replica * dp;
            if (used > n || (used != n && !g_.fewer)) continue;
            search_group(t, pp, cp, ep, dp);
          }
        }
      }
    }
  }
  result_.fitting = static_cast<int64_t>(fitting_.size());
  const auto top = static_cast<size_t>(std::max<int64_t>(0, o_.top_n));
  auto faster = [](const TrainingLayout& a, const TrainingLayout& b) {
    return a.step_time_s < b.step_time_s;
  };
  if (fitting_.size() > top) {
    std::partial_sort(fitting_.begin(), fitting_.begin() + static_cast<std::ptrdiff_t>(top),
                      fitting_.end(), faster);
    fitting_.resize(top);
  } else {
    std::sort(fitting_.begin(), fitting_.end(), faster);
  }
  result_.top = std::move(fitting_);
  return std::move(result_);
}

// The (v, b) pairs of a group: interleaving needs whole layers per model chunk (Megatron
// --num-layers-per-virtual-pipeline-stage) and micro-batches in groups of pp (schedules.py:
// num_microbatches % pipeline_parallel_size == 0). In order of v, then b.
std::vector<Vb> LayoutSearch::interleave_and_micro_batches(int64_t pp, int64_t per_replica) const {
  std::vector<Vb> vbs;
  const LayoutPins& pin = o_.pins;
  const int64_t max_v = pp > 1 ? std::min(o_.max_interleave, lv_.max_interleave) : 1;
  for (int64_t v = 1; v <= max_v; ++v) {
    if (pin.pp_interleave && v != *pin.pp_interleave && pp > 1) continue;
    if (v > 1 && g_.layers % (pp * v) != 0) continue;
    for (int64_t b = 1; b <= std::min(per_replica, o_.max_micro_batch); b *= 2) {
      if (pin.micro_batch && b != *pin.micro_batch) continue;
      if (per_replica % b != 0) continue;
      if (v > 1 && (per_replica / b) % pp != 0) continue;
      vbs.push_back({v, b});
    }
  }
  return vbs;
}

// One parallel group (tp, pp, cp, ep, dp): every ZeRO stage, (v, b) cell and lever on it.
void LayoutSearch::search_group(int64_t t, int64_t pp, int64_t cp, int64_t ep, int64_t dp) {
  // Every rank outside the tensor, pipeline and context groups reads its own data
  // (expert-parallel ranks are carved out of the data-parallel ones).
  if (g_.global % (dp * ep) != 0) return;
  const int64_t per_replica = g_.global / (dp * ep);
  const std::vector<Vb> vbs = interleave_and_micro_batches(pp, per_replica);
  if (vbs.empty()) return;
  std::vector<bool> sps = {false};
  if (lv_.sp && t > 1) sps = {false, true};
  if (o_.pins.sequence_parallel) sps = {*o_.pins.sequence_parallel && t > 1};
  s_.gpu_count = t * pp * cp * ep * dp;
  s_.parallel.tp = t;
  s_.parallel.pp = pp;
  s_.parallel.dp = dp;
  s_.parallel.cp = cp;
  s_.parallel.ep = ep;
  for (const int zero : g_.zeros) search_zero(zero, vbs, sps, per_replica);
}

// The offloads a ZeRO stage takes, cheapest first: ZeRO-Offload needs ZeRO 1+ (DeepSpeed
// offload_optimizer) and parameter offload ZeRO-3 (offload_param; FSDP CPUOffload with
// FULL_SHARD). One copy of the states needs no sharding, except to offload (ZeRO-Offload's
// single-GPU case, Ren et al. 2021 sec. 5); `ranks` holds the dense states' copies
// (Scenario::dense_data_ranks: one replica's expert and context ranks hold them too).
std::vector<Offload> LayoutSearch::offloads_for(int zero, int64_t ranks) const {
  std::vector<Offload> offs;
  for (const Offload off : g_.offloads) {
    if (off != Offload::kNone && zero == 0) continue;
    if (off == Offload::kOptimizerParams && zero < 3) continue;
    if (zero > 0 && ranks == 1 && off == Offload::kNone) continue;
    offs.push_back(off);
  }
  return offs;
}

void LayoutSearch::search_zero(int zero, const std::vector<Vb>& vbs, const std::vector<bool>& sps,
                               int64_t per_replica) {
  const int64_t pp = s_.parallel.pp, dp = s_.parallel.dp;
  // ZeRO-2/3 shard gradients and weights, which pipelines do not combine with (DeepSpeed:
  // ZeRO-2/3 with PP unsupported).
  if (zero > 1 && pp > 1) return;
  const std::vector<Offload> offs = offloads_for(zero, s_.dense_data_ranks());
  if (offs.empty()) return;
  const auto per_vb = static_cast<int64_t>(sps.size() * g_.rcs.size() * offs.size());
  // ZeRO-1 and -2 shard the optimizer states over the data-parallel ranks: less memory and a
  // shorter optimizer step for the same traffic (Rajbhandari et al. 2020 sec. 5.1, 7.2.1), so
  // with more than one copy of the dense states every ZeRO-0 layout has a faster sharded twin
  // that fits.
  const auto& zs = g_.zeros;
  const bool sharded_twin = std::find(zs.begin(), zs.end(), 1) != zs.end() ||
                            (pp == 1 && std::find(zs.begin(), zs.end(), 2) != zs.end());
  if (o_.prune && zero == 0 && s_.dense_data_ranks() > 1 && sharded_twin) {
    result_.candidates += per_vb * static_cast<int64_t>(vbs.size());
    return;
  }
  s_.training.zero_stage = zero;
  // Bounds (exact: they skip only what cannot fit). Memory grows with b (min(pp, m) x b
  // micro-batch tokens in flight) and falls with SP, recomputation and offload, so a cell (v, b)
  // whose least-memory member (SP, the strongest recomputation and offload) does not fit holds
  // nothing that fits, nor does a cell of the same v with a larger b. Interleaving keeps
  // 1 + (pp - 1) / (pp v) times more in flight than v = 1 (src/memory/activations.cc), so a b
  // that fails at v = 1 fails at every v. Across data-parallel sizes (largest first), a cell that
  // fails at dp >= 2 fails at every smaller dp >= 2: fewer optimizer shards, more micro-batches.
  int64_t blocked_v = -1;  // the v whose b last failed: its larger b fail too
  int64_t blocked_b_all = std::numeric_limits<int64_t>::max();  // failed at v = 1
  auto no_fit_before = [&](const Vb& vb) {
    if (dp < 2) return false;
    for (const int64_t v : {vb.v, int64_t{1}}) {
      const auto it = no_fit_b_.find(std::pair<int, int64_t>{zero, v});
      if (it != no_fit_b_.end() && vb.b >= it->second) return true;
    }
    return false;
  };
  auto block = [&](const Vb& vb) {
    blocked_v = vb.v;
    if (vb.v == 1) blocked_b_all = std::min(blocked_b_all, vb.b);
    if (dp < 2) return;
    auto [it, added] = no_fit_b_.try_emplace(std::pair<int, int64_t>{zero, vb.v}, vb.b);
    if (!added) it->second = std::min(it->second, vb.b);
  };
  for (const Vb& vb : vbs) {
    if (o_.prune && (vb.v == blocked_v || vb.b >= blocked_b_all || no_fit_before(vb))) {
      result_.candidates += per_vb;
      continue;
    }
    s_.batch = vb.b;
    s_.training.grad_accum = per_replica / vb.b;
    s_.parallel.pp_interleave = vb.v;
    if (o_.prune && per_vb > 1) {
      s_.parallel.sequence_parallel = sps.back();
      s_.training.recompute = g_.rcs.back();
      s_.training.offload = offs.back();
      double bytes = 0;
      if (!fits_memory(bytes)) {
        result_.candidates += per_vb;
        block(vb);
        continue;
      }
    }
    if (!search_cell(sps, offs)) block(vb);
  }
}

// Sequence parallelism, recomputation and offload on one (v, b) cell; true when any fits.
bool LayoutSearch::search_cell(const std::vector<bool>& sps, const std::vector<Offload>& offs) {
  bool any = false;
  const std::vector<Recompute>& rcs = g_.rcs;
  for (const bool sp : sps) {
    s_.parallel.sequence_parallel = sp;
    for (size_t ri = 0; ri < rcs.size(); ++ri) {
      s_.training.recompute = rcs[ri];
      bool fit_plain = false;
      for (size_t oi = 0; oi < offs.size(); ++oi) {
        ++result_.candidates;
        s_.training.offload = offs[oi];
        double bytes = 0;
        if (!fits_memory(bytes)) continue;
        any = true;
        const auto speed = training_speed(s_, engine_, profile_, counts_, why_);
        if (!speed) break;
        keep(bytes, *speed);
        if (!o_.prune) continue;
        // Offload only adds time (PCIe and the host optimizer, Ren et al. 2021): the same
        // layout with more of it is not tried.
        result_.candidates += static_cast<int64_t>(offs.size() - oi - 1);
        fit_plain = oi == 0;
        break;
      }
      if (o_.prune && fit_plain) {
        // Stronger recomputation only adds time to a layout that fits.
        result_.candidates += static_cast<int64_t>((rcs.size() - ri - 1) * offs.size());
        break;
      }
    }
  }
  return any;
}

}  // namespace

LayoutSearchResult search_training_layouts(const Scenario& base, const Catalog& catalog,
                                           const SpeedProfile& profile,
                                           const LayoutSearchOptions& o) {
  if (!base.gpu) throw InputError("gpu", "a training layout search needs a GPU type");
  if (!is_training(base.task) || base.task == Task::kCvTrain)
    throw InputError("task", "a layout search is for training tasks on token sequences");
  return LayoutSearch(base, catalog, profile, o).run();
}

}  // namespace gpusizer
