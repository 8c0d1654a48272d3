// "What to change so it fits": the levers a scenario can pull (per task) are grouped into
// dimensions of alternatives (one weights format, one ZeRO layout, ...). Each single lever and
// each combination of up to four, one per dimension, is applied to the scenario JSON as a merge
// patch and re-estimated in bytes-only mode (no speed); a combination that contains one already
// fitting is not tried, so only the smallest fitting combinations remain, and only those get
// the full (speed) estimate. The list is ranked fits first, then by the worst quality cost of
// its levers, then by the GPUs it needs, then by the speed it keeps. A change that does not save
// memory is never offered.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "gpusizer/advisor.h"
#include "gpusizer/error.h"
#include "gpusizer/saturate.h"
#include "gpusizer/units.h"

namespace gpusizer {
namespace {

struct Lever {
  std::string change;
  nlohmann::json patch;
  std::string cost;
  int quality_class;
};

// Alternatives: a combination takes at most one lever of each dimension.
using Dimension = std::vector<Lever>;

// The context levers: half the context, or the model's own maximum when the scenario asks for
// more than that (a suggestion never exceeds the maximum).
Dimension context_levers(const Scenario& s, bool train) {
  Dimension d;
  if (s.model.is_cv()) return d;
  const int64_t max_ctx = s.model.max_position_embeddings;
  int64_t to = 0;
  if (max_ctx > 0 && s.seq_len > max_ctx)
    to = max_ctx;
  else if (s.seq_len > 512)
    to = s.seq_len / 2;
  if (to <= 0) return d;
  nlohmann::json p = {{"seq_len", to}};
  if (!train) {
    p["output_len"] = std::min<int64_t>(s.output_len, to / 4 > 0 ? to / 4 : 1);
    p["prompt_len"] = to - p["output_len"].get<int64_t>();
  }
  d.push_back({to == max_ctx && s.seq_len > max_ctx
                   ? fmt::format("context at the model's maximum ({} tokens)", to)
                   : fmt::format("shorter context ({} tokens)", to),
               p, "longer documents no longer fit; changes what the job can do", 2});
  return d;
}

Dimension batch_levers(const Scenario& s, const nlohmann::json& input, const Estimate& e,
                       bool train) {
  Dimension d;
  if (s.batch <= 1) return d;
  // Half, a quarter, an eighth, a sixteenth of the batch (activations and KV cache scale with
  // it), and for serving the largest batch that fits (max_batch; for a preallocating engine the
  // sequences its KV pool holds).
  std::vector<int64_t> sizes;
  for (int64_t part : {2, 4, 8, 16})
    if (s.batch / part >= 1 && (sizes.empty() || sizes.back() != s.batch / part))
      sizes.push_back(s.batch / part);
  if (!train && e.memory.max_batch && *e.memory.max_batch >= 1 &&
      *e.memory.max_batch < s.batch / 2 &&
      std::find(sizes.begin(), sizes.end(), *e.memory.max_batch) == sizes.end())
    sizes.push_back(*e.memory.max_batch);
  for (int64_t b : sizes) {
    nlohmann::json p = {{"batch", b}};
    const bool pinned = input.contains("training") && input["training"].is_object() &&
                        input["training"].contains("global_batch");
    if (train && !pinned && s.batch % b == 0)
      p["training"] = {{"grad_accum", s.training.grad_accum * (s.batch / b)}};
    d.push_back({fmt::format("smaller batch ({})", b), p,
                 train ? "same global batch through gradient accumulation; slower steps"
                       : "fewer concurrent sequences: lower throughput",
                 train ? 0 : 2});
  }
  return d;
}

std::vector<Dimension> dimensions(const Scenario& s, const nlohmann::json& input, const Estimate& e,
                                  const Catalog& catalog) {
  std::vector<Dimension> out;
  auto add = [&](Dimension d) {
    if (!d.empty()) out.push_back(std::move(d));
  };
  const bool train = is_training(s.task);
  const double bits = s.weights.bits_per_value;
  const bool gguf = catalog.engine(s.engine).loads("gguf");  // its quantized formats are GGUF
  if (!train) {
    Dimension weights;
    if (bits > 8.5 && s.gpu && s.gpu->supports("fp8") && !gguf)
      weights.push_back({"fp8 weights",
                         {{"weights", "fp8"}},
                         "small quality cost; faster on FP8 tensor cores",
                         1});
    if (bits > 8.5)
      weights.push_back({gguf ? "q8_0 weights" : "int8 weights",
                         {{"weights", gguf ? "q8_0" : "int8"}},
                         "small quality cost (LLM.int8 / Q8_0 are near lossless)",
                         1});
    if (bits > 4.6)
      weights.push_back({gguf ? "q4_k_m weights" : "int4 weights (AWQ)",
                         {{"weights", gguf ? "q4_k_m" : "awq-int4"}},
                         "noticeable quality cost on hard tasks (about 1-3 points on benchmarks)",
                         2});
    add(std::move(weights));
    if (s.kv_cache.bits_per_value > 8)
      add({gguf ? Lever{"q8_0 KV cache", {{"kv_cache", "q8_0"}}, "small quality cost", 1}
                : Lever{"fp8 KV cache",
                        {{"kv_cache", "fp8"}},
                        "small quality cost (per-tensor scales); halves KV memory",
                        1}});
    // Tensor parallelism inside the fast-link domain; the heads must split evenly (Megatron-LM,
    // Shoeybi et al. 2019, sec. 3).
    Dimension tp;
    if (!s.model.is_cv())
      for (int64_t k : {2, 4, 8}) {
        const int64_t t = s.parallel.tp * k;
        if (s.model.num_heads % t != 0 || t > std::max<int64_t>(8, s.gpus_per_node)) continue;
        tp.push_back({fmt::format("TP={} ({} GPUs)", t, s.gpu_count * k),
                      {{"gpu_count", s.gpu_count * k},
                       {"parallel", {{"tp", t}, {"pp", s.parallel.pp}, {"dp", s.parallel.dp}}}},
                      k == 2 ? "twice the GPUs; all-reduce per layer (NVLink helps)"
                             : fmt::format("{} times the GPUs; all-reduce per layer (NVLink "
                                           "helps)",
                                           k),
                      0});
      }
    add(std::move(tp));
  } else {
    if (s.training.recompute != Recompute::kFull)
      add({{"gradient checkpointing",
            {{"training", {{"gradient_checkpointing", true}}}},
            "about 30% slower steps (one more forward pass); no quality cost",
            0}});
    if (s.training.optimizer == "adamw")
      add({{"8-bit AdamW",
            {{"training", {{"optimizer", "adamw-8bit"}}}},
            "no measurable quality cost (Dettmers et al. 2022); same speed",
            0}});
    Dimension method;
    if (s.task == Task::kFull || s.task == Task::kFreeze || s.task == Task::kPretrain)
      method.push_back({"LoRA instead of full fine-tuning",
                        {{"task", "lora"}},
                        "trains 0.1-1% of the parameters: slightly lower quality on large domain "
                        "shifts; changes the job",
                        3});
    if (s.task == Task::kFull || s.task == Task::kLora || s.task == Task::kFreeze)
      // PEFT's prepare_model_for_kbit_training turns gradient checkpointing on by default
      // (use_gradient_checkpointing=True), and QLoRA recipes keep it on.
      method.push_back({"QLoRA (4-bit NF4 base)",
                        {{"task", "qlora"},
                         {"weights", "nf4"},
                         {"training", {{"gradient_checkpointing", true}}}},
                        "4-bit base: small quality cost, about 30% slower than LoRA; changes the "
                        "job",
                        3});
    add(std::move(method));
    if (!s.training.flash_attention)
      add({{"FlashAttention",
            {{"training", {{"flash_attention", true}}}},
            "none; faster (needs Ampere or newer)",
            0}});
    // ZeRO-3 shards weights, gradients and optimizer states over the data-parallel ranks
    // (Rajbhandari et al. 2020, sec. 5); ZeRO-Offload keeps the optimizer on the host (Ren et
    // al. 2021). Over the GPUs there are, or more.
    Dimension zero;
    int64_t last = 0;
    for (int64_t n : {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{8}}) {
      const int64_t gpus = std::max<int64_t>(n, s.gpu_count);
      if (gpus == last || gpus < 2) continue;
      last = gpus;
      if (gpus == s.gpu_count && s.training.zero_stage >= 3 && s.parallel.dp == gpus) continue;
      zero.push_back({gpus == s.gpu_count ? fmt::format("ZeRO-3 over the {} GPUs", gpus)
                                          : fmt::format("ZeRO-3 over {} GPUs", gpus),
                      {{"gpu_count", gpus},
                       {"parallel", {{"dp", gpus}, {"tp", 1}, {"pp", 1}}},
                       {"training", {{"zero_stage", 3}}}},
                      gpus == s.gpu_count
                          ? std::string("no quality cost; all-gathers cost speed without NVLink")
                          : fmt::format("{} GPUs to buy or rent; all-gathers cost speed without "
                                        "NVLink",
                                        gpus),
                      0});
    }
    if (s.training.offload == "none" && !s.model.is_cv()) {
      const int64_t gpus = s.gpu_count;
      zero.push_back({"ZeRO-3 with the optimizer offloaded to the CPU",
                      {{"gpu_count", gpus},
                       {"parallel", {{"dp", gpus}, {"tp", 1}, {"pp", 1}}},
                       {"training", {{"zero_stage", 3}, {"offload", "optimizer"}}}},
                      "no quality cost; the optimizer step runs on the host (ZeRO-Offload): "
                      "slower steps, needs host memory",
                      0});
    }
    add(std::move(zero));
  }
  add(context_levers(s, train));
  add(batch_levers(s, input, e, train));
  return out;
}

constexpr size_t kMaxLevers = 4;    // levers in one combination
constexpr size_t kMaxCombined = 8;  // fitting combinations of two or more levers returned

struct Tried {
  std::vector<int> pick;  // lever index per dimension, -1 for none
  Change change;
  int gpus = 0;
};

bool contains(const std::vector<int>& big, const std::vector<int>& small) {
  for (size_t i = 0; i < big.size(); ++i)
    if (small[i] >= 0 && small[i] != big[i]) return false;
  return true;
}

}  // namespace

std::vector<Change> changes_to_fit(const nlohmann::json& input, const Catalog& catalog,
                                   double headroom) {
  const Scenario s = resolve_scenario(input, catalog);
  return changes_to_fit(input, s, estimate(s, catalog, Detail::kFigures), catalog, headroom);
}

std::vector<Change> changes_to_fit(const nlohmann::json& input, const Scenario& s,
                                   const Estimate& e, const Catalog& catalog, double headroom) {
  if (!s.gpu) throw InputError("gpu", "what to change needs a GPU to fit");
  const double need = memory_needed(s, e);
  const auto base_tps = useful_tokens_per_s(s, e);
  const std::vector<Dimension> dims = dimensions(s, input, e, catalog);
  const size_t n = dims.size();

  // Every combination of one lever from each of up to kMaxLevers dimensions, smallest first.
  std::vector<std::vector<int>> combos;
  std::vector<int> pick(n, -1);
  auto walk = [&](auto&& self, size_t dim, size_t taken) -> void {
    if (dim == n) {
      if (taken > 0) combos.push_back(pick);
      return;
    }
    self(self, dim + 1, taken);
    if (taken == kMaxLevers) return;
    for (size_t i = 0; i < dims[dim].size(); ++i) {
      pick[dim] = static_cast<int>(i);
      self(self, dim + 1, taken + 1);
    }
    pick[dim] = -1;
  };
  walk(walk, 0, 0);
  auto size = [](const std::vector<int>& p) {
    return std::count_if(p.begin(), p.end(), [](int i) { return i >= 0; });
  };
  std::stable_sort(combos.begin(), combos.end(),
                   [&](const auto& a, const auto& b) { return size(a) < size(b); });

  std::vector<Tried> singles, combined;
  std::vector<std::vector<int>> fitting;  // the smallest fitting combinations found so far
  // No additive bound on a combination's savings: the peak is a maximum over phases (forward,
  // backward, optimizer step), so two levers that each lower a different phase save together
  // more than the sum of what each saves alone (checkpointing + LoRA, measured): every
  // combination gets its bytes-only estimate, which is what prunes before speed is estimated.
  for (const auto& p : combos) {
    if (std::any_of(fitting.begin(), fitting.end(), [&](const auto& f) { return contains(p, f); }))
      continue;  // a smaller combination inside it already fits
    const bool single = size(p) == 1;
    Tried t{p, {}, 0};
    nlohmann::json patch = nlohmann::json::object();
    std::vector<std::string> names, costs;
    for (size_t d = 0; d < n; ++d) {
      if (p[d] < 0) continue;
      const Lever& l = dims[d][static_cast<size_t>(p[d])];
      patch.merge_patch(l.patch);
      names.push_back(l.change);
      costs.push_back(l.cost);
      t.change.quality_class = std::max(t.change.quality_class, l.quality_class);
    }
    nlohmann::json changed = input;
    changed.merge_patch(patch);
    try {
      const Scenario sc = resolve_scenario(changed, catalog);
      // Bytes only first: speed is estimated for the changes that are kept.
      const Estimate m = estimate(sc, catalog, Detail::kMemory);
      Change& ch = t.change;
      ch.needed_bytes = memory_needed(sc, m);
      ch.saves_bytes = need - ch.needed_bytes;
      const double cap = m.memory.capacity.value_or(0);
      ch.fits = m.memory.fits.value_or(false) && ch.needed_bytes <= cap * (1.0 - headroom);
      if (ch.saves_bytes <= 0) continue;  // never a "saving" that adds memory
      if (ch.fits) fitting.push_back(p);
      if (!single && !ch.fits) continue;
      if (!single && combined.size() >= kMaxCombined * 4) continue;
      const Estimate f = estimate(sc, catalog, Detail::kFigures);
      const auto tps = useful_tokens_per_s(sc, f);
      if (tps && base_tps) ch.speed_factor = *tps / *base_tps;
      ch.levers = names;
      ch.change = fmt::format("{}", fmt::join(names, " + "));
      ch.cost = fmt::format("{}", fmt::join(costs, "; "));
      ch.patch = std::move(patch);
      t.gpus = static_cast<int>(std::min<int64_t>(sc.gpu_count, 1 << 20));
      (single ? singles : combined).push_back(std::move(t));
    } catch (const InputError&) {
      // A combination this model or GPU cannot take (e.g. TP beyond the heads): not offered.
    }
  }

  auto better = [](const Tried& a, const Tried& b) {
    const Change &x = a.change, &y = b.change;
    if (x.fits != y.fits) return x.fits;
    if (!x.fits) return x.saves_bytes > y.saves_bytes;
    if (x.quality_class != y.quality_class) return x.quality_class < y.quality_class;
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    return x.speed_factor.value_or(0) > y.speed_factor.value_or(0);
  };
  std::stable_sort(combined.begin(), combined.end(), better);
  if (combined.size() > kMaxCombined) combined.resize(kMaxCombined);
  std::vector<Tried> all = std::move(singles);
  for (auto& t : combined) all.push_back(std::move(t));
  std::stable_sort(all.begin(), all.end(), better);
  std::vector<Change> out;
  out.reserve(all.size());
  for (auto& t : all) out.push_back(std::move(t.change));
  return out;
}

nlohmann::json to_json(const std::vector<Change>& changes) {
  nlohmann::json out = nlohmann::json::array();
  for (const Change& c : changes) {
    nlohmann::json j = {{"change", c.change},
                        {"patch", c.patch},
                        {"needed_bytes", saturating_int64(c.needed_bytes)},
                        {"saves_bytes", saturating_int64(c.saves_bytes)},
                        {"fits", c.fits},
                        {"cost", c.cost},
                        {"quality_class", c.quality_class},
                        {"levers", c.levers}};
    if (c.speed_factor) j["speed_factor"] = *c.speed_factor;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace gpusizer
