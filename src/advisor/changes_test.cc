// What to change so it fits: combinations of levers, never a "saving" that adds memory, context
// suggestions within the model's maximum. Values checked by hand in the comments.
#include <gtest/gtest.h>

#include <algorithm>

#include "estimate/layout.h"
#include "gpusizer/advisor.h"
#include "gpusizer/json/scenario.h"
#include "gpusizer/scenario_edit.h"
#include "gpusizer/units.h"
#include "report/estimate_json.h"

namespace gpusizer {
namespace {

const Catalog& cat() {
  return Catalog::builtin();
}

// The changes for a scenario JSON, through the typed entry (parsed once, `given` its fields).
std::vector<Change> changes_of(const nlohmann::json& input) {
  ScenarioGiven given;
  const Scenario parsed = parse_scenario(input, cat(), given);
  return changes_to_fit(parsed, given, cat());
}

bool has_lever(const Change& c, const std::string& name) {
  return std::find(c.levers.begin(), c.levers.end(), name) != c.levers.end();
}

// Full fine-tuning of Llama-2-7B (6.74e9 parameters) with mixed-precision AdamW on 8 x A10 (24 GB):
// - ZeRO-3 alone: 16 bytes a parameter (ZeRO paper, sec. 3.1: 2 + 2 + 12) / 8 GPUs = 13.5 GB of
//   states per GPU, plus saved activations without checkpointing of about 34 x s x h bytes a
//   layer (Korthikanti et al. 2022, FlashAttention) = 34 x 2048 x 4096 x 32 layers = 9.1 GB:
//   22.6 GB before ZeRO-3's buffers (3 GB, below) and the CUDA context: over the A10's 24 GB.
// - checkpointing alone: 16 x 6.74e9 = 108 GB on each GPU (no sharding): far over.
// - both: 13.5 GB + 32 layer inputs of 2 x s x h = 0.54 GB, plus DeepSpeed ZeRO-3's defaults
//   (stage3_max_live_parameters 1e9 x 2 B = 2 GB gathered, reduce_bucket_size 5e8 x 2 B = 1 GB):
//   at least 17.0 GB; with the loss spike (2048 x 32000 x 14 B = 0.9 GB), one layer's working
//   set and the CUDA context about 20 GB, under the 22.4 GiB (24.0e9 B) of an A10: fits. So the
//   best change is a combination of two levers that costs no quality.
TEST(ChangesCombined, FullFineTune7BOnEightA10NeedsZero3AndCheckpointing) {
  const auto changes = changes_of(
      {{"model", "llama-2-7b"}, {"task", "full"}, {"gpu", "a10-24gb"}, {"gpu_count", 8}});
  ASSERT_FALSE(changes.empty());
  const Change* zero3_alone = nullptr;
  const Change* both = nullptr;
  for (const auto& c : changes) {
    EXPECT_GT(c.saves_bytes, 0) << c.change;
    if (c.levers == std::vector<std::string>{"ZeRO-3 over the 8 GPUs"}) zero3_alone = &c;
    if (c.levers.size() == 2 && has_lever(c, "gradient checkpointing") &&
        has_lever(c, "ZeRO-3 over the 8 GPUs"))
      both = &c;
  }
  ASSERT_NE(zero3_alone, nullptr);
  EXPECT_FALSE(zero3_alone->fits);
  EXPECT_GT(zero3_alone->needed_bytes, 22.6e9);
  ASSERT_NE(both, nullptr);
  EXPECT_TRUE(both->fits);
  EXPECT_GT(both->needed_bytes, 13.5e9 + 0.54e9 + 2e9 + 1e9);
  EXPECT_LT(both->needed_bytes, 22e9);
  EXPECT_EQ(both->edit.zero_stage, 3);
  EXPECT_EQ(both->edit.recompute, Recompute::kFull);
  // ZeRO-3 with the optimizer on the CPU (ZeRO-Offload) also fits on the 8 GPUs without a quality
  // cost, but its optimizer step runs on the host: slower. The first change is the combination,
  // the fastest of the changes that cost no quality and no more GPUs.
  const Change& best = changes.front();
  EXPECT_EQ(&best, both) << best.change;
  for (const auto& c : changes)
    if (c.fits && c.quality_class == 0 && c.edit.gpu_count.value_or(8) == 8) {
      EXPECT_LE(c.speed_factor.value_or(0), best.speed_factor.value_or(0)) << c.change;
    }
  for (const auto& c : changes)
    if (c.levers == std::vector<std::string>{"gradient checkpointing"}) {
      EXPECT_FALSE(c.fits);
    }
  // The fitting pair covers every larger combination that holds it (with 8-bit AdamW or a
  // shorter context it would fit as well): none is offered.
  for (const auto& c : changes)
    if (c.levers.size() > 2) {
      EXPECT_FALSE(has_lever(c, "gradient checkpointing") && has_lever(c, "ZeRO-3 over the 8 GPUs"))
          << c.change;
    }
}

// A combination that contains a smaller fitting one is never offered: QLoRA alone fits a 7B on
// one A10 (4-bit base 3.4 GB + checkpointed activations), so no "QLoRA + ..." appears.
TEST(ChangesCombined, OnlyTheSmallestFittingCombinations) {
  const auto changes = changes_of({{"model", "llama-2-7b"}, {"task", "full"}, {"gpu", "a10-24gb"}});
  bool qlora_alone_fits = false;
  for (const auto& c : changes)
    if (c.levers == std::vector<std::string>{"QLoRA (4-bit NF4 base)"}) qlora_alone_fits = c.fits;
  ASSERT_TRUE(qlora_alone_fits);
  for (const auto& c : changes)
    if (c.levers.size() > 1) {
      EXPECT_FALSE(has_lever(c, "QLoRA (4-bit NF4 base)")) << c.change;
    }
}

// LoRA of Llama-2-7B on 2 x A10: each GPU holds the 13.5 GB bf16 base (data parallel) plus
// 9.1 GB of activations at 2048 tokens without checkpointing (as above): over 22.4 GiB. With
// gradient checkpointing the activations drop to ~0.8 GB: fits, no quality cost.
TEST(ChangesCombined, Lora7BOnTwoA10FitsWithCheckpointing) {
  const auto changes = changes_of(
      {{"model", "llama-2-7b"}, {"task", "lora"}, {"gpu", "a10-24gb"}, {"gpu_count", 2}});
  ASSERT_FALSE(changes.empty());
  EXPECT_TRUE(changes.front().fits);
  EXPECT_EQ(changes.front().quality_class, 0);
  bool ckpt = false;
  for (const auto& c : changes)
    if (c.levers == std::vector<std::string>{"gradient checkpointing"}) ckpt = c.fits;
  EXPECT_TRUE(ckpt);
}

// CV training: ZeRO-3 over more GPUs shards a 25M-parameter ResNet's 0.4 GB of states, but adds
// communication buffers; a change that needs more memory than the scenario is never listed.
TEST(ChangesCombined, NoNegativeSavingsForCvTraining) {
  for (const char* model : {"resnet-50", "yolov8m", "vit-b/16"}) {
    nlohmann::json s = {
        {"model", model}, {"task", "cv-train"}, {"gpu", "rtx-4090-24gb"}, {"batch", 4096}};
    for (const auto& c : changes_of(s)) EXPECT_GT(c.saves_bytes, 0) << c.change;
  }
}

// Llama-2-7B's maximum context is 4096 tokens (max_position_embeddings): asked for 100,000, the
// context lever proposes 4096, never more.
TEST(ChangesCombined, ContextSuggestionNeverExceedsTheModelsMaximum) {
  const auto changes = changes_of(
      {{"model", "llama-2-7b"}, {"gpu", "rtx-4090-24gb"}, {"engine", "vllm"}, {"seq_len", 100000}});
  bool offered = false;
  for (const auto& c : changes)
    if (c.edit.seq_len) {
      EXPECT_LE(*c.edit.seq_len, 4096) << c.change;
      offered = true;
    }
  EXPECT_TRUE(offered);
}

// Serving: Llama-2-70B (69.0e9 parameters) on 2 x RTX 4090 (48 GB): bf16 is 138 GB, int8 69 GB,
// int4 (AWQ, ~4.25 bits with scales) 36.6 GB: no format alone fits 2 x 24 GB with KV room except
// int4; TP=4 with int8 is 17.3 GB a GPU, fits 4 x 24 GB. Every change listed saves memory and
// the first fitting one costs the least quality among those that fit.
TEST(ChangesCombined, Serving70BOnTwo4090s) {
  const auto changes =
      changes_of({{"model", "llama-2-70b"}, {"gpu", "rtx-4090-24gb"}, {"parallel", {{"tp", 2}}}});
  ASSERT_FALSE(changes.empty());
  int best_quality = 99;
  for (const auto& c : changes) {
    EXPECT_GT(c.saves_bytes, 0) << c.change;
    if (c.fits) best_quality = std::min(best_quality, c.quality_class);
  }
  ASSERT_TRUE(changes.front().fits);
  EXPECT_EQ(changes.front().quality_class, best_quality);
  bool int8_tp = false;
  for (const auto& c : changes)
    int8_tp |= c.fits && has_lever(c, "int8 weights") && c.edit.tp.has_value();
  EXPECT_TRUE(int8_tp);
}

// A combination is offered only where no single lever that fits is as good on both of the list's
// first counts, its quality cost and its GPUs, and better on one. QLoRA of Llama-3.1-70B on one
// A100 80GB: gradient checkpointing fits alone at no quality cost on the one GPU, so no
// combination of the other levers (ZeRO-3 over more GPUs, a shorter context, 8-bit AdamW: each
// costs GPUs, quality or nothing, never less) is offered; the levers still show alone. On two
// RTX 4090s, where only TP=8 fits alone (8 GPUs), fp8 weights with TP=4 trade a small quality
// cost for half the GPUs: offered.
TEST(ChangesCombined, NoCombinationWorseOnBothCountsThanALeverThatFits) {
  const auto qlora =
      changes_of({{"model", "llama-3.1-70b"}, {"task", "qlora"}, {"gpu", "a100-80g"}});
  ASSERT_FALSE(qlora.empty());
  EXPECT_EQ(qlora.front().levers, std::vector<std::string>{"gradient checkpointing"});
  EXPECT_TRUE(qlora.front().fits);
  EXPECT_EQ(qlora.front().quality_class, 0);
  bool zero3_alone = false;
  for (const auto& c : qlora) {
    EXPECT_EQ(c.levers.size(), 1u) << c.change;
    zero3_alone |= c.change == "ZeRO-3 over 2 GPUs";
  }
  EXPECT_TRUE(zero3_alone);
  const auto serving =
      changes_of({{"model", "llama-2-70b"}, {"gpu", "rtx-4090-24gb"}, {"parallel", {{"tp", 2}}}});
  ASSERT_FALSE(serving.empty());
  EXPECT_EQ(serving.front().change, "TP=8 (8 GPUs)");
  bool traded = false;
  for (const auto& c : serving)
    traded |= c.change == "fp8 weights + TP=4 (4 GPUs)" && c.fits && c.quality_class == 1;
  EXPECT_TRUE(traded);
}

// The JSONL path keeps no copy of the parsed scenario: it edits the resolved one with the layout
// fields it had before (LayoutFields). Resolving changes only those: put back, the scenario's
// JSON is the parsed one's. Llama-3.1-70B in bf16 (141 GB) on four L4s (4 x 24 GB) does not fit,
// the count is given without a split (the layout rule chooses it) and SGLang's memory fraction
// follows the TP size, so both fields move; the changes are the same either way.
TEST(ChangesCombined, FromTheResolvedScenarioAsFromTheParsed) {
  const nlohmann::json in = {
      {"model", "llama-3.1-70b"}, {"gpu", "l4-24gb"}, {"gpu_count", 4}, {"engine", "sglang"}};
  ScenarioGiven given;
  const Scenario parsed = parse_scenario(in, cat(), given);
  const Scenario s = resolved(parsed, cat());
  EXPECT_TRUE(parsed.default_layout);
  EXPECT_FALSE(s.default_layout);
  Scenario back = s;
  const LayoutFields fields = layout_fields(parsed);
  back.parallel = fields.parallel;
  back.default_layout = fields.default_layout;
  back.gpu_memory_utilization = fields.gpu_memory_utilization;
  EXPECT_EQ(to_json(back), to_json(parsed));
  const Estimate e = estimate(s, cat(), Detail::kFigures);
  ASSERT_FALSE(*e.memory.fits);
  const std::vector<Change> a = changes_to_fit(parsed, given, s, e, cat());
  const std::vector<Change> b = changes_to_fit(s, fields, given, e, cat());
  ASSERT_FALSE(a.empty());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].change, b[i].change);
    EXPECT_EQ(a[i].needed_bytes, b[i].needed_bytes);
    EXPECT_EQ(a[i].fits, b[i].fits);
    EXPECT_EQ(a[i].speed_factor, b[i].speed_factor);
    EXPECT_EQ(to_patch(a[i].edit), to_patch(b[i].edit));
  }
}

