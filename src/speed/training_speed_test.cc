// Each lever of the training step model against numbers derived by hand from its source, on a
// profile whose efficiencies are round (eff = 0.5 of the dense rate at every width, no overheads,
// links at their line rate), so that every difference below is one formula.
#include "speed/training_speed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gpusizer/json/api.h"
#include "gpusizer/json/scenario.h"
#include "gpusizer/speed.h"
#include "scenario/lookups.h"
#include "speed/testing_training_speed.h"

namespace gpusizer {
namespace {

// A100 SXM4 80GB (data/gpus.csv): 312 TFLOPS dense fp16/bf16, 2039 GB/s HBM, PCIe Gen4 x16
// (16 x 1.969 GB/s = 31.504 GB/s a direction), NVLink 600 GB/s both directions.
constexpr double kRate = 312e12 * 0.5;
constexpr double kHbm = 2039e9;
constexpr double kPcie = 16 * 1.969e9;

using testing::round_profile;
using testing::step;

// The GPT-2-shaped job of testing_training_speed.h: one sequence of 1024 tokens per step.
Scenario small(int64_t gpus = 1) {
  return parse_scenario(testing::small_gpt2_job(gpus), Catalog::builtin());
}

// The job split into p = 4 pipeline stages of one layer each on 4 GPUs, with m = 8
// micro-batches per step.
Scenario four_stages_eight_micro_batches() {
  Scenario s = small(4);
  s.parallel.pp = 4;
  s.parallel.dp = 1;
  s.training.global_batch = 8;
  return s;
}

// Per token and layer: 12 h^2 weights (4 h^2 attention + 8 h^2 MLP), forward 2 FLOPs each:
// 24 h^2 = 25,165,824; biases and norms add 13 h parameters (0.1%). Attention forward per token
// and layer: QK^T and PV, 2 FLOPs x h each per context token (PaLM appendix B), over the causal
// mean s / 2 context: 4 h x s / 2 = 2 h s = 2,097,152.
constexpr double kH = 1024, kL = 4, kS = 1024, kTokens = 1024;
constexpr double kLayerFwd = 24 * kH * kH * kL;  // 100,663,296 FLOPs per token
constexpr double kAttnFwd = 2 * kH * kS * kL;    // 8,388,608 FLOPs per token (QK^T + PV, causal)

TEST(TrainingSpeed, ParameterCountOfTheTestModel) {
  // Embedding 1000 x 1024 + positions 1024 x 1024 + 4 layers x (12 h^2 weights + 9 h biases
  // (qkv 3h, out h, fc 4h, proj h) + two layer norms 4 h) + final norm 2 h
  // = 1,024,000 + 1,048,576 + 4 x 12,596,224 + 2,048 = 52,459,520.
  EXPECT_EQ(count_params(*small().model).total, 52459520);
}

TEST(TrainingSpeed, ModelFlopsCountTheCausalAttentionTheStepNeeds) {
  // Model FLOPs per token (MFU's numerator): 3 x the forward of the weights, 2 x 50,386,944
  // non-embedding params = 100,773,888 (the 24 h^2 L above and 110,592 of biases and norms), plus
  // the tied head 2 x 1000 x 1024 = 2,048,000; and 3 x the causal attention forward, 8,388,608:
  // 3 x 102,821,888 + 3 x 8,388,608 = 333,631,488. (PaLM's 12 L H Q T over every key would add
  // 3 x 8,388,608 more.) Frozen weights (LoRA) take no weight gradients: 2 x 102,821,888 +
  // 25,165,824 = 230,809,600; the adapters' own FLOPs are the job's, not the model's.
  Scenario s = small();
  const auto p = round_profile();
  EXPECT_NEAR(step(s, p).model_flops_per_token, 333631488.0, 1.0);
  s.task = Task::kLora;
  EXPECT_NEAR(step(s, p).model_flops_per_token, 230809600.0, 1.0);
}

TEST(TrainingSpeed, FullRecomputationAddsOneForward) {
  // Chen et al. 2016 / Korthikanti et al. 2022 sec. 5: full recomputation replays the layers'
  // forward: (24 h^2 L + 2 h s L) x tokens / rate = 1.1167e11 / 1.56e14 = 0.7158 ms, i.e. one
  // third of the layers' forward + backward; the LM head is not replayed.
  Scenario s = small();
  const auto p = round_profile();
  const TrainingSpeed none = step(s, p);
  s.training.recompute = Recompute::kFull;
  const TrainingSpeed full = step(s, p);
  const double replay = (kLayerFwd + kAttnFwd) * kTokens / kRate;
  EXPECT_NEAR(full.breakdown.recompute, replay, 0.002 * replay);
  EXPECT_NEAR(full.step_time_s - none.step_time_s, replay, 0.002 * replay);
  EXPECT_EQ(none.breakdown.recompute, 0);
}

TEST(TrainingSpeed, SelectiveRecomputationReplaysAttentionOnly) {
  // Korthikanti et al. 2022 sec. 5: only QK^T, softmax and PV are replayed: 2 h s L x tokens /
  // rate = 8.389e6 x 1024 / 1.56e14 = 55.1 us, 1/12 of the full replay here.
  Scenario s = small();
  s.training.recompute = Recompute::kSelective;
  const TrainingSpeed sel = step(s, round_profile());
  const double replay = kAttnFwd * kTokens / kRate;
  EXPECT_NEAR(sel.breakdown.recompute, replay, 0.001 * replay);
}

TEST(TrainingSpeed, EagerAttentionPaysForTheMaskedHalfAndTheScores) {
  // Without FlashAttention the whole s x s score matrix is multiplied (forward 4 h s per layer
  // instead of 2 h s, backward twice that): + 3 x 2 h s L x tokens / rate = 161.3 us; and the
  // scores stream through memory: tokens x s x heads x 32 bytes x L / HBM
  // = 1024 x 1024 x 16 x 32 x 4 / 2.039e12 = 1.0532 ms (Korthikanti et al. 2022 sec. 4.1 and
  // Dao et al. 2022: what FlashAttention keeps on chip).
  Scenario s = small();
  const auto p = round_profile();
  const TrainingSpeed flash = step(s, p);
  s.training.flash_attention = false;
  const TrainingSpeed eager = step(s, p);
  const double flops = 3 * kAttnFwd * kTokens / kRate;
  const double bytes = kTokens * kS * 16 * 32 * kL / kHbm;
  EXPECT_NEAR(eager.step_time_s - flash.step_time_s, flops + bytes, 0.001 * (flops + bytes));
}

TEST(TrainingSpeed, FlashAttentionRunsAtItsOwnTrainingRates) {
  // With measured FlashAttention rates the attention core leaves the GEMMs (3 x its forward at
  // the GEMM rate, 0.5 of the dense rate here) and runs its forward at the forward fraction
  // (0.5 here) and its backward, 2.5 x the forward FLOPs because it recomputes QK^T (Dao et al.
  // 2022 sec. 3.1), at the backward fraction (0.25 here):
  // kAttnFwd x tokens x (1 / 156e12 + 2.5 / 78e12) = 8.389e6 x 1024 x 6 / 1.56e14 = 330.4 us,
  // against 3 x 8.389e6 x 1024 / 1.56e14 = 165.2 us with the GEMMs: +165.2 us. A full replay
  // runs the attention forward again at the forward rate: +55.1 us either way.
  Scenario s = small();
  const SpeedProfile gemm = round_profile();
  nlohmann::json doc = gemm.doc();
  doc["attention_kernels"] = {{"fa2", {{"default", 0.5}}}};
  doc["training"]["attention_backward"] = {{"default", 0.25}};
  const SpeedProfile fa = SpeedProfile::from_json(doc);
  const double extra = 3 * kAttnFwd * kTokens / kRate;
  EXPECT_NEAR(step(s, fa).step_time_s - step(s, gemm).step_time_s, extra, 0.001 * extra);
  s.training.recompute = Recompute::kFull;
  const TrainingSpeed full = step(s, fa);
  const double replay = (kLayerFwd + kAttnFwd) * kTokens / kRate;
  EXPECT_NEAR(full.breakdown.recompute, replay, 0.002 * replay);
  // Eager attention keeps the GEMM path whatever the tables say.
  s.training.flash_attention = false;
  EXPECT_DOUBLE_EQ(step(s, fa).step_time_s, step(s, gemm).step_time_s);
}

TEST(TrainingSpeed, SequenceParallelismSplitsTheReplicatedActivations) {
  // Korthikanti et al. 2022 sec. 4.2: per token and layer a layer stores 34 h bytes; tensor
  // parallelism over t splits 24 h of them and replicates 10 h (norms, dropouts); sequence
  // parallelism splits all 34 h. With elementwise traffic of 34 h bytes per token and layer
  // (one pass over what is stored) on TP8: (10 + 24/8) h - 34 h / 8 = 8.75 h bytes per token and
  // layer: 8.75 x 1024 x 4 x 1024 / 2.039e12 = 17.99 us less per step.
  Scenario s = small(8);
  s.parallel.tp = 8;
  s.parallel.dp = 1;
  const auto p = round_profile(34.0);
  const TrainingSpeed tp_only = step(s, p);
  s.parallel.sequence_parallel = true;
  const TrainingSpeed sp = step(s, p);
  // Megatron TP: 4 all-reduces per layer of b s h x 2 bytes = 2 MiB over NVLink at 300 GB/s a
  // direction: 2 x 7/8 x 2,097,152 / 3e11 = 12.23 us each; 4 x 4 layers + 1 for the head = 17.
  // Sequence parallelism moves the same bytes as reduce-scatters and all-gathers, and gathers
  // the norm outputs again in the backward: one all-reduce's worth more per layer, 21 in all.
  const double one = 2.0 * 7.0 / 8.0 * 2097152.0 / 300e9;
  EXPECT_NEAR(tp_only.breakdown.tp_comm, 17 * one, 1e-3 * one);
  EXPECT_NEAR(sp.breakdown.tp_comm, 21 * one, 1e-3 * one);
  const double saved = 8.75 * kH * kL * kTokens / kHbm;
  EXPECT_NEAR(tp_only.breakdown.compute - sp.breakdown.compute, saved, 0.001 * saved);
  EXPECT_NEAR(tp_only.step_time_s - sp.step_time_s, saved - 4 * one, 0.001 * saved);
}

TEST(TrainingSpeed, OptimizerOffloadMovesTheStepToThePcieAndTheCpu) {
  // On the GPU, AdamW with fp32 master weights moves 42 bytes per parameter (grad 4, master 4+4,
  // two states 2 x (4+4), bf16 copy 2, gradient clipping 3 x 4): 52,459,520 x 42 / 2.039e12
  // = 1.0806 ms. ZeRO-Offload
  // (Ren et al. 2021 sec. 4): 2-byte gradients down and 2-byte weights up over PCIe
  // (2 x 2 x 52,459,520 / 31.504e9 = 6.661 ms, none of it hidden with overlap 0) plus CPU Adam
  // over the same 42 bytes at 25 GB/s of host memory (88.13 ms).
  Scenario s = small();
  const auto p = round_profile();
  const TrainingSpeed gpu = step(s, p);
  const double params = 52459520;
  EXPECT_NEAR(gpu.breakdown.optimizer, params * 42 / kHbm, 1e-9);
  s.training.offload = Offload::kOptimizer;
  const TrainingSpeed off = step(s, p);
  EXPECT_EQ(off.breakdown.optimizer, 0);
  const double expect = 4 * params / kPcie + params * 42 / 25e9;
  EXPECT_NEAR(off.breakdown.offload, expect, 1e-9);
  EXPECT_GT(off.step_time_s, gpu.step_time_s);
  // Parameters offloaded too: each micro-batch copies the 2-byte weights in for the forward and
  // again for the backward: 2 x 104,919,040 / 31.504e9 = 6.661 ms more.
  s.training.offload = Offload::kOptimizerParams;
  const TrainingSpeed both = step(s, p);
  EXPECT_NEAR(both.breakdown.offload - off.breakdown.offload, 4 * params / kPcie, 1e-9);
}

TEST(TrainingSpeed, LoraAdaptersStreamTheirInputsAndOutputs) {
  // PEFT's unfused adapters move 18 bytes per input and 36 per output feature of each targeted
  // matrix per token (dropout, lora_A, lora_B, scale, add; forward and backward). All-linear on
  // the test model: per layer q, k, v, o (1024 -> 1024), up (1024 -> 4096), down (4096 -> 1024):
  // 9216 input and 9216 output features, 54 x 9216 = 497,664 bytes, x 4 layers x 1024 tokens
  // = 2.0384e9 bytes. With it, the only bandwidth-bound terms are the fp32 loss (1024 x 1000 x
  // 16 = 1.6384e7) and AdamW over the 8 x 18,432 x 4 = 589,824 adapter weights (x 42 bytes =
  // 2.4773e7): doubling the HBM bandwidth saves half of 2.0796e9 / 2.039e12 = 0.5099 ms.
  Scenario s = small();
  s.task = Task::kLora;
  s.training.lora_targets = {"all-linear"};
  const auto p = round_profile();
  const TrainingSpeed base = step(s, p);
  Gpu fast = *s.gpu;
  fast.memory_bandwidth_gbps = 2 * 2039.0;
  s.gpu = fast;
  const TrainingSpeed faster = step(s, p);
  const double bytes = 2.0384e9 + 1.6384e7 + 589824.0 * 42;
  EXPECT_NEAR(base.step_time_s - faster.step_time_s, bytes / (2 * kHbm), 1e-3 * bytes / kHbm);
}

TEST(TrainingSpeed, DataParallelTrafficAndItsOverlap) {
  // 16 GPUs on two nodes: the data-parallel ring crosses the network, the A100 platform's one
  // 200 Gb/s HDR NIC per GPU (DGX A100; gpus.csv scaleout_gbps_per_gpu) = 25 GB/s a GPU.
  // Gradients: 52,459,520 x 2 bytes = 1.0492e8. ZeRO 0-2: one all-reduce, 2 x 15/16 x 1.0492e8 /
  // 2.5e10 = 7.869 ms (Rajbhandari et al. 2020 sec. 7.2.1). ZeRO-3: per micro-batch two
  // all-gathers of the 2-byte weights and a reduce-scatter of the gradients, 3 x 15/16 x
  // 1.0492e8 / 2.5e10 = 11.80 ms (sec. 7.2.2).
  Scenario s = small(16);
  s.parallel.dp = 16;
  s.training.global_batch = 16;  // one sequence per GPU: one micro-batch
  const double bytes = 52459520.0 * 2;
  const double allreduce = 2 * 15.0 / 16.0 * bytes / 25e9;
  const double zero3 = 3 * 15.0 / 16.0 * bytes / 25e9;
  const TrainingSpeed ddp = step(s, round_profile(0, 0));
  EXPECT_NEAR(ddp.breakdown.dp_comm, allreduce, 1e-9);
  s.training.zero_stage = 3;
  const TrainingSpeed z3 = step(s, round_profile(0, 0));
  EXPECT_NEAR(z3.breakdown.dp_comm, zero3, 1e-9);
  // Full overlap hides what fits behind the compute it runs with (the last micro-batch's
  // backward for the all-reduce, the whole micro-batch for ZeRO-3): only the excess shows.
  s.training.zero_stage = 0;
  const TrainingSpeed hidden = step(s, round_profile(0, 1));
  const double backward = hidden.breakdown.compute * 2.0 / 3.0;
  EXPECT_NEAR(hidden.breakdown.dp_comm, std::max(0.0, allreduce - backward), 1e-9);
  EXPECT_LT(hidden.step_time_s, ddp.step_time_s);
}

TEST(TrainingSpeed, InterleavingShrinksTheBubbleAndTheLastStageCarriesTheHead) {
  // Narayanan et al. 2021 sec. 2.2: bubble = (p - 1) / v body-stage micro-batch times. With p = 4
  // stages (one layer each) and m = 8 micro-batches, v = 2 halves the fill and drain.
  Scenario s = four_stages_eight_micro_batches();
  const auto p = round_profile();
  const TrainingSpeed v1 = step(s, p);
  s.parallel.pp_interleave = 2;
  const TrainingSpeed v2 = step(s, p);
  // One body stage, one micro-batch: one layer forward + backward: 3 x (24 h^2 + 2 h s) x 1024 /
  // rate = 0.5369 ms (+ 0.1% for biases). Bubble v1: 3 of them, v2: 1.5; plus the stage sends,
  // 2 v per micro-batch of b s h x 2 bytes = 2 MiB over NVLink (300 GB/s): 6.99 us each.
  const double stage = 3 * (24 * kH * kH + 2 * kH * kS) * kTokens / kRate;
  const double send = 2097152.0 / 300e9;
  EXPECT_NEAR(v1.breakdown.pp_bubble, 3 * stage + 16 * send, 0.005 * stage);
  EXPECT_NEAR(v2.breakdown.pp_bubble, 1.5 * stage + 32 * send, 0.005 * stage);
  EXPECT_LT(v2.step_time_s, v1.step_time_s);
  // The last stage paces the 8 micro-batches: its layer plus the head (6 x vocab x h = 6.144e6
  // FLOPs per token) and the fp32 cross-entropy (16 bytes per logit: 1024 x 1000 x 16 / HBM).
  const double head = 6 * 1000 * kH * kTokens / kRate;
  const double loss = kTokens * 1000 * 16 / kHbm;
  EXPECT_NEAR(v1.breakdown.compute, 8 * (stage + head + loss), 0.01 * stage);
}

TEST(TrainingSpeed, ANaivePipelineRunsTheStagesInTurn) {
  // An engine whose layer split has no pipeline schedule (engines.json naive_pipeline: Hugging
  // Face accelerate's device_map; transformers docs, naive pipeline parallelism) runs each of
  // the m = 8 micro-batches through the p = 4 stages in turn: the others wait (p - 1) stage
  // times per micro-batch, 8 x 3 = 24 of them, an idle share of (p - 1) / p = 3/4 against 1F1B's
  // (p - 1) / m = 3/8 (3 stage times and the 16 sends of the test above).
  Scenario s = four_stages_eight_micro_batches();
  const auto p = round_profile();
  EngineProfile naive = Catalog::builtin().engine("megatron");
  ASSERT_FALSE(naive.naive_pipeline);
  const TrainingSpeed scheduled = step(s, p, naive);
  naive.naive_pipeline = true;
  const TrainingSpeed in_turn = step(s, p, naive);
  const double stage = 3 * (24 * kH * kH + 2 * kH * kS) * kTokens / kRate;
  EXPECT_NEAR(scheduled.bubble, 3.0 / 8.0, 1e-12);
  EXPECT_NEAR(in_turn.bubble, 3.0 / 4.0, 1e-12);
  // (+ 0.1% for biases, as above)
  EXPECT_NEAR(in_turn.breakdown.pp_bubble, 24 * stage, 0.002 * 24 * stage);
  EXPECT_NEAR(scheduled.breakdown.pp_bubble, 3 * stage + 16 * 2097152.0 / 300e9, 0.005 * stage);
}

TEST(TrainingSpeed, BreakdownAddsUpInTheEstimateJson) {
  const nlohmann::json out =
      estimate_json({{"model", "llama-3.1-8b"},
                     {"gpu", "a100-sxm4-80gb"},
                     {"gpu_count", 8},
                     {"task", "full"},
                     {"engine", "fsdp"},
                     {"training", {{"zero_stage", 3}, {"gradient_checkpointing", true}}}},
                    Catalog::builtin());
  const auto& perf = out.at("performance");
  const auto& parts = perf.at("step_breakdown_s");
  double sum = 0;
  for (const char* key : {"compute", "recompute", "tp_comm", "pp_bubble", "dp_comm", "ep_comm",
                          "optimizer", "offload"}) {
    ASSERT_TRUE(parts.contains(key)) << key;
    EXPECT_GE(parts.at(key).get<double>(), 0) << key;
    sum += parts.at(key).get<double>();
  }
  // Each part and the step written to six significant digits (report/json_figure.h).
  EXPECT_NEAR(sum, perf.at("step_time_s").get<double>(), 1e-5 * sum);
  EXPECT_GT(parts.at("recompute").get<double>(), 0);
}

}  // namespace
}  // namespace gpusizer

