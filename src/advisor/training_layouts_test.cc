// The layout search against published layouts: Megatron-Turing NLG 530B (Smith et al. 2022,
// "Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B", sec. 3: TP 8 inside the
// DGX A100 node, PP 35, DP 8 on 2240 A100 80GB, global batch 1920-2520, seq 2048).
#include "advisor/training_layouts.h"

#include <gtest/gtest.h>

#include "advisor/testing_training_jobs.h"
#include "gpusizer/error.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

Scenario mt_nlg(int64_t gpus) {
  nlohmann::json j = testing::mt_nlg_530b_job(gpus);
  j["gpus_per_node"] = 8;
  j["training"]["mixed_precision"] = "bf16";
  return parse_scenario(j, Catalog::builtin());
}

// A 530B-shaped job cut to 24 layers on 256 GPUs: small enough to estimate every candidate.
Scenario mt_nlg_for_bounds() {
  Scenario s = mt_nlg(256);
  s.model.edit().num_layers = 24;
  s.training.global_batch = 256;
  return s;
}

TEST(TrainingLayouts, Mt530bOn2240GpusUsesTensorAndPipelineParallelism) {
  const Scenario s = mt_nlg(2240);
  const auto r = search_training_layouts(s, Catalog::builtin(), Catalog::builtin().speed(), {});
  ASSERT_FALSE(r.top.empty());
  EXPECT_GT(r.candidates, r.fitting);  // memory pruned something: pure DP cannot hold 530B
  const TrainingLayout& best = r.top.front();
  // 530B x 18 bytes (bf16 weights and grads, fp32 master and Adam states) = 9.5 TB: no layout
  // without model parallelism fits 80 GB; TP beyond 8 would leave the NVLink domain.
  EXPECT_EQ(best.parallel.tp, 8);
  EXPECT_GT(best.parallel.pp, 1);
  EXPECT_EQ(best.parallel.tp * best.parallel.pp * best.parallel.dp, 2240);
  EXPECT_EQ(best.micro_batch * best.grad_accum * best.parallel.dp, 2520);
  for (size_t i = 1; i < r.top.size(); ++i)
    EXPECT_LE(r.top[i - 1].step_time_s, r.top[i].step_time_s);
  // Band: 2520 x 2048 tokens x 6 x 530e9 FLOPs = 1.64e19 over 2240 GPUs at 312 TFLOPS is
  // 23.5 s at 100% MFU. Smith et al. 2022 report 113-126 TFLOPS per GPU with full recomputation
  // (8N FLOPs a token, no FlashAttention): 1.64e19 x 8/6 / (2240 x 126e12) = 77.6 s. A layout
  // with selective recomputation and FlashAttention lands between the two.
  EXPECT_GT(best.step_time_s, 23.5);
  EXPECT_LT(best.step_time_s, 77.6);
  EXPECT_NEAR(best.breakdown.total(), best.step_time_s, 1e-9 * best.step_time_s);
}

TEST(TrainingLayouts, Mt530bOnUpTo5128Gpus) {
  // 5128 = 8 x 641 (prime): no data-parallel size divides the global batch of 2520 = 2^3 3^2 5 7
  // with every GPU busy, so the search may leave some idle.
  const Scenario s = mt_nlg(5128);
  LayoutSearchOptions o;
  EXPECT_TRUE(
      search_training_layouts(s, Catalog::builtin(), Catalog::builtin().speed(), o).top.empty());
  o.allow_fewer_gpus = true;
  const auto r = search_training_layouts(s, Catalog::builtin(), Catalog::builtin().speed(), o);
  ASSERT_FALSE(r.top.empty());
  const TrainingLayout& best = r.top.front();
  EXPECT_EQ(best.parallel.tp, 8);
  EXPECT_GT(best.parallel.pp, 1);
  EXPECT_LE(best.gpus, 5128);
  EXPECT_EQ(best.gpus % 8, 0);
  EXPECT_EQ(best.micro_batch * best.grad_accum * best.parallel.dp, 2520);
  // More GPUs than the 2240 of the published run: at least as fast as the best on 2240.
  const auto r2240 =
      search_training_layouts(mt_nlg(2240), Catalog::builtin(), Catalog::builtin().speed(), {});
  ASSERT_FALSE(r2240.top.empty());
  EXPECT_LE(best.step_time_s, r2240.top.front().step_time_s);
}