// A kept change's speed_factor is its scenario's training tokens per second over the base's, each
// from a whole figures-only estimate of the scenario the edit makes (the search times its
// candidates with training_speed alone and its memo). Full fine-tuning of Qwen3-32B with ZeRO-3
// on eight H100 does not fit; its changes include LoRA and QLoRA, other tasks with another
// engine, and gradient checkpointing, which replays the forward (about 4/3 of the compute:
// slower, a factor below 1).
TEST(ChangesCombined, SpeedFactorIsTheEditedScenariosOverTheBases) {
  const nlohmann::json in = {{"model", "qwen3-32b"},
                             {"task", "full"},
                             {"gpu", "h100"},
                             {"gpu_count", 8},
                             {"training", {{"zero_stage", 3}}}};
  ScenarioGiven given;
  const Scenario parsed = parse_scenario(in, cat(), given);
  const Estimate base = estimate(resolved(parsed, cat()), cat(), Detail::kFigures);
  ASSERT_FALSE(*base.memory.fits);
  const double base_tps = base.performance->train_tokens_per_s.value();
  const std::vector<Change> changes = changes_to_fit(parsed, given, cat());
  bool checkpointing = false, other_task = false;
  for (const Change& c : changes) {
    const Scenario s = resolved(edited(parsed, given, c.edit, cat()), cat());
    const Estimate e = estimate(s, cat(), Detail::kFigures);
    ASSERT_TRUE(c.speed_factor) << c.change;
    EXPECT_EQ(*c.speed_factor, e.performance->train_tokens_per_s.value() / base_tps) << c.change;
    if (c.levers == std::vector<std::string>{"gradient checkpointing"}) {
      checkpointing = true;
      EXPECT_LT(*c.speed_factor, 1.0);
    }
    other_task = other_task || c.edit.task;
  }
  EXPECT_TRUE(checkpointing);
  EXPECT_TRUE(other_task);
}

