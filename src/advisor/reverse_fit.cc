// The reverse question: for given GPUs and a task, the largest catalog models that fit, with the
// longest context and the largest batch each can take. Every figure comes from estimate(). Each
// model's scenario is parsed once; the context and batch searches are typed edits of it
// (scenario_edit.h).
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "advisor/candidates.h"
#include "estimate/layout.h"
#include "gpusizer/error.h"
#include "gpusizer/json/advisor.h"
#include "gpusizer/json/scenario.h"

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

struct Row {
  const Model* model;
  int64_t params, seq_len, batch;
};

// One catalog model at the request's context (within the model's own) and batch; then the
// longest context and the largest batch that still fit. nullopt when it does not fit at all.
std::optional<Row> fit_model(const Model& m, const nlohmann::json& input, bool cv, bool levers,
                             const Catalog& catalog) {
  nlohmann::json s = input;
  s["model"] = m.id;
  s.erase("seq_len");
  s.erase("prompt_len");
  s.erase("output_len");
  const int64_t base_seq = input.value("seq_len", int64_t{2048});
  s["seq_len"] =
      cv ? base_seq
         : std::min<int64_t>(base_seq, std::max<int64_t>(512, m.max_position_embeddings));
  ScenarioGiven given;
  Scenario parsed;
  try {
    parsed = parse_scenario(s, catalog, given);
  } catch (const InputError&) {
    return std::nullopt;
  }
  const ScenarioEdit standard =
      levers ? standard_levers(parsed, given, cv, nullptr) : ScenarioEdit{};
  if (!fits(parsed, given, standard, catalog)) return std::nullopt;
  Row r{&m, count_params(m).total, parsed.seq_len, parsed.batch};
  if (!cv) {
    const int64_t max_ctx = m.max_position_embeddings > 0 ? m.max_position_embeddings : 131072;
    r.seq_len = largest(r.seq_len, std::max(r.seq_len, max_ctx), [&](int64_t v) {
      return fits(parsed, given, merged(standard, {.seq_len = v}), catalog);
    });
  }
  r.batch = largest(r.batch, 4096, [&](int64_t v) {
    return fits(parsed, given, merged(standard, {.batch = v}), catalog);
  });
  return r;
}

}  // namespace

nlohmann::json fit_json(const nlohmann::json& request, const Catalog& catalog, size_t limit) {
  if (!request.is_object()) throw InputError("", "a scenario must be a JSON object");
  if (!request.contains("gpu")) throw InputError("gpu", "fit needs --gpu");
  nlohmann::json input = request;
  bool levers = true;
  if (auto it = input.find("levers"); it != input.end()) {
    if (!it->is_boolean())
      throw InputError("levers", "must be true or false (false: no standard levers)");
    levers = it->get<bool>();
    input.erase(it);
  }
  // Checks the GPU, task and other fields once, with a stand-in model.
  nlohmann::json probe = input;
  const bool cv = input.value("task", "inference") == "cv-train";
  probe["model"] = cv ? "yolov8m" : "llama-2-7b";
  ScenarioGiven probe_given;
  const Scenario checked = resolved(parse_scenario(probe, catalog, probe_given), catalog);
  std::vector<std::string> applied;
  if (levers) standard_levers(checked, probe_given, cv, &applied);
  std::vector<Row> rows;
  for (const Model& m : catalog.models())
    if (m.is_cv() == cv)
      if (auto r = fit_model(m, input, cv, levers, catalog)) rows.push_back(*r);
  std::sort(rows.begin(), rows.end(),
            [](const Row& a, const Row& b) { return a.params > b.params; });
  if (rows.size() > limit) rows.resize(limit);
  nlohmann::json out = {{"gpu", checked.gpu->id},
                        {"gpu_count", checked.gpu_count},
                        {"task", to_string(checked.task)},
                        {"weights", input.value("weights", checked.weights.id)},
                        {"seq_len", input.value("seq_len", int64_t{2048})},
                        {"models", nlohmann::json::array()},
                        {"levers", applied},
                        {"basis",
                         "each model at the given seq_len and batch (default 2048, 1), "
                         "then the longest context (up to the model's own) and the "
                         "largest batch that still fit, all from estimate(); with the "
                         "levers standard for the task unless levers is false "
                         "(--no-levers)"}};
  for (const Row& r : rows)
    out["models"].push_back({{"model", r.model->id},
                             {"params", r.params},
                             {"max_seq_len", r.seq_len},
                             {"max_batch", r.batch}});
  return out;
}

}  // namespace gpusizer
