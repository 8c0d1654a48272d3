#include "estimate/layout.h"

#include <vector>

#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"
#include "memory/memory_estimate.h"
#include "scenario/lookups.h"

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
  // Scenario per width tried was ~7 allocations); the split it had is put back unless one is
  // chosen, also when the memory estimate throws.
  const Parallelism given = s.parallel;
  Parallelism widest = given;
  bool have_widest = false;
  try {
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
      have_widest = true;
      if (!s.gpu) continue;  // no capacity to check: the model is spread over all GPUs
      s.parallel = p;
      const MemoryEstimate m = estimate_memory(s, catalog, nullptr);
      if (m.fits.value_or(false)) return;
      s.parallel = given;
    }
  } catch (...) {
    s.parallel = given;
    throw;
  }
  if (have_widest) s.parallel = widest;
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