// QLoRA of Llama-3.1-70B on one A100 80GB (84,988,812,853 B usable) does not fit; 8-bit AdamW
// shrinks only the adapters' optimizer states (0.83e9 B of fp32 moments at the base's peak), so
// added to a lever that does not fit it cannot close the gap: ZeRO-3 over 2 GPUs alone needs
// ~117.3e9 B with 0.41e9 B of states, the context halved ~113e9 B with 0.83e9 B, the optimizer
// offloaded with the context ~87.7e9 B with none on the GPU. The search skips those
// combinations by total_without_optimizer (memory/memory_estimate.h); each, estimated in full,
// indeed does not fit, and none is among the changes.
TEST(ChangesCombined, EightBitAdamwAddedToALeverPastTheGpuDoesNotFit) {
  const nlohmann::json in = {{"model", "llama-3.1-70b"}, {"task", "qlora"}, {"gpu", "a100-80g"}};
  ScenarioGiven given;
  const Scenario parsed = parse_scenario(in, cat(), given);
  ASSERT_FALSE(*estimate(resolved(parsed, cat()), cat(), Detail::kMemory).memory.fits);
  for (const Change& c : changes_to_fit(parsed, given, cat()))
    EXPECT_FALSE(c.levers.size() > 1 && has_lever(c, "8-bit AdamW")) << c.change;
  auto zero3 = [](int64_t gpus) {
    return ScenarioEdit{.gpu_count = gpus, .tp = 1, .pp = 1, .dp = gpus, .zero_stage = 3};
  };
  ScenarioEdit offload = zero3(1);
  offload.offload = Offload::kOptimizer;
  const ScenarioEdit context{.seq_len = 1024};
  ScenarioEdit offload_context = offload;
  merge_into(offload_context, context);
  for (const ScenarioEdit& rest :
       {zero3(2), zero3(4), zero3(8), offload, context, offload_context}) {
    ScenarioEdit with_8bit = rest;
    with_8bit.optimizer = Optimizer::kAdamw8bit;
    const Scenario s = resolved(edited(parsed, given, with_8bit, cat()), cat());
    const MemoryEstimate m = estimate(s, cat(), Detail::kMemory).memory;
    EXPECT_FALSE(*m.fits) << to_patch(with_8bit).dump();
    EXPECT_GT(m.total, 84.99e9) << to_patch(with_8bit).dump();
  }
}

}  // namespace
}  // namespace gpusizer

