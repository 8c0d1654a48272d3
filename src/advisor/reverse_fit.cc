// The reverse question: for given GPUs and a task, the largest catalog models that fit, with the
// longest context and the largest batch each can take. Every figure comes from estimate(). Each
// model's scenario comes parsed (src/report/fit_request.cc); the context and batch searches are
// typed edits of it (scenario_edit.h).
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "advisor/candidates.h"
#include "estimate/layout.h"
#include "gpusizer/advisor.h"
#include "gpusizer/error.h"

namespace gpusizer {
namespace {

// Whether the parsed scenario with the edit fits its GPUs (no headroom), bytes only.
bool fits(const Scenario& parsed, const ScenarioGiven& given, const ScenarioEdit& edit,
          const Catalog& catalog) {
  try {
    const Scenario s = candidate(parsed, given, edit, catalog);
    return memory_fit(s, estimate(s, catalog, Detail::kMemory), 0.0).fits;
  } catch (const InputError&) {
    return false;
  }
}

// Largest value in [lo, hi] for which `ok` holds, doubling then bisecting; lo must hold.
int64_t largest(int64_t lo, int64_t hi, const std::function<bool(int64_t)>& ok) {
  int64_t good = lo, bad = hi + 1;
  for (int64_t v = lo * 2; v <= hi; v *= 2) {
    if (!ok(v)) {
      bad = v;
      break;
    }
    good = v;
  }
  if (bad == hi + 1 && good < hi && ok(hi)) return hi;
  while (bad - good > std::max<int64_t>(1, good / 16)) {
    const int64_t mid = good + (bad - good) / 2;
    (ok(mid) ? good : bad) = mid;
  }
  return good;
}

// The levers that are standard for the task, where the user has not set them: training on
// more than one GPU shards weights, gradients and optimizer states with ZeRO-3 / FSDP full
// shard (Rajbhandari et al. 2020, sec. 5: 16 bytes a parameter of mixed-precision AdamW become
// 16/N), and LLM training recomputes activations (gradient checkpointing, Chen et al. 2016;
// PEFT's prepare_model_for_kbit_training turns it on for QLoRA by default). Neither costs
// quality; both cost speed. Serving levers (formats) do cost quality and are not applied; its
// layout (TP inside the fast-link domain) is the layout rule's. Appends the names applied.
ScenarioEdit standard_levers(const Scenario& s, const ScenarioGiven& given, bool cv,
                             std::vector<std::string>* applied) {
  ScenarioEdit e;
  if (!is_training(s.task)) return e;
  if (!cv && !given.recompute) {
    e.recompute = Recompute::kFull;
    if (applied) applied->push_back("gradient checkpointing");
  }
  if (s.gpu_count > 1 && !given.parallel && !given.zero_stage) {
    e.gpu_count = s.gpu_count;
    e.tp = 1, e.pp = 1, e.dp = s.gpu_count;
    e.zero_stage = 3;
    if (applied) applied->push_back(fmt::format("ZeRO-3 over the {} GPUs", s.gpu_count));
  }
  return e;
}

// One catalog model at the request's context (within the model's own) and batch; then the
// longest context and the largest batch that still fit. nullopt when it does not fit at all.
std::optional<FitModel> fit_model(const FitModelScenario& m, bool cv, bool levers,
                                  const Catalog& catalog) {
  const Scenario& parsed = m.parsed;
  const ScenarioGiven& given = m.given;
  const ScenarioEdit standard =
      levers ? standard_levers(parsed, given, cv, nullptr) : ScenarioEdit{};
  if (!fits(parsed, given, standard, catalog)) return std::nullopt;
  FitModel r{parsed.model->id, count_params(*parsed.model).total, parsed.seq_len, parsed.batch,
             parsed.weights->id};
  if (!cv) {
    const int64_t own = parsed.model->max_position_embeddings;
    const int64_t max_ctx = own > 0 ? own : 131072;
    r.max_seq_len = largest(r.max_seq_len, std::max(r.max_seq_len, max_ctx), [&](int64_t v) {
      return fits(parsed, given, merged(standard, {.seq_len = v}), catalog);
    });
  }
  r.max_batch = largest(r.max_batch, 4096, [&](int64_t v) {
    return fits(parsed, given, merged(standard, {.batch = v}), catalog);
  });
  return r;
}

}  // namespace

FitResult fit(const FitRequest& request, const Catalog& catalog) {
  FitResult out;
  if (request.levers)
    standard_levers(request.checked, request.checked_given, request.cv, &out.levers);
  for (const FitModelScenario& m : request.models)
    if (auto r = fit_model(m, request.cv, request.levers, catalog)) out.models.push_back(*r);
  if (request.named) out.named = fit_model(*request.named, request.cv, request.levers, catalog);
  std::sort(out.models.begin(), out.models.end(),
            [](const FitModel& a, const FitModel& b) { return a.params > b.params; });
  if (out.models.size() > request.limit) out.models.resize(request.limit);
  return out;
}

}  // namespace gpusizer
