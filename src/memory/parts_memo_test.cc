// The memory parts a search's candidates share (memory/parts_memo.h): each field an edit can
// change moves a group's bytes only when the group's key reads it, and a search's memory
// estimates with the memo are those without, figure for figure.
#include "memory/parts_memo.h"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "advisor/changes.h"
#include "estimate/layout.h"
#include "gpusizer/error.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"
#include "memory/memory_estimate.h"
#include "testing/resolved_scenario.h"

namespace gpusizer::memory {
namespace {

const Catalog& cat() {
  return Catalog::builtin();
}

// Scenarios whose groups read many fields: full fine-tuning under ZeRO-3 over 8 GPUs, QLoRA on
// one GPU (the k-bit upcast), Megatron split over tensor and pipeline ranks with accumulation,
// LoRA over two GPUs (DDP), and serving on vLLM (the KV pool) and on Hugging Face transformers (the
// KV cache grows).
const std::vector<nlohmann::json>& bases() {
  static const std::vector<nlohmann::json> all = {
      {{"model", "qwen3-32b"},
       {"task", "full"},
       {"gpu", "h100"},
       {"gpu_count", 8},
       {"training", {{"zero_stage", 3}}}},
      {{"model", "llama-3.1-70b"}, {"task", "qlora"}, {"gpu", "a100-80g"}},
      {{"model", "llama-3.1-8b"},
       {"task", "full"},
       {"engine", "megatron"},
       {"gpu", "h100"},
       {"gpu_count", 8},
       {"batch", 4},
       {"parallel", {{"tp", 2}, {"pp", 2}, {"dp", 2}}},
       {"training", {{"grad_accum", 4}}}},
      {{"model", "llama-3.1-8b"},
       {"task", "lora"},
       {"gpu", "rtx-4090-24gb"},
       {"gpu_count", 2},
       {"batch", 8}},
      {{"model", "mixtral-8x7b-v0.1"}, {"engine", "vllm"}, {"gpu", "h100"}, {"gpu_count", 2}},
      {{"model", "llama-2-7b"}, {"gpu", "rtx-4090-24gb"}, {"batch", 4}}};
  return all;
}

bool same(const StateParts& a, const StateParts& b) {
  return a.weights == b.weights && a.gradients == b.gradients && a.master == b.master &&
         a.overhead == b.overhead;
}
bool same(const BatchParts& a, const BatchParts& b) {
  return a.kv == b.kv && a.kv_sequence == b.kv_sequence && a.activations == b.activations;
}

using Change = std::pair<const char*, std::function<void(Scenario&)>>;

// Fields an edit can change (ScenarioEditor::restore) that the model states but the optimizer's
// and the overhead do not read: a changed one leaves their bytes as they were.
const std::vector<Change>& not_read_by_states() {
  static const std::vector<Change> all = {
      {"optimizer", [](Scenario& s) { s.training.optimizer = Optimizer::kAdamw8bit; }},
      {"seq_len", [](Scenario& s) { s.seq_len /= 2; }},
      {"prompt_len", [](Scenario& s) { s.prompt_len += 7; }},
      {"output_len", [](Scenario& s) { s.output_len += 5; }},
      {"batch", [](Scenario& s) { s.batch *= 2; }},
      {"recompute", [](Scenario& s) { s.training.recompute = Recompute::kFull; }},
      {"flash_attention",
       [](Scenario& s) { s.training.flash_attention = !s.training.flash_attention; }},
      {"grad_accum", [](Scenario& s) { s.training.grad_accum += 3; }},
      {"global_batch", [](Scenario& s) { s.training.global_batch += 16; }},
      {"kv_cache", [](Scenario& s) { s.kv_cache = cat().format("fp8", "kv", "kv_cache"); }},
      {"gpus_per_node", [](Scenario& s) { s.gpus_per_node = 4; }},
      {"gpu_count", [](Scenario& s) { s.gpu_count *= 2; }},
      {"gpu_memory_utilization", [](Scenario& s) { s.gpu_memory_utilization = 0.5; }}};
  return all;
}

// Fields an edit can change that the parts growing with the batch do not read.
const std::vector<Change>& not_read_by_batch() {
  static const std::vector<Change> all = {
      {"optimizer", [](Scenario& s) { s.training.optimizer = Optimizer::kAdamw8bit; }},
      {"offload", [](Scenario& s) { s.training.offload = Offload::kOptimizer; }},
      {"dp", [](Scenario& s) { s.parallel.dp *= 2; }},
      {"global_batch", [](Scenario& s) { s.training.global_batch += 16; }},
      {"gpus_per_node", [](Scenario& s) { s.gpus_per_node = 4; }},
      {"gpu_count", [](Scenario& s) { s.gpu_count *= 2; }},
      {"gpu_memory_utilization", [](Scenario& s) { s.gpu_memory_utilization = 0.5; }}};
  return all;
}

TEST(PartsMemo, FieldsAGroupDoesNotReadLeaveItsBytes) {
  for (const auto& j : bases()) {
    const Scenario base = testing::resolved_scenario(j);
    const ModelCounts counts = count_model(base);
    const EngineRules rules = engine_rules(base, cat());
    const StateParts states = state_parts(base, cat(), counts, rules);
    const BatchParts batch = batch_parts(base, cat(), rules);
    for (const auto& [field, change] : not_read_by_states()) {
      Scenario s = base;
      change(s);
      EXPECT_TRUE(same(state_parts(s, cat(), counts, rules), states)) << j.dump() << " " << field;
      EXPECT_TRUE(StateKey(base, counts, rules).matches(s, counts, rules)) << field;
    }
    for (const auto& [field, change] : not_read_by_batch()) {
      Scenario s = base;
      change(s);
      EXPECT_TRUE(same(batch_parts(s, cat(), rules), batch)) << j.dump() << " " << field;
      EXPECT_TRUE(BatchKey(base, rules).matches(s, rules)) << field;
    }
  }
}

// Each field a group's key reads, changed, is another key: the group is computed again. The
// weights format is keyed by the row it holds: another row, another key.
TEST(PartsMemo, FieldsAKeyReadsMakeAnotherKey) {
  const Scenario base = testing::resolved_scenario(bases()[0]);
  const ModelCounts counts = count_model(base);
  const EngineRules rules = engine_rules(base, cat());
  const std::vector<Change> both = {
      {"task", [](Scenario& s) { s.task = Task::kLora; }},
      {"mixed_precision", [](Scenario& s) { s.training.mixed_precision = MixedPrecision::kFp32; }},
      {"zero_stage", [](Scenario& s) { s.training.zero_stage = 2; }},
      {"tp", [](Scenario& s) { s.parallel.tp = 2; }},
      {"pp", [](Scenario& s) { s.parallel.pp = 2; }},
      {"ep", [](Scenario& s) { s.parallel.ep = 2; }},
      {"cp", [](Scenario& s) { s.parallel.cp = 2; }},
      {"pp_interleave", [](Scenario& s) { s.parallel.pp_interleave = 2; }},
      {"sequence_parallel", [](Scenario& s) { s.parallel.sequence_parallel = true; }},
      {"gpu", [](Scenario& s) { s.gpu = cat().gpu_ref("a100-80g", "gpu"); }}};
  for (const auto& [field, change] : both) {
    Scenario s = base;
    change(s);
    EXPECT_FALSE(StateKey(base, counts, rules).matches(s, counts, rules)) << field;
    EXPECT_FALSE(BatchKey(base, rules).matches(s, rules)) << field;
  }
  // Another weights row: the catalog's fp8 row, and a copy of the base's own row (the same id
  // and bits), are each another row.
  Scenario fp8 = base;
  fp8.weights = cat().format_ref("fp8", "weights", "weights");
  Scenario same_id = base;
  same_id.weights = FormatRef(*base.weights);  // copies the row
  for (const Scenario* other : {&fp8, &same_id}) {
    EXPECT_FALSE(StateKey(base, counts, rules).matches(*other, counts, rules));
    EXPECT_FALSE(BatchKey(base, rules).matches(*other, rules));
  }
  const std::vector<Change> states_only = {
      {"offload", [](Scenario& s) { s.training.offload = Offload::kOptimizer; }},
      {"dp", [](Scenario& s) { s.parallel.dp = 4; }}};
  for (const auto& [field, change] : states_only) {
    Scenario s = base;
    change(s);
    EXPECT_FALSE(StateKey(base, counts, rules).matches(s, counts, rules)) << field;
  }
  const std::vector<Change> batch_only = {
      {"seq_len", [](Scenario& s) { s.seq_len = 1024; }},
      {"prompt_len", [](Scenario& s) { s.prompt_len += 1; }},
      {"output_len", [](Scenario& s) { s.output_len += 1; }},
      {"batch", [](Scenario& s) { s.batch = 2; }},
      {"recompute", [](Scenario& s) { s.training.recompute = Recompute::kFull; }},
      {"flash_attention", [](Scenario& s) { s.training.flash_attention = false; }},
      {"grad_accum", [](Scenario& s) { s.training.grad_accum = 2; }},
      {"kv_cache", [](Scenario& s) { s.kv_cache = cat().format("fp8", "kv", "kv_cache"); }}};
  for (const auto& [field, change] : batch_only) {
    Scenario s = base;
    change(s);
    EXPECT_FALSE(BatchKey(base, rules).matches(s, rules)) << field;
  }
  // The counts (per task), the engine and its release are keyed by address.
  const ModelCounts other = count_model(base);
  EXPECT_FALSE(StateKey(base, counts, rules).matches(base, other, rules));
}

void expect_same(const MemoryEstimate& a, const MemoryEstimate& b, const std::string& what) {
  for (auto [x, y] : {std::pair{a.weights, b.weights},
                      {a.kv_cache, b.kv_cache},
                      {a.activations, b.activations},
                      {a.gradients, b.gradients},
                      {a.optimizer, b.optimizer},
                      {a.master_weights, b.master_weights},
                      {a.overhead, b.overhead},
                      {a.allocated, b.allocated},
                      {a.reserved, b.reserved},
                      {a.total, b.total},
                      {a.low, b.low},
                      {a.high, b.high},
                      {a.kv_bytes_per_token, b.kv_bytes_per_token},
                      {a.gradients_full, b.gradients_full}})
    EXPECT_EQ(x, y) << what;  // the same doubles, not near ones
  EXPECT_EQ(a.capacity, b.capacity) << what;
  EXPECT_EQ(a.fits, b.fits) << what;
  EXPECT_EQ(a.max_batch, b.max_batch) << what;
  EXPECT_EQ(a.kv_cache_capacity_tokens, b.kv_cache_capacity_tokens) << what;
  EXPECT_EQ(a.peak_phase, b.peak_phase) << what;
}

// Every lever of the search and every pair of them, in the search's order, through one memo:
// the estimates are those made without it, and so are those written over one MemoryEstimate
// that every candidate of the six searches (serving with a preallocated pool and without,
// training) shares, as a search's one Estimate does.
TEST(PartsMemo, SearchCandidatesEstimateAsWithoutTheMemo) {
  size_t compared = 0;
  MemoryEstimate shared;
  for (const auto& j : bases()) {
    ScenarioGiven given;
    Scenario parsed = parse_scenario(j, cat(), given);
    const LayoutFields layout = layout_fields(parsed);
    const Scenario base = resolved(parsed, cat());
    const Estimate e = estimate(base, cat(), Detail::kFigures);
    const FoundChanges found = find_changes(base, layout, given, e, cat());
    std::vector<ScenarioEdit> edits;
    for (size_t a = 0; a < found.levers.size(); ++a) {
      edits.push_back(found.levers[a].edit);
      for (size_t b = a + 1; b < found.levers.size(); ++b)
        edits.push_back(merged(found.levers[a].edit, found.levers[b].edit));
    }
    ScenarioEditor editor(base, layout, given, cat());
    std::vector<std::pair<Task, ModelCounts>> counts;  // per task, as the search keeps them
    counts.reserve(4);
    PartsMemo memo;
    for (const ScenarioEdit& edit : edits) {
      Scenario* s = nullptr;
      try {
        s = &editor.edit(edit);
      } catch (const InputError&) {
        continue;  // not a candidate (a split the model cannot take)
      }
      resolve_in_place(*s, cat());
      const ModelCounts* c = nullptr;
      for (const auto& [task, held] : counts)
        if (task == s->task) c = &held;
      if (!c) c = &counts.emplace_back(s->task, count_model(*s)).second;
      const EngineRules rules = engine_rules(*s, cat());
      const MemoryEstimate alone = estimate_memory(*s, cat(), *c, rules, nullptr);
      MemoryEstimate fresh;  // into a new estimate, and over the one the search reuses
      estimate_memory(*s, cat(), *c, rules, memo, fresh);
      expect_same(fresh, alone, j.dump());
      estimate_memory(*s, cat(), *c, rules, memo, shared);
      expect_same(shared, alone, j.dump());
      ++compared;
    }
  }
  EXPECT_GT(compared, 100u);  // the six searches' levers and pairs
}

// What a search seeds its memo with (advisor/changes.cc seed_base_parts): a training base's model
// states read from its own estimate, with every basis and as figures only, are the states
// state_parts computes, double for double: the estimate's weights, master weights and overhead
// are the parts' (not moved by the training peak), and gradients_full all the gradients (the
// peak may count none: QLoRA of 70B on one A100 peaks at the loss). Where the estimate kept its
// activations (not zero), they and its KV cache (none in training) are batch_parts'. Where the
// optimizer step is not its peak, its optimizer bytes are optimizer_states'.
TEST(PartsMemo, ATrainingEstimateHoldsItsParts) {
  size_t seeded = 0, with_activations = 0, with_states = 0;
  for (const auto& j : bases()) {
    const Scenario base = testing::resolved_scenario(j);
    if (!is_training(base.task) || is_paged(base.training.optimizer)) continue;
    const ModelCounts counts = count_model(base);
    const EngineRules rules = engine_rules(base, cat());
    const StateParts parts = state_parts(base, cat(), counts, rules);
    const BatchParts batch = batch_parts(base, cat(), rules);
    for (Detail detail : {Detail::kFull, Detail::kFigures}) {
      const MemoryEstimate m = estimate(base, cat(), detail).memory;
      EXPECT_TRUE(
          same(StateParts{m.weights, m.gradients_full, m.master_weights, m.overhead}, parts))
          << j.dump();
      if (m.activations > 0) {
        EXPECT_TRUE(same(BatchParts{m.kv_cache, 0.0, m.activations, 0}, batch)) << j.dump();
        EXPECT_EQ(batch.bench_slots, 0) << j.dump();
        with_activations += detail == Detail::kFull;
      }
      if (m.peak_phase != kOptimizerStepPeak) {
        EXPECT_EQ(m.optimizer, optimizer_states(base, rules, counts, nullptr)) << j.dump();
        with_states += detail == Detail::kFull;
      }
    }
    ++seeded;
  }
  EXPECT_EQ(seeded, 4u);  // full under ZeRO-3, QLoRA, Megatron with accumulation, LoRA over DDP
  EXPECT_GE(with_activations, 2u);
  EXPECT_GE(with_states, 2u);
  // The QLoRA base's peak frees its gradients: the estimate's own gradients would not do.
  const MemoryEstimate qlora =
      estimate(testing::resolved_scenario(bases()[1]), cat(), Detail::kFull).memory;
  EXPECT_EQ(qlora.gradients, 0.0);
  EXPECT_GT(qlora.gradients_full, 0.0);
  EXPECT_GT(qlora.activations, 0.0);
}

// A memo seeded with a base's states gives them to a candidate with the base's key, and the
// candidate's estimate is the one made without the memo.
TEST(PartsMemo, SeededStatesServeTheBasesKey) {
  const Scenario base = testing::resolved_scenario(bases()[1]);
  const ModelCounts counts = count_model(base);
  const EngineRules rules = engine_rules(base, cat());
  const MemoryEstimate m = estimate(base, cat(), Detail::kFull).memory;
  PartsMemo memo;
  memo.seed_states(base, counts, rules,
                   {m.weights, m.gradients_full, m.master_weights, m.overhead});
  Scenario s = base;
  s.training.recompute = Recompute::kFull;  // a field the states do not read
  EXPECT_TRUE(
      same(memo.parts(s, cat(), counts, rules).states, state_parts(s, cat(), counts, rules)));
  MemoryEstimate seeded;
  estimate_memory(s, cat(), counts, rules, memo, seeded);
  expect_same(seeded, estimate_memory(s, cat(), counts, rules, nullptr), "seeded");
  // Seeded with other bytes, the memo gives those: the slots are what the candidate reads.
  PartsMemo other;
  other.seed_states(base, counts, rules, {1, 2, 3, 4});
  other.seed_batch(base, rules, {0, 0, 5, 0});
  Scenario t = base;
  t.training.optimizer = Optimizer::kAdamw8bit;  // read by neither group
  EXPECT_EQ(other.parts(t, cat(), counts, rules).states.weights, 1.0);
  EXPECT_EQ(other.parts(t, cat(), counts, rules).batch.activations, 5.0);
}

// A state slot seeded with the base's optimizer bytes gives them for the base's optimizer (not
// made again: a seeded 1 B reads 1 B) and makes another's: full fine-tuning of Qwen3-32B under
// ZeRO-3 over 8 H100s with AdamW, then 8-bit AdamW's 2 x (1 + 4 / 256) B a trainable parameter
// over the 8 ranks; the two held, AdamW's seeded figure is still read.
TEST(PartsMemo, SeededOptimizerStatesServeTheBasesOptimizer) {
  const Scenario base = testing::resolved_scenario(bases()[0]);
  ASSERT_EQ(base.training.optimizer, Optimizer::kAdamw);
  const ModelCounts counts = count_model(base);
  const EngineRules rules = engine_rules(base, cat());
  const double params = counts.trainable.total();
  const double one = 1.0;
  PartsMemo memo;
  memo.seed_states(base, counts, rules, {1, 2, 3, 4}, &one);
  Scenario s = base;
  s.training.recompute = Recompute::kFull;  // a field the states do not read
  EXPECT_EQ(memo.parts(s, cat(), counts, rules).optimizer, 1.0);
  s.training.optimizer = Optimizer::kAdamw8bit;
  EXPECT_DOUBLE_EQ(memo.parts(s, cat(), counts, rules).optimizer,
                   params * 2.0 * (1.0 + 4.0 / 256.0) / 8.0);
  s.training.optimizer = Optimizer::kAdamw;
  EXPECT_EQ(memo.parts(s, cat(), counts, rules).optimizer, 1.0);
  // Seeded without them, the base's optimizer states are made: AdamW's 2 x 4 B over 8 ranks.
  PartsMemo made;
  made.seed_states(base, counts, rules, {1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(made.parts(s, cat(), counts, rules).optimizer, params * 8.0 / 8.0);
}

// A state slot keeps the optimizer states of the last two optimizers asked for: full
// fine-tuning of Qwen3-32B under ZeRO-3 over 8 H100s holds AdamW's 2 x 4 B a trainable parameter
// in fp32 states, 8-bit AdamW's 2 x (1 + 4 / 256) B and SGD's none, each sharded over the 8 ranks,
// and every one is optimizer_states' figure: a held optimizer is read, a third replaces the older.
TEST(PartsMemo, OptimizerStatesKeptByOptimizerInTheStateSlot) {
  const Scenario base = testing::resolved_scenario(bases()[0]);
  const ModelCounts counts = count_model(base);
  const EngineRules rules = engine_rules(base, cat());
  const double params = counts.trainable.total();
  PartsMemo memo;
  Scenario s = base;
  const auto held = [&](Optimizer o) {
    s.training.optimizer = o;
    const double bytes = memo.parts(s, cat(), counts, rules).optimizer;
    EXPECT_EQ(bytes, optimizer_states(s, rules, counts, nullptr)) << to_string(o);
    return bytes;
  };
  EXPECT_DOUBLE_EQ(held(Optimizer::kAdamw), params * 8.0 / 8.0);
  EXPECT_DOUBLE_EQ(held(Optimizer::kAdamw8bit), params * 2.0 * (1.0 + 4.0 / 256.0) / 8.0);
  held(Optimizer::kAdamw);                // held: the same figure
  EXPECT_EQ(held(Optimizer::kSgd), 0.0);  // replaces AdamW, the older of the two
  EXPECT_DOUBLE_EQ(held(Optimizer::kAdamw), params * 8.0 / 8.0);  // made again
  held(Optimizer::kAdamw8bit);
}

// The capacity the memo keeps is the GPU row's usable capacity, for each row asked for in turn:
// a datacenter HBM card and a GeForce card (whose driver reserves another share), and the first
// again after the second replaced it.
TEST(PartsMemo, CapacityIsTheRowsUsableCapacity) {
  const Gpu& h100 = cat().gpu("h100");
  const Gpu& geforce = cat().gpu("rtx-4090-24gb");
  PartsMemo memo;
  EXPECT_EQ(memo.capacity(h100, cat()), usable_capacity(h100, cat()));
  EXPECT_EQ(memo.capacity(h100, cat()), usable_capacity(h100, cat()));
  EXPECT_EQ(memo.capacity(geforce, cat()), usable_capacity(geforce, cat()));
  EXPECT_EQ(memo.capacity(h100, cat()), usable_capacity(h100, cat()));
  // 80 and 24 GiB less a share: each below its marketed size, the two not equal.
  EXPECT_LT(memo.capacity(h100, cat()), 80.0 * 1024 * 1024 * 1024);
  EXPECT_LT(memo.capacity(geforce, cat()), 24.0 * 1024 * 1024 * 1024);
  EXPECT_GT(memo.capacity(geforce, cat()), 20.0 * 1024 * 1024 * 1024);
}

}  // namespace
}  // namespace gpusizer::memory
