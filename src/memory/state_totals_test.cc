// The model states in two steps (memory/state_totals.h): totals on one GPU of the split, before
// ZeRO, and the sharding step over the data-parallel ranks, checked by hand for Llama-2-7B
// (6,738,415,616 parameters; embedding and untied head 32,000 x 4,096 each), and the totals of
// one ZeRO layout serving the others as state_parts computes each of them.
#include "memory/state_totals.h"

#include <gtest/gtest.h>

#include <string>

#include "estimate/layout.h"
#include "gpusizer/json/scenario.h"
#include "memory/memory_estimate.h"
#include "memory/parts_memo.h"
#include "testing/resolved_scenario.h"

namespace gpusizer::memory {
namespace {

const Catalog& cat() {
  return Catalog::builtin();
}

// Full fine-tuning in bf16 mixed precision under FSDP on eight GPUs, no ZeRO stage yet.
Scenario llama_full_fsdp() {
  return testing::resolved_scenario({{"model", "llama-2-7b"},
                                     {"task", "full"},
                                     {"engine", "fsdp"},
                                     {"gpu", "h100"},
                                     {"gpu_count", 8}});
}

TEST(StateTotals, AreTheWholeModelsOnOneGpuOfTheSplit) {
  const Scenario s = llama_full_fsdp();
  ASSERT_EQ(s.parallel.dp, 8);
  ASSERT_EQ(s.parallel.tp, 1);
  const ModelCounts counts = count_model(s);
  const StateTotals t = state_totals(s, engine_rules(s, cat()), counts);
  // 16-bit working copy and gradients, fp32 master: 2, 2 and 4 B per parameter (ZeRO sec. 3.1).
  EXPECT_DOUBLE_EQ(t.weights.held.whole, 13476831232.0);
  EXPECT_DOUBLE_EQ(t.gradients.whole, 13476831232.0);
  EXPECT_DOUBLE_EQ(t.gradients.experts, 0.0);  // a dense model
  EXPECT_DOUBLE_EQ(t.master.whole, 26953662464.0);
  // One layer's working copy: (6,738,415,616 - 2 x 131,072,000) x 2 B / 32 layers.
  EXPECT_DOUBLE_EQ(t.weights.layer, 404766976.0);
  EXPECT_FALSE(t.weights.gathered_made);  // FSDP gathers no DeepSpeed set
}

TEST(StateTotals, TheStepShardsThemOverTheDataParallelRanks) {
  Scenario s = llama_full_fsdp();
  const ModelCounts counts = count_model(s);
  const EngineRules rules = engine_rules(s, cat());
  StateTotals t = state_totals(s, rules, counts);  // made with no ZeRO stage
  // ZeRO-2: gradients and master weights over 8 ranks, the working copy whole.
  s.training.zero_stage = 2;
  ShardedStates z = shard_states(t, s, cat(), rules, counts);
  EXPECT_DOUBLE_EQ(z.weights, 13476831232.0);
  EXPECT_DOUBLE_EQ(z.gradients, 1684603904.0);
  EXPECT_DOUBLE_EQ(z.master, 3369207808.0);
  // ZeRO-3 under FSDP: the working copy's eighth and two gathered layers (2 x 404,766,976).
  s.training.zero_stage = 3;
  z = shard_states(t, s, cat(), rules, counts);
  EXPECT_DOUBLE_EQ(z.weights, 1684603904.0 + 809533952.0);
  EXPECT_DOUBLE_EQ(z.gradients, 1684603904.0);
  // Parameters offloaded: two layers stay on the GPU; the master copy goes with the optimizer.
  s.training.offload = Offload::kOptimizerParams;
  z = shard_states(t, s, cat(), rules, counts);
  EXPECT_DOUBLE_EQ(z.weights, 809533952.0);
  EXPECT_DOUBLE_EQ(z.master, 0.0);
  // Over four ranks instead: the same totals, a quarter each.
  s.training.offload = Offload::kNone;
  s.training.zero_stage = 2;
  s.parallel.dp = 4;
  z = shard_states(t, s, cat(), rules, counts);
  EXPECT_DOUBLE_EQ(z.gradients, 13476831232.0 / 4);
  EXPECT_DOUBLE_EQ(z.master, 26953662464.0 / 4);
}

// The change search's ZeRO levers (advisor/changes.cc zero_levers) on QLoRA of Llama-3.1-70B on
// one A100: one set of totals, made on the base (no ZeRO, the k-bit upcast in), serves ZeRO-3
// over 2, 4 and 8 GPUs and with the optimizer offloaded as each computed alone, double for
// double; the DeepSpeed gathered set is made by the first of them and read by the others.
TEST(StateTotals, OneSetServesEveryZeroLayout) {
  Scenario s = testing::resolved_scenario(
      {{"model", "llama-3.1-70b"}, {"task", "qlora"}, {"gpu", "a100-80g"}});
  const ModelCounts counts = count_model(s);
  const EngineRules rules = engine_rules(s, cat());
  StateTotals t = state_totals(s, rules, counts);
  EXPECT_GT(t.kbit_upcast, 0.0);  // PEFT's cast, which ZeRO-3 skips
  const StateParts base = state_parts(s, cat(), counts, rules);
  const StateParts from_totals = state_parts(t, s, cat(), counts, rules);
  EXPECT_EQ(from_totals.weights, base.weights);
  for (int64_t dp : {2, 4, 8, 1}) {
    s.parallel.dp = dp;
    s.gpu_count = dp;
    s.training.zero_stage = 3;
    s.training.offload = dp == 1 ? Offload::kOptimizer : Offload::kNone;
    const StateParts alone = state_parts(s, cat(), counts, rules);
    const StateParts shared = state_parts(t, s, cat(), counts, rules);
    EXPECT_EQ(shared.weights, alone.weights) << dp;
    EXPECT_EQ(shared.gradients, alone.gradients) << dp;
    EXPECT_EQ(shared.master, alone.master) << dp;
    EXPECT_EQ(shared.overhead, alone.overhead) << dp;
    EXPECT_TRUE(t.weights.gathered_made);
    // Sharded over dp ranks plus the gathered set: less than the unsharded weights when dp > 1.
    if (dp > 1) {
      EXPECT_LT(shared.weights, t.weights.held.whole) << dp;
    }
  }
}

}  // namespace
}  // namespace gpusizer::memory
