#include "estimate/layout.h"

#include <optional>
#include <utility>
#include <vector>

#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"
#include "memory/memory_estimate.h"
#include "memory/memory_parts.h"
#include "memory/model_counts.h"
#include "memory/pool_fraction.h"
#include "scenario/lookups.h"
#include "speed/counted_speed.h"

namespace gpusizer {
namespace {

// Whether the engine splits a model by tensor parallelism (vLLM, SGLang, TensorRT-LLM) or by
// layers (HF device_map="auto", llama.cpp --split-mode layer).
bool splits_tensors(const Scenario& s, const Catalog& catalog) {
  return engine_profile(s, catalog).splits_tensors && !s.model->is_cv();
}

// Candidate splits of `width` GPUs into (tp, pp): tensor parallelism up to the node's fast-link
// domain and the head count (Megatron TP needs heads % tp == 0), pipeline stages beyond it.
bool split(const Scenario& s, bool tensors, int64_t width, Parallelism& p) {
  p.tp = 1;
  p.pp = width;
  if (tensors) {
    int64_t tp = std::min(width, s.gpus_per_node);
    while (tp > 1 && (width % tp != 0 || (s.model->num_heads > 0 && s.model->num_heads % tp != 0)))
      --tp;
    p.tp = tp;
    p.pp = width / tp;
  }
  return s.model->is_cv() || s.model->num_layers <= 0 || p.pp <= s.model->num_layers;
}

// Whether a serving split cannot fit for its weights alone: a GPU's share of them is past its
// usable memory. Every engine then fails the estimate's fit: a preallocating one's KV pool (its
// budget f x capacity, f <= 1, less the weights and more) is negative, and the caching
// allocator's total holds the weights (memory_estimate.cc pool_size, size_allocated). The weights
// are the estimate's first part (compute_parts), so they throw where it would. Issue 18: the
// memory estimate of a width too narrow for the weights, ~1.4k instructions (Mixtral 8x7B in
// bf16 on one H100 of two).
bool weights_alone_overflow(const Scenario& s, const Catalog& catalog, const ModelCounts& counts,
                            const memory::EngineRules& rules) {
  return s.task == Task::kInference && memory::weights(s, catalog, rules, counts, nullptr) >
                                           memory::usable_capacity(*s.gpu, catalog);
}

// The splits per replica the rule may take, smallest first: their layouts, the widest one the
// GPUs allow, and the memory of those that fit. Each is tried on `s` itself, its other fields as
// they are (issue 18: a copy of the Scenario per width tried was ~7 allocations); the split it
// had is put back, also when the memory estimate throws.
struct Splits {
  Parallelism widest;
  std::vector<std::pair<Parallelism, MemoryEstimate>> fitting;
};

Splits candidate_splits(Scenario& s, const Catalog& catalog, const ModelCounts& counts) {
  const int64_t n = s.gpu_count, ep = s.parallel.ep;
  const bool tensors = splits_tensors(s, catalog);
  const Parallelism given = s.parallel;
  Splits out{given, {}};
  // The engine's rules, the same for every width (estimate_memory would look them up each).
  const std::optional<memory::EngineRules> rules =
      s.gpu ? std::optional(memory::engine_rules(s, catalog)) : std::nullopt;
  // One width of `w` GPUs per replica tried.
  auto try_width = [&](int64_t w) {
    Parallelism p = given;
    p.ep = 1;
    if (!split(s, tensors, w, p)) return;
    if (ep > 1) {
      if (ep % p.tp != 0 || p.pp * ep != w) return;
      p.ep = ep;
    }
    p.dp = n / w;
    out.widest = p;
    if (!s.gpu) return;  // no capacity to check: the model is spread over all GPUs
    s.parallel = p;
    if (weights_alone_overflow(s, catalog, counts, *rules)) return;
    MemoryEstimate m = estimate_memory(s, catalog, counts, *rules, nullptr);
    if (m.fits.value_or(false)) out.fitting.emplace_back(p, std::move(m));
  };
  try {
    // The widths dividing n, smallest first, walked without a list of them (issue 18: the list
    // grown a width at a time was two allocations a two-GPU line).
    if (s.requested_replicas > 0) {
      try_width(n / s.requested_replicas);
    } else {
      for (int64_t w = 1; w <= n; ++w)
        if (n % w == 0) try_width(w);
    }
  } catch (...) {
    s.parallel = given;
    throw;
  }
  s.parallel = given;
  return out;
}

// Of several splits that fit, the one whose fleet serves the most output tokens per second
// (ties and missing speeds to the smaller). Traffic is set aside: the load model is not what
// ranks them.
Parallelism fastest_fleet(Scenario& s, const Catalog& catalog, const ModelCounts& counts,
                          const Splits& splits) {
  const Parallelism given = s.parallel;
  std::optional<Traffic> traffic = std::move(s.traffic);
  s.traffic.reset();
  const Parallelism* best = &splits.fitting.front().first;
  double best_rate = 0;
  const EngineProfile& engine = engine_profile(s, catalog);  // the split does not change it
  try {
    for (const auto& [p, memory] : splits.fitting) {
      s.parallel = p;
      PerformanceEstimate perf;
      estimate_speed(s, catalog, engine, memory, counts, nullptr, perf);
      if (!perf.max_output_tokens_per_s) break;  // no speed to compare: the smallest that fits
      if (*perf.max_output_tokens_per_s > best_rate) {
        best = &p;
        best_rate = *perf.max_output_tokens_per_s;
      }
    }
  } catch (...) {
    s.parallel = given;
    s.traffic = std::move(traffic);
    throw;
  }
  s.parallel = given;
  s.traffic = std::move(traffic);
  return *best;
}

// choose_serving_layout with the model counted.
void choose_layout(Scenario& s, const Catalog& catalog, const ModelCounts& counts) {
  if (s.task != Task::kInference || s.gpu_count <= 1) return;
  const Splits splits = candidate_splits(s, catalog, counts);
  if (splits.fitting.empty()) {
    s.parallel = splits.widest;  // none fits: the widest, so the estimate says by how much
  } else if (splits.fitting.size() == 1) {
    s.parallel = splits.fitting.front().first;
  } else {
    // Room for the KV cache: a wider replica is taken only where the fleet then serves more
    // output tokens per second. A replica whose pool holds a handful of sequences (70B in bf16
    // on two 80 GB GPUs: about two of 1,500 tokens) runs far below the fleet of fewer, wider
    // replicas; where the narrower replica's batch is full, splitting wider only adds
    // all-reduces, so the smallest split that fits stays (the contract's rule).
    s.parallel = fastest_fleet(s, catalog, counts, splits);
  }
}

// resolve_layout_and_fraction with the model counted, or counted here when the layout rule
// applies (`counts` null).
void resolve_counted(Scenario& s, const Catalog& catalog, const EngineProfile& engine,
                     const ModelCounts* counts) {
  if (s.default_layout) {
    if (counts)
      choose_layout(s, catalog, *counts);
    else
      choose_serving_layout(s, catalog);
  }
  s.default_layout = false;
  // The memory fraction the engine's release takes when none is given (SGLang 0.4's by TP size,
  // 0.5.3's from the GPU's memory), so that scenario.gpu_memory_utilization shows the figure the
  // KV pool uses.
  if (engine.preallocates)
    s.gpu_memory_utilization = memory::pool_fraction(s, catalog, engine.release(s.engine_version));
}

}  // namespace

void choose_serving_layout(Scenario& s, const Catalog& catalog) {
  if (s.task != Task::kInference || s.gpu_count <= 1) return;
  choose_layout(s, catalog, count_model(s));
}

Scenario resolve_scenario(const nlohmann::json& input, const Catalog& catalog) {
  return resolved(parse_scenario(input, catalog), catalog);
}

Scenario resolved(Scenario s, const Catalog& catalog) {
  resolve_in_place(s, catalog);
  return s;
}

void resolve_in_place(Scenario& s, const Catalog& catalog) {
  resolve_in_place(s, catalog, engine_profile(s, catalog));
}

void resolve_in_place(Scenario& s, const Catalog& catalog, const ModelCounts& counts) {
  const EngineProfile& engine = engine_profile(s, catalog);
  if (s.default_layout || engine.preallocates) resolve_counted(s, catalog, engine, &counts);
}

void resolve_layout_and_fraction(Scenario& s, const Catalog& catalog, const EngineProfile& engine) {
  resolve_counted(s, catalog, engine, nullptr);
}

}  // namespace gpusizer