// The three everyday jobs each get several distinct layouts with their breakdowns.
TEST(TrainingLayouts, EverydayJobsGetSeveralLayouts) {
  struct Job {
    const char* model;
    const char* task;
    const char* gpu;
    int64_t gpus, global_batch;
    const char* weights;
  };
  for (const Job& j : {Job{"llama-3.1-70b", "pretrain", "h100-sxm5-80gb", 512, 512, "bf16"},
                       Job{"llama-2-7b", "full", "a100-sxm4-80gb", 8, 64, "bf16"},
                       Job{"llama-3.1-70b", "qlora", "l40s-48gb", 2, 16, "nf4"}}) {
    SCOPED_TRACE(j.model + std::string(" ") + j.task + " " + j.gpu);
    const Scenario s = parse_scenario({{"model", j.model},
                                       {"task", j.task},
                                       {"gpu", j.gpu},
                                       {"gpu_count", j.gpus},
                                       {"weights", j.weights},
                                       {"seq_len", 2048},
                                       {"engine", "fsdp"},
                                       {"training", {{"global_batch", j.global_batch}}}},
                                      Catalog::builtin());
    const auto r = search_training_layouts(s, Catalog::builtin(), Catalog::builtin().speed(), {});
    ASSERT_GE(r.top.size(), 3u);
    for (const auto& l : r.top) {
      EXPECT_EQ(l.parallel.tp * l.parallel.pp * l.parallel.dp, j.gpus);
      EXPECT_EQ(l.micro_batch * l.grad_accum * l.parallel.dp, j.global_batch);
      EXPECT_NEAR(l.breakdown.total(), l.step_time_s, 1e-9 * l.step_time_s);
      EXPECT_GT(l.memory_bytes, 0);
    }
  }
}

// The search counts its model once and passes the counts to every memory and speed estimate of a
// layout, as estimate() passes its own: each layout it returns has the memory and step time of
// the same layout estimated directly. LoRA and QLoRA jobs, whose trainable adapter parameters are
// part of the counts, and a full fine-tune.
TEST(TrainingLayouts, EachLayoutIsTheDirectEstimateOfItsScenario) {
  const Catalog& cat = Catalog::builtin();
  for (const char* task : {"lora", "qlora", "full"}) {
    SCOPED_TRACE(task);
    const Scenario base = parse_scenario({{"model", "llama-2-7b"},
                                          {"task", task},
                                          {"gpu", "h100"},
                                          {"gpu_count", 8},
                                          {"training", {{"global_batch", 64}}}},
                                         cat);
    const auto r = search_training_layouts(base, cat, cat.speed(), {});
    ASSERT_GE(r.top.size(), 2u);
    for (const TrainingLayout& l : r.top) {
      Scenario s = base;
      s.default_layout = false;
      s.parallel = l.parallel;
      s.gpu_count = l.gpus;
      s.batch = l.micro_batch;
      s.training.grad_accum = l.grad_accum;
      s.training.global_batch = 64;
      s.training.recompute = l.recompute;
      s.training.zero_stage = l.zero_stage;
      s.training.offload = l.offload;
      const Estimate e = estimate(s, cat, Detail::kFigures);
      ASSERT_TRUE(e.performance && e.performance->step_time_s);
      EXPECT_EQ(e.memory.total, l.memory_bytes);
      EXPECT_EQ(*e.performance->step_time_s, l.step_time_s);
      EXPECT_EQ(*e.performance->mfu, l.mfu);
    }
  }
}

TEST(TrainingLayouts, TopNAndBadInput) {
  Scenario s = mt_nlg(2240);
  LayoutSearchOptions o;
  o.top_n = 3;
  EXPECT_LE(
      search_training_layouts(s, Catalog::builtin(), Catalog::builtin().speed(), o).top.size(), 3u);
  s.gpu = std::nullopt;
  EXPECT_THROW(search_training_layouts(s, Catalog::builtin(), Catalog::builtin().speed(), o),
               InputError);
}

}  // namespace
}  // namespace gpusizer

