// "What to change so it fits": each candidate change is applied to the scenario JSON as a merge
// patch and the estimator re-run; the list is ranked fits first, then by what it costs in
// quality, then by the speed it keeps.
#include <fmt/format.h>

#include <algorithm>

#include "gpusizer/advisor.h"
#include "gpusizer/error.h"
#include "gpusizer/saturate.h"
#include "gpusizer/units.h"

namespace gpusizer {
namespace {

struct Candidate {
  std::string change;
  nlohmann::json patch;
  std::string cost;
  int quality_class;
};

std::vector<Candidate> candidates(const Scenario& s, const nlohmann::json& input,
                                  const Catalog& catalog) {
  std::vector<Candidate> out;
  const bool train = is_training(s.task);
  const double bits = s.weights.bits_per_value;
  const bool gguf = catalog.engine(s.engine).loads("gguf");  // its quantized formats are GGUF
  if (!train) {
    if (s.kv_cache.bits_per_value > 8 && !gguf)
      out.push_back({"fp8 KV cache",
                     {{"kv_cache", "fp8"}},
                     "small quality cost (per-tensor scales); halves KV memory",
                     1});
    if (s.kv_cache.bits_per_value > 8 && gguf)
      out.push_back({"q8_0 KV cache", {{"kv_cache", "q8_0"}}, "small quality cost", 1});
    if (bits > 8.5 && s.gpu && s.gpu->supports("fp8") && !gguf)
      out.push_back({"fp8 weights",
                     {{"weights", "fp8"}},
                     "small quality cost; faster on FP8 "
                     "tensor cores",
                     1});
    if (bits > 8.5)
      out.push_back({gguf ? "q8_0 weights" : "int8 weights",
                     {{"weights", gguf ? "q8_0" : "int8"}},
                     "small quality cost (LLM.int8 / Q8_0 are near lossless)",
                     1});
    if (bits > 4.6)
      out.push_back({gguf ? "q4_k_m weights" : "int4 weights (AWQ)",
                     {{"weights", gguf ? "q4_k_m" : "awq-int4"}},
                     "noticeable quality cost on hard tasks (about 1-3 points on benchmarks)",
                     2});
  } else {
    if (s.training.recompute != Recompute::kFull)
      out.push_back({"gradient checkpointing",
                     {{"training", {{"gradient_checkpointing", true}}}},
                     "about 30% slower steps (one more forward pass); no quality cost",
                     0});
    if (s.training.optimizer == "adamw")
      out.push_back({"8-bit AdamW",
                     {{"training", {{"optimizer", "adamw-8bit"}}}},
                     "no measurable quality cost (Dettmers et al. 2022); same speed",
                     0});
    if (s.task == Task::kFull || s.task == Task::kFreeze || s.task == Task::kPretrain)
      out.push_back({"LoRA instead of full fine-tuning",
                     {{"task", "lora"}},
                     "trains 0.1-1% of the parameters: slightly lower quality on large domain "
                     "shifts; changes the job",
                     3});
    if (s.task == Task::kFull || s.task == Task::kLora || s.task == Task::kFreeze)
      // PEFT's prepare_model_for_kbit_training turns gradient checkpointing on by default
      // (use_gradient_checkpointing=True), and QLoRA recipes keep it on.
      out.push_back({"QLoRA (4-bit NF4 base)",
                     {{"task", "qlora"},
                      {"weights", "nf4"},
                      {"training", {{"gradient_checkpointing", true}}}},
                     "4-bit base: small quality cost, about 30% slower than LoRA; changes the "
                     "job",
                     3});
    if (!s.training.flash_attention)
      out.push_back({"FlashAttention",
                     {{"training", {{"flash_attention", true}}}},
                     "none; faster (needs Ampere or newer)",
                     0});
    if (s.training.zero_stage < 3 || s.gpu_count < 8) {
      int64_t last = 0;
      for (int64_t n : {2, 4, 8}) {
        if (n <= s.gpu_count && s.training.zero_stage >= 3) continue;
        const int64_t gpus = std::max<int64_t>(n, s.gpu_count);
        if (gpus == last) continue;
        last = gpus;
        out.push_back({fmt::format("ZeRO-3 over {} GPUs", gpus),
                       {{"gpu_count", gpus},
                        {"parallel", {{"dp", gpus}, {"tp", 1}, {"pp", 1}}},
                        {"training", {{"zero_stage", 3}}}},
                       fmt::format("{} GPUs to buy or rent; all-gathers cost speed without "
                                   "NVLink",
                                   gpus),
                       0});
      }
    }
  }
  if (!train || s.task == Task::kInference) {
    const int64_t tp = s.parallel.tp * 2;
    if (s.model.num_heads % tp == 0 && !s.model.is_cv())
      out.push_back({fmt::format("TP={} ({} GPUs)", tp, s.gpu_count * 2),
                     {{"gpu_count", s.gpu_count * 2},
                      {"parallel", {{"tp", tp}, {"pp", s.parallel.pp}, {"dp", s.parallel.dp}}}},
                     "twice the GPUs; all-reduce per layer (NVLink helps)",
                     0});
  }
  if (s.seq_len > 512 && !s.model.is_cv()) {
    const int64_t half = s.seq_len / 2;
    nlohmann::json p = {{"seq_len", half}};
    if (!train) {
      p["output_len"] = std::min<int64_t>(s.output_len, half / 4 > 0 ? half / 4 : 1);
      p["prompt_len"] = half - p["output_len"].get<int64_t>();
    }
    out.push_back({fmt::format("shorter context ({} tokens)", half), p,
                   "longer documents no longer fit; changes what the job can do", 2});
  }
  if (s.batch > 1) {
    const int64_t half = s.batch / 2;
    nlohmann::json p = {{"batch", half}};
    if (train && !(input.contains("training") && input["training"].contains("global_batch")))
      p["training"] = {{"grad_accum", s.training.grad_accum * 2}};
    out.push_back({fmt::format("smaller batch ({})", half), p,
                   train ? "same global batch through gradient accumulation; slower steps"
                         : "fewer concurrent sequences: lower throughput",
                   train ? 0 : 2});
  }
  return out;
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
  std::vector<Change> out;
  for (const Candidate& c : candidates(s, input, catalog)) {
    nlohmann::json changed = input;
    changed.merge_patch(c.patch);
    try {
      const Scenario t = resolve_scenario(changed, catalog);
      const Estimate f = estimate(t, catalog, Detail::kFigures);
      Change ch;
      ch.change = c.change;
      ch.patch = c.patch;
      ch.needed_bytes = memory_needed(t, f);
      ch.saves_bytes = need - ch.needed_bytes;
      const double cap = f.memory.capacity.value_or(0);
      ch.fits = f.memory.fits.value_or(false) && ch.needed_bytes <= cap * (1.0 - headroom);
      const auto tps = useful_tokens_per_s(t, f);
      if (tps && base_tps) ch.speed_factor = *tps / *base_tps;
      ch.cost = c.cost;
      ch.quality_class = c.quality_class;
      if (ch.saves_bytes > 0 || (ch.speed_factor && *ch.speed_factor > 1.05))
        out.push_back(std::move(ch));
    } catch (const InputError&) {
      // A change this model or GPU cannot take (e.g. TP beyond the heads): not offered.
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Change& a, const Change& b) {
    if (a.fits != b.fits) return a.fits;
    if (a.fits && a.quality_class != b.quality_class) return a.quality_class < b.quality_class;
    if (a.fits) return a.speed_factor.value_or(0) > b.speed_factor.value_or(0);
    return a.saves_bytes > b.saves_bytes;
  });
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
                        {"quality_class", c.quality_class}};
    if (c.speed_factor) j["speed_factor"] = *c.speed_factor;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace gpusizer
