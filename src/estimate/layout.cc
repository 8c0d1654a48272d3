#include "estimate/layout.h"

#include <optional>
#include <utility>
#include <vector>

#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"
#include "memory/memory_estimate.h"
#include "memory/model_counts.h"
#include "scenario/lookups.h"
#include "speed/counted_speed.h"

namespace gpusizer {
namespace {

// Whether the engine splits a model by tensor parallelism (vLLM, SGLang, TensorRT-LLM) or by
// layers (HF device_map="auto", llama.cpp --split-mode layer).
bool splits_tensors(const Scenario& s, const Catalog& catalog) {
  return engine_profile(s, catalog).splits_tensors && !s.model.is_cv();
}

// Candidate splits of `width` GPUs into (tp, pp): tensor parallelism up to the node's fast-link
// domain and the head count (Megatron TP needs heads % tp == 0), pipeline stages beyond it.
bool split(const Scenario& s, bool tensors, int64_t width, Parallelism& p) {
  p.tp = 1;
  p.pp = width;
  if (tensors) {
    int64_t tp = std::min(width, s.gpus_per_node);
    while (tp > 1 && (width % tp != 0 || (s.model.num_heads > 0 && s.model.num_heads % tp != 0)))
      --tp;
    p.tp = tp;
    p.pp = width / tp;
  }
  return s.model.is_cv() || s.model.num_layers <= 0 || p.pp <= s.model.num_layers;
}

}  // namespace

void choose_serving_layout(Scenario& s, const Catalog& catalog) {
  const int64_t n = s.gpu_count;
  if (s.task != Task::kInference || n <= 1) return;
  const bool tensors = splits_tensors(s, catalog);
  const int64_t ep = s.parallel.ep;
  std::vector<int64_t> widths;  // GPUs per replica, smallest first, dividing n
  if (s.requested_replicas > 0) {
    widths.push_back(n / s.requested_replicas);
  } else {
    for (int64_t w = 1; w <= n; ++w)
      if (n % w == 0) widths.push_back(w);
  }
  // Each split is tried on `s` itself, its other fields as they are (issue 18: a copy of the
  // Scenario per width tried was ~7 allocations); the split it had, and its traffic, are put back
  // unless one is chosen, also when an estimate throws.
  const Parallelism given = s.parallel;
  std::optional<Traffic> traffic = std::move(s.traffic);
  s.traffic.reset();  // the load model is not what ranks the splits (max_output_tokens_per_s is)
  Parallelism widest = given;
  std::optional<Parallelism> best;
  double best_rate = 0;
  try {
    std::optional<ModelCounts> counts;
    for (const int64_t w : widths) {
      Parallelism p = given;
      p.ep = 1;
      if (!split(s, tensors, w, p)) continue;
      if (ep > 1) {
        if (ep % p.tp != 0 || p.pp * ep != w) continue;
        p.ep = ep;
      }
      p.dp = n / w;
      widest = p;
      if (!s.gpu) continue;  // no capacity to check: the model is spread over all GPUs
      s.parallel = p;
      if (!counts) counts = count_model(s);
      const MemoryEstimate m = estimate_memory(s, catalog, *counts, nullptr);
      if (m.fits.value_or(false)) {
        // Room for the KV cache: a wider replica is taken only where the fleet then serves more
        // output tokens per second. A replica whose pool holds a handful of sequences (70B in
        // bf16 on two 80 GB GPUs: about two of 1,500 tokens) runs far below the fleet of fewer,
        // wider replicas; where the narrower replica's batch is full, splitting wider only adds
        // all-reduces, so the smallest split that fits stays (the contract's rule).
        PerformanceEstimate perf;
        estimate_speed(s, catalog, engine_profile(s, catalog), m, *counts, nullptr, perf);
        const double rate = perf.max_output_tokens_per_s.value_or(0);
        if (!best || rate > best_rate) {
          best = p;
          best_rate = rate;
        }
        if (!perf.max_output_tokens_per_s) break;  // no speed to compare: the smallest that fits
      }
      s.parallel = given;
    }
  } catch (...) {
    s.parallel = given;
    s.traffic = std::move(traffic);
    throw;
  }
  s.traffic = std::move(traffic);
  s.parallel = best ? *best : widest;
}

Scenario resolve_scenario(const nlohmann::json& input, const Catalog& catalog) {
  return resolved(parse_scenario(input, catalog), catalog);
}

Scenario resolved(Scenario s, const Catalog& catalog) {
  resolve_in_place(s, catalog);
  return s;
}

void resolve_in_place(Scenario& s, const Catalog& catalog) {
  if (s.default_layout) choose_serving_layout(s, catalog);
  s.default_layout = false;
  // The memory fraction the engine's release takes when none is given (SGLang's by TP size),
  // so that scenario.gpu_memory_utilization shows the figure the KV pool uses.
  if (const EngineProfile& e = engine_profile(s, catalog); e.preallocates)
    s.gpu_memory_utilization =
        memory_fraction(e.release(s.engine_version), s.gpu_memory_utilization_given,
                        s.gpu_memory_utilization, s.parallel.tp);
}

}  // namespace gpusizer