namespace gpusizer {
namespace {

const Change* named(const std::vector<Change>& changes, const std::string& name) {
  for (const Change& c : changes)
    if (c.change == name) return &c;
  return nullptr;
}

// Past one node. Full fine-tuning of Llama-3.1-70B (70.55e9 parameters) on H100 SXM 80GB under
// the default engine (transformers, AdamW, bf16 mixed precision) peaks at the optimizer step
// with 2 B of weights, 2 B of gradients, 4 B of fp32 master weights and 12 B of optimizer
// (8 B of moments + the foreach step's 4 B temporary) a parameter: 20 x 70.55e9 = 1,411 GB
// (1,314 GiB). Sharded over 16 GPUs that is 82.1 GiB each, past the 79.15 GiB usable; over 32,
// 41.1 GiB. So ZeRO-3 over 32 and 64 GPUs are tried: neither fits alone (the activations of a
// 2,048-token sequence without checkpointing and ZeRO-3's buffers come on top), and with
// gradient checkpointing 32 fits. Before session 38 the levers stopped at 8 GPUs (164 GiB of
// states each) and only QLoRA was offered.
TEST(ChangesCombined, FullFineTune70BOnH100sReachesPastOneNode) {
  const auto changes =
      changes_of({{"model", "llama-3.1-70b"}, {"task", "full"}, {"gpu", "h100-sxm5-80gb"}});
  EXPECT_FALSE(named(changes, "ZeRO-3 over 16 GPUs"));
  const Change* z32 = named(changes, "ZeRO-3 over 32 GPUs");
  const Change* z64 = named(changes, "ZeRO-3 over 64 GPUs");
  ASSERT_TRUE(z32 && z64);
  EXPECT_FALSE(z32->fits);
  EXPECT_EQ(z32->cost, "32 GPUs to buy or rent; all-gathers cross nodes");
  EXPECT_EQ(z32->edit.gpu_count, 32);
  EXPECT_EQ(z32->edit.zero_stage, 3);
  const Change* with_checkpointing = named(changes, "gradient checkpointing + ZeRO-3 over 32 GPUs");
  ASSERT_TRUE(with_checkpointing);
  EXPECT_TRUE(with_checkpointing->fits);
}

// The prices in words of the levers that add GPUs, one literal per count. Llama-3.1-70B
// (70.6e9 parameters, 141 GB in bf16) serving 64 sequences on one H100 80GB needs tensor
// parallelism over 2, 4 or 8 GPUs; its QLoRA fine-tune on one A100 80GB takes ZeRO-3 over 2, 4
// or 8 GPUs among its changes.
TEST(ChangesWords, PricesOfMoreGpus) {
  const auto serving = changes_of({{"model", "llama-3.1-70b"}, {"gpu", "h100"}, {"batch", 64}});
  const Change* tp2 = named(serving, "TP=2 (2 GPUs)");
  const Change* tp4 = named(serving, "TP=4 (4 GPUs)");
  const Change* tp8 = named(serving, "TP=8 (8 GPUs)");
  ASSERT_TRUE(tp2 && tp4 && tp8);
  EXPECT_EQ(tp2->cost, "twice the GPUs; all-reduce per layer (NVLink helps)");
  EXPECT_EQ(tp4->cost, "4 times the GPUs; all-reduce per layer (NVLink helps)");
  EXPECT_EQ(tp8->cost, "8 times the GPUs; all-reduce per layer (NVLink helps)");
  const auto training =
      changes_of({{"model", "llama-3.1-70b"}, {"task", "qlora"}, {"gpu", "a100-80g"}});
  for (int n : {2, 4, 8}) {
    const Change* zero3 = named(training, "ZeRO-3 over " + std::to_string(n) + " GPUs");
    ASSERT_TRUE(zero3) << n;
    EXPECT_EQ(zero3->cost,
              std::to_string(n) + " GPUs to buy or rent; all-gathers cost speed without NVLink");
  }
}

}  // namespace
}  // namespace gpusizer