namespace gpusizer {
namespace {

TEST(TrainingLayouts, BoundsKeepTheBestLayout) {
  // The pruned search (group memory bound, micro-batch bound, recomputation and offload
  // dominance) finds the same best layout as estimating every candidate, with fewer estimates.
  const Scenario s = mt_nlg_for_bounds();
  LayoutSearchOptions all;
  all.prune = false;
  const auto exhaustive =
      search_training_layouts(s, Catalog::builtin(), Catalog::builtin().speed(), all);
  const auto pruned =
      search_training_layouts(s, Catalog::builtin(), Catalog::builtin().speed(), {});
  ASSERT_FALSE(exhaustive.top.empty());
  ASSERT_FALSE(pruned.top.empty());
  EXPECT_DOUBLE_EQ(pruned.top.front().step_time_s, exhaustive.top.front().step_time_s);
  EXPECT_EQ(pruned.candidates, exhaustive.candidates);  // every layout decided
  EXPECT_LT(pruned.memory_estimates, exhaustive.memory_estimates / 2);
  // Every layout the pruned search keeps is one the exhaustive search also found fitting.
  for (const TrainingLayout& l : pruned.top)
    EXPECT_GE(l.step_time_s, exhaustive.top.front().step_time_s);
}

TEST(TrainingLayouts, BoundsKeepEveryBestLayoutOnFewerGpus) {
  // With fewer GPUs allowed every divisor of the global batch is a data-parallel size, tried
  // largest first: a (ZeRO, v, b) cell that does not fit at dp >= 2 is skipped at the smaller
  // ones (memory per GPU does not fall as dp shrinks: fewer optimizer shards, more micro-batches
  // in flight). The bounds are exact: the same best layout and the same candidates decided.
  Scenario s = mt_nlg_for_bounds();
  s.gpu_count = 200;
  LayoutSearchOptions all;
  all.prune = false;
  all.allow_fewer_gpus = true;
  all.top_n = 5;
  LayoutSearchOptions bounded = all;
  bounded.prune = true;
  const Catalog& cat = Catalog::builtin();
  const auto exhaustive = search_training_layouts(s, cat, cat.speed(), all);
  const auto pruned = search_training_layouts(s, cat, cat.speed(), bounded);
  ASSERT_FALSE(exhaustive.top.empty());
  ASSERT_FALSE(pruned.top.empty());
  EXPECT_DOUBLE_EQ(pruned.top.front().step_time_s, exhaustive.top.front().step_time_s);
  EXPECT_EQ(pruned.candidates, exhaustive.candidates);
  EXPECT_LT(pruned.memory_estimates, exhaustive.memory_estimates / 2);
}

TEST(TrainingLayouts, EngineLeversLimitTheSearch) {
  // Hugging Face Trainer: data parallelism with ZeRO through DeepSpeed/FSDP, layers split by
  // device_map (no interleaving), no tensor or context parallelism; FSDP has no ZeRO-1.
  Scenario s = mt_nlg(2240);
  s.model.edit().num_layers = 8;  // a smaller job that pure data parallelism can hold
  s.engine = "hf";
  s.gpu_count = 8;
  s.training.global_batch = 8;
  const auto r = search_training_layouts(s, Catalog::builtin(), Catalog::builtin().speed(), {});
  for (const TrainingLayout& l : r.top) {
    EXPECT_EQ(l.parallel.tp * l.parallel.cp * l.parallel.pp_interleave, 1);
    EXPECT_NE(l.recompute, Recompute::kSelective);
  }
  // The levers come from data/engines.json training_levers (FSDP: NO_SHARD, SHARD_GRAD_OP,
  // FULL_SHARD; Megatron: the distributed optimizer is ZeRO-1).
  const Catalog& cat = Catalog::builtin();
  EXPECT_EQ(cat.engine("fsdp").training_levers.zero_stages, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(cat.engine("megatron").training_levers.zero_stages, (std::vector<int>{0, 1}));
  EXPECT_FALSE(cat.engine("hf").training_levers.tp);
  EXPECT_EQ(cat.engine("deepspeed").training_levers.max_interleave, 1);  // 1F1B TrainSchedule
}

}  // namespace
}  // namespace gpusizer