namespace gpusizer {
namespace {

// Every figure of training_speed for `s`, with and without `memo`, the same double.
void expect_memo_same(const Scenario& s, const ModelCounts& counts, ModuleSumsMemo& memo) {
  const Catalog& catalog = Catalog::builtin();
  std::string why;
  const auto plain = training_speed(s, engine_profile(s, catalog), catalog.speed(), counts, why);
  const auto kept =
      training_speed(s, engine_profile(s, catalog), catalog.speed(), counts, why, &memo);
  ASSERT_TRUE(plain && kept) << why;
  EXPECT_EQ(kept->step_time_s, plain->step_time_s);
  EXPECT_EQ(kept->tokens_per_s, plain->tokens_per_s);
  EXPECT_EQ(kept->tflops_per_gpu, plain->tflops_per_gpu);
  EXPECT_EQ(kept->compute_s, plain->compute_s);
  EXPECT_EQ(kept->tp_comm_s, plain->tp_comm_s);
  // The FLOPs per token read the model's costs, which the memo keeps for the last counts.
  EXPECT_EQ(kept->hardware_flops_per_token, plain->hardware_flops_per_token);
  EXPECT_EQ(kept->model_flops_per_token, plain->model_flops_per_token);
  EXPECT_EQ(kept->qlora_dequant_s, plain->qlora_dequant_s);
  EXPECT_EQ(memo.costs_counts, &counts);
  EXPECT_EQ(memo.costs_model, s.model.get());
}

// The matrix sums are kept by model, counts, tensor-parallel width and the engine's figures: a
// search's candidates (one scenario changed in place, two tasks' counts) take them from the memo
// and get every figure they computed before, and a new width or task takes a new slot.
TEST(TrainingSpeed, ModuleSumsMemoKeepsTheFigures) {
  const Catalog& catalog = Catalog::builtin();
  Scenario s = parse_scenario(
      nlohmann::json{
          {"model", "llama-3.1-8b"}, {"task", "lora"}, {"gpu", "h100"}, {"gpu_count", 8}},
      catalog);
  const ModelCounts lora = count_model(s);
  ModuleSumsMemo memo;
  expect_memo_same(s, lora, memo);  // computed: slot 0
  EXPECT_EQ(memo.next, 1u);
  s.seq_len = 1024;  // a field the sums do not read: the same slot
  expect_memo_same(s, lora, memo);
  EXPECT_EQ(memo.next, 1u);
  s.parallel.tp = 2;  // the width: a new slot (row-parallel GEMMs reduce over in / 2)
  s.parallel.dp = 4;
  expect_memo_same(s, lora, memo);
  EXPECT_EQ(memo.next, 2u);
  s.task = Task::kFull;  // another task's counts: a new slot, no adapter bytes
  const ModelCounts full = count_model(s);
  expect_memo_same(s, full, memo);
  EXPECT_EQ(memo.next, 3u);
  s.parallel.tp = 1;  // back to width 1 with the full task's counts: new; the LoRA one stays
  s.parallel.dp = 8;
  expect_memo_same(s, full, memo);
  s.task = Task::kLora;
  expect_memo_same(s, lora, memo);   // slot 0 again
  EXPECT_EQ(memo.next, 0u);          // four slots taken, the next new key replaces slot 0
  EXPECT_LT(memo.matrix_params, 0);  // no QLoRA candidate: the matrices' sum not made
}

// QLoRA's 16-bit weight copies read the layers' matrix parameters, which the memo keeps with the
// model's costs: the same step time and copy time with and without it, twice, and again after
// another task's counts replaced the costs.
TEST(TrainingSpeed, ModuleSumsMemoKeepsQloraMatrices) {
  const Catalog& catalog = Catalog::builtin();
  const Scenario s = parse_scenario(
      nlohmann::json{{"model", "llama-3.1-8b"}, {"task", "qlora"}, {"gpu", "h100"}}, catalog);
  const ModelCounts qlora = count_model(s);
  ModuleSumsMemo memo;
  expect_memo_same(s, qlora, memo);
  // Llama-3.1-8B's layer matrices: 32 x 4096 x (4096 + 2 x 1024 + 4096 + 3 x 14336).
  EXPECT_EQ(memo.matrix_params, 32.0 * 4096 * (4096 + 2 * 1024 + 4096 + 3 * 14336));
  expect_memo_same(s, qlora, memo);
  Scenario full = s;
  full.task = Task::kFull;
  const ModelCounts full_counts = count_model(full);
  expect_memo_same(full, full_counts, memo);
  EXPECT_LT(memo.matrix_params, 0);  // other counts: the sum is made again when asked
  expect_memo_same(s, qlora, memo);
  EXPECT_EQ(memo.matrix_params, 32.0 * 4096 * (4096 + 2 * 1024 + 4096 + 3 * 14336));
}

// The forward FLOPs per token are kept for the last sequence length, attention kind and task
// kind of the costs held: the same figures with and without the memo, and the hand-checked parts
// of Llama-3.1-8B (32 layers, 32 heads of 128, vocabulary 128,256): the head 2 x 128,256 x
// 4,096, the attention core 4 x 4,096 FLOPs per context token and layer over s / 2 causal tokens
// with FlashAttention, all s eager.
TEST(TrainingSpeed, ForwardFlopsKeptByLengthAndTask) {
  const Catalog& catalog = Catalog::builtin();
  Scenario s = parse_scenario(
      nlohmann::json{{"model", "llama-3.1-8b"}, {"task", "lora"}, {"gpu", "h100"}}, catalog);
  s.seq_len = 2048;
  s.training.flash_attention = true;
  const ModelCounts lora = count_model(s);
  ModuleSumsMemo memo;
  expect_memo_same(s, lora, memo);  // computed
  EXPECT_EQ(memo.flops_seq_len, 2048);
  EXPECT_EQ(memo.flops.head, 2.0 * 128256 * 4096);
  EXPECT_EQ(memo.flops.attn, 4.0 * 4096 * 32 * 1024);
  EXPECT_GT(memo.flops.lora, 0);
  // A field forward_flops does not read: kept, not made again (a marked figure stays marked).
  memo.flops.head = -1;
  s.batch = 4;
  std::string why;
  ASSERT_TRUE(training_speed(s, engine_profile(s, catalog), catalog.speed(), lora, why, &memo));
  EXPECT_EQ(memo.flops.head, -1);
  memo.flops.head = 2.0 * 128256 * 4096;
  expect_memo_same(s, lora, memo);
  s.seq_len = 1024;  // a shorter length: made again, half the attention
  expect_memo_same(s, lora, memo);
  EXPECT_EQ(memo.flops.attn, 4.0 * 4096 * 32 * 512);
  s.training.flash_attention = false;  // eager: the whole s x s scores
  expect_memo_same(s, lora, memo);
  EXPECT_EQ(memo.flops.attn, 4.0 * 4096 * 32 * 1024);
  EXPECT_FALSE(memo.flops_flash);
  s.task = Task::kFull;  // another task's counts: new costs, made again without adapters
  const ModelCounts full = count_model(s);
  expect_memo_same(s, full, memo);
  EXPECT_EQ(memo.flops.lora, 0);
  EXPECT_FALSE(memo.flops_lora);
  EXPECT_EQ(memo.flops.head, 2.0 * 128256 * 4096);
}

// A candidate whose lookups no longer hold (its weights another row, as QLoRA's nf4 is for a
// base resolved with bf16) finds the engine's training entry by name, at another address than the
// lookups' copy in the catalog's index: the rates held for the same GPU, engine and precision are
// kept (the entry they were made with stays), with the same figures as made by name.
TEST(TrainingSpeed, StepRatesKeptWhenTheLookupsDoNotHold) {
  const Catalog& catalog = Catalog::builtin();
  Scenario s = parse_scenario(
      nlohmann::json{{"model", "llama-3.1-8b"}, {"task", "lora"}, {"gpu", "h100"}}, catalog);
  const ModelCounts counts = count_model(s);
  ModuleSumsMemo memo;
  ASSERT_NE(speed_lookups(s, catalog.speed()), nullptr);
  expect_memo_same(s, counts, memo);
  const TrainingProfile* indexed = memo.rates.training;
  EXPECT_EQ(indexed, s.lookups.training);
  EXPECT_NE(indexed, &catalog.speed().training(s.engine));
  s.weights = FormatRef(*s.weights);  // a copy of the row: the lookups do not hold
  ASSERT_EQ(speed_lookups(s, catalog.speed()), nullptr);
  expect_memo_same(s, counts, memo);
  EXPECT_EQ(memo.rates.training, indexed);  // kept, not made again by name
  EXPECT_DOUBLE_EQ(memo.rates.peak, 989.4e12);
  s.training.mixed_precision = MixedPrecision::kFp32;  // a new key: made again, by name
  expect_memo_same(s, counts, memo);
  EXPECT_EQ(memo.rates.training, &catalog.speed().training(s.engine));
  EXPECT_DOUBLE_EQ(memo.rates.peak, 67e12);
}

// The step's rates are kept for the last GPU, engine, precision and FlashAttention flag: the
// same figures with and without the memo as each of those changes, and the dense peak of the
// dtype each asks for (gpus.csv, NVIDIA's datasheets: H100 SXM 989.4 bf16 and 67 fp32 TFLOPS,
// A100 SXM 312 bf16).
TEST(TrainingSpeed, StepRatesKeptByGpuEngineAndPrecision) {
  const Catalog& catalog = Catalog::builtin();
  Scenario s = parse_scenario(
      nlohmann::json{{"model", "llama-3.1-8b"}, {"task", "lora"}, {"gpu", "h100"}}, catalog);
  const ModelCounts counts = count_model(s);
  ModuleSumsMemo memo;
  expect_memo_same(s, counts, memo);
  EXPECT_EQ(memo.rates.gpu, s.gpu.get());
  EXPECT_EQ(memo.rates.dtype, "bf16");
  EXPECT_DOUBLE_EQ(memo.rates.peak, 989.4e12);
  EXPECT_TRUE(memo.rates.flash_rates);
  s.batch = 2;  // a field the rates do not read: kept
  expect_memo_same(s, counts, memo);
  s.training.flash_attention = false;  // eager attention runs with the GEMMs
  expect_memo_same(s, counts, memo);
  EXPECT_FALSE(memo.rates.flash_rates);
  s.training.mixed_precision = MixedPrecision::kFp32;  // fp32 matmuls (no TF32 by default)
  expect_memo_same(s, counts, memo);
  EXPECT_EQ(memo.rates.dtype, "fp32");
  EXPECT_DOUBLE_EQ(memo.rates.peak, 67e12);
  const Scenario a100 = parse_scenario(
      nlohmann::json{{"model", "llama-3.1-8b"}, {"task", "lora"}, {"gpu", "a100-80g"}}, catalog);
  const ModelCounts a100_counts = count_model(a100);
  expect_memo_same(a100, a100_counts, memo);
  EXPECT_EQ(memo.rates.gpu, a100.gpu.get());
  EXPECT_DOUBLE_EQ(memo.rates.peak, 312e12);
  expect_memo_same(s, counts, memo);  // back to the H100's fp32 rates
  EXPECT_DOUBLE_EQ(memo.rates.peak, 67e12);
}

// The optimizer step's bytes per parameter are kept for the last optimizer and precision (the
// fields optimizer_bytes_per_param reads): AdamW under bf16 AMP moves 4 (fp32 gradient) + 2 x 4
// (master weight read and written) + 2 x 2 x 4 (two states read and written) + 2 (the 16-bit
// copy) + 3 x 4 (clipping's passes) = 42 bytes; 8-bit AdamW's states are a byte each, 30; pure
// bf16 with 8-bit AdamW 2 + 2 x 2 + 2 x 2 x 1 + 3 x 2 = 16.
TEST(TrainingSpeed, OptimizerBytesKeptByOptimizerAndPrecision) {
  const Catalog& catalog = Catalog::builtin();
  Scenario s = parse_scenario(
      nlohmann::json{{"model", "llama-3.1-8b"}, {"task", "full"}, {"gpu", "h100"}}, catalog);
  const ModelCounts counts = count_model(s);
  ModuleSumsMemo memo;
  expect_memo_same(s, counts, memo);
  EXPECT_EQ(memo.optimizer_bytes, 42.0);
  s.training.optimizer = Optimizer::kAdamw8bit;
  expect_memo_same(s, counts, memo);
  EXPECT_EQ(memo.optimizer_bytes, 30.0);
  // A field it does not read: kept, not made again (a marked figure stays marked).
  memo.optimizer_bytes = 31.0;
  s.batch = 2;
  std::string why;
  ASSERT_TRUE(training_speed(s, engine_profile(s, catalog), catalog.speed(), counts, why, &memo));
  EXPECT_EQ(memo.optimizer_bytes, 31.0);
  memo.optimizer_bytes = 30.0;
  s.training.mixed_precision = MixedPrecision::kPureBf16;
  expect_memo_same(s, counts, memo);
  EXPECT_EQ(memo.optimizer_bytes, 16.0);
}

// One micro-batch's seconds are kept by the fields the stage's work reads: a step that differs
// only in its data-parallel layout, ZeRO stage, offload or optimizer takes them from the memo
// (training_speed with the memo kept its own), and gives the figure made without the memo. The
// job with full recomputation on the round profile: the replayed forward of one micro-batch is
// (24 h^2 L + 2 h s L) x 1,024 tokens / 156 TFLOPS = 0.7158 ms (FullRecomputationAddsOneForward).
TEST(TrainingSpeed, MicroBatchKeptAcrossTheDataParallelLayout) {
  const Catalog& catalog = Catalog::builtin();
  const SpeedProfile profile = round_profile();
  std::string why;
  Scenario s = small();
  s.training.recompute = Recompute::kFull;
  const ModelCounts counts = count_model(s);
  const EngineProfile& engine = engine_profile(s, catalog);
  ModuleSumsMemo memo;
  ASSERT_TRUE(training_speed(s, engine, profile, counts, why, &memo)) << why;
  ASSERT_EQ(memo.micro_batches_held, 1u);
  const double replay = (kLayerFwd + kAttnFwd) * kTokens / kRate;
  EXPECT_NEAR(memo.micro_batches[0].seconds.replay, replay, 0.002 * replay);
  const auto same_as_alone = [&](const Scenario& c) {
    const auto tps = training_tokens_per_s(c, engine, profile, counts, memo);
    const auto alone = training_speed(c, engine, profile, counts, why);
    ASSERT_TRUE(tps && alone) << why;
    EXPECT_EQ(*tps, alone->tokens_per_s);
  };
  // ZeRO-3 over four GPUs with 8-bit AdamW, a global batch of four: the same micro-batch on
  // each GPU, four a step.
  Scenario zero = s;
  zero.gpu_count = 4;
  zero.parallel.dp = 4;
  zero.training.zero_stage = 3;
  zero.training.optimizer = Optimizer::kAdamw8bit;
  zero.training.global_batch = 4;
  same_as_alone(zero);
  EXPECT_EQ(memo.micro_batches_held, 1u);
  // The held seconds are what the step reads: one second more of replay is one second more a
  // step (one micro-batch a GPU), 4 x 1,024 tokens over it.
  memo.micro_batches[0].seconds.replay += 1.0;
  std::string alone_why;
  const auto alone = training_speed(zero, engine, profile, counts, alone_why);
  ASSERT_TRUE(alone);
  const auto marked = training_tokens_per_s(zero, engine, profile, counts, memo);
  ASSERT_TRUE(marked);
  EXPECT_NEAR(*marked, 4096.0 / (alone->step_time_s + 1.0), 1e-9 * *marked);
  memo.micro_batches[0].seconds.replay -= 1.0;
  // Fields the stage's work reads: each a new micro-batch, the same figures as without the memo.
  Scenario other = zero;
  other.batch = 2;  // two sequences a micro-batch
  same_as_alone(other);
  EXPECT_EQ(memo.micro_batches_held, 2u);
  other.training.recompute = Recompute::kNone;
  same_as_alone(other);
  EXPECT_EQ(memo.micro_batches_held, 3u);
  other.training.mixed_precision = MixedPrecision::kFp32;  // new rates: fp32 matmuls
  same_as_alone(other);
  EXPECT_EQ(memo.micro_batches_held, 4u);
  other.training.mixed_precision = s.training.mixed_precision;  // the rates made again
  same_as_alone(other);
  EXPECT_EQ(memo.next_micro_batch, 1u);  // four held: the oldest (slot 0) replaced
  same_as_alone(zero);                   // held under the earlier rates only: made again, in slot 1
  EXPECT_EQ(memo.next_micro_batch, 2u);
}

// A search reads only a kept change's tokens per second (its speed factor): training_tokens_per_s
// makes the step's time and no other figure, and gives training_speed's own double through the
// same memo. The pipeline job on the round profile: 8 micro-batches of one 1,024-token sequence,
// 8,192 tokens a step; then steps of other kinds (LoRA, QLoRA's copies, ZeRO-3 with the
// optimizer offloaded) on the shipped profile, and none without a GPU.
TEST(TrainingSpeed, TokensPerSecondAloneAreTheFullStepsFigure) {
  const Catalog& catalog = Catalog::builtin();
  const SpeedProfile profile = round_profile();
  std::string why;
  {
    const Scenario s = four_stages_eight_micro_batches();
    const ModelCounts counts = count_model(s);
    const EngineProfile& engine = engine_profile(s, catalog);
    ModuleSumsMemo memo;
    const auto tps = training_tokens_per_s(s, engine, profile, counts, memo);
    const auto full = training_speed(s, engine, profile, counts, why, &memo);
    ASSERT_TRUE(tps && full) << why;
    EXPECT_EQ(*tps, full->tokens_per_s);
    EXPECT_DOUBLE_EQ(*tps * full->step_time_s, 8192.0);
  }
  ModuleSumsMemo memo;  // one memo for the search's candidates below, as the search's
  for (const nlohmann::json& job :
       {nlohmann::json{{"model", "llama-3.1-8b"}, {"task", "lora"}, {"gpu", "h100"}},
        nlohmann::json{{"model", "llama-3.1-8b"}, {"task", "qlora"}, {"gpu", "h100"}},
        nlohmann::json{{"model", "llama-3.1-8b"},
                       {"task", "full"},
                       {"gpu", "h100"},
                       {"gpu_count", 8},
                       {"training", {{"zero_stage", 3}, {"offload", "optimizer"}}}}}) {
    const Scenario s = parse_scenario(job, catalog);
    const ModelCounts counts = count_model(s);
    const EngineProfile& engine = engine_profile(s, catalog);
    const auto tps = training_tokens_per_s(s, engine, catalog.speed(), counts, memo);
    const auto full = training_speed(s, engine, catalog.speed(), counts, why);
    ASSERT_TRUE(tps && full) << job.dump() << why;
    EXPECT_EQ(*tps, full->tokens_per_s) << job.dump();
  }
  Scenario none = small();
  none.gpu = GpuRef();
  EXPECT_FALSE(
      training_tokens_per_s(none, engine_profile(none, catalog), profile, count_model(none), memo));
}

}  // namespace
}  // namespace gpusizer
