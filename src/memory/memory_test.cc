// Memory estimator against hand-checked figures (each derivation in the comment beside it).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "embed/embedded.h"
#include "gpusizer/estimate.h"
#include "gpusizer/explanations.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/scenario.h"
#include "memory/memory_parts.h"
#include "memory/model_counts.h"

namespace gpusizer {
namespace {

nlohmann::json run(nlohmann::json scenario) {
  return estimate_json(scenario);
}

int64_t mem(const nlohmann::json& out, const char* key) {
  return out["memory"][key].get<int64_t>();
}

TEST(Weights, Llama2_7bInBf16IsTwoBytesPerParameter) {
  // 6,738,415,616 parameters x 2 bytes.
  EXPECT_EQ(mem(run({{"model", "llama-2-7b"}}), "weights_bytes"), 13476831232);
}

TEST(Weights, TensorParallelDividesWeights) {
  const auto one = mem(run({{"model", "llama-2-70b"}}), "weights_bytes");
  const auto four =
      mem(run({{"model", "llama-2-70b"}, {"parallel", {{"tp", 4}}}}), "weights_bytes");
  EXPECT_NEAR(static_cast<double>(four), static_cast<double>(one) / 4, 1.0);
}

TEST(Weights, Nf4KeepsEmbeddingsInBf16) {
  // Llama-2-7B: 2 x 32000 x 4096 embedding+head params in bf16 = 524,288,000 B; the other
  // 6,476,271,616 - 2 x 65 x 4096 norm params (532,480) are matrices at 4.127 bits.
  const double matrices = 6738415616.0 - 2 * 32000 * 4096.0 - (2 * 32 + 1) * 4096.0;
  const double expected = matrices * 4.127 / 8 + 2 * 32000 * 4096.0 * 2 + (2 * 32 + 1) * 4096.0 * 2;
  EXPECT_NEAR(
      static_cast<double>(mem(run({{"model", "llama-2-7b"}, {"weights", "nf4"}}), "weights_bytes")),
      expected, 1.0);
}

TEST(Weights, Mxfp4QuantizesOnlyTheRoutedExperts) {
  // gpt-oss-120b as its checkpoint stores it (config.json modules_to_not_convert: self_attn,
  // router, embed_tokens, lm_head) and vLLM loads it (mxfp4.py: Linear layers unquantized):
  // experts 36 x 128 x (2880 x 5760 + 2880 x 2880) = 114,661,785,600 x 4.25 bits
  //   = 60,914,073,600 B;
  // attention 36 x (2 x 2880 x 4096 + 2 x 2880 x 512) = 955,514,880 x 2 B = 1,911,029,760 B;
  // embedding + head 2 x 201,088 x 2880 x 2 B = 2,316,533,760 B;
  // router 36 x 2880 x 128 x 2 B = 26,542,080 B;
  // norms, biases and sinks 40,318,272 x 2 B = 80,636,544 B (the 39.8M expert biases are the
  // tolerance: 4.25 bits or 2 bytes, 58 MB apart). Sum 65,248,815,744 B (116.83B params, the
  // model card's count); with the attention in mxfp4 it would be 1.40 GB less.
  const auto out = run({{"model", "gpt-oss-120b"}, {"weights", "mxfp4"}, {"engine", "vllm"}});
  EXPECT_NEAR(static_cast<double>(mem(out, "weights_bytes")), 65248815744.0, 1e8);
}

TEST(Weights, Mxfp4QuantizesEveryMatrixOfADenseModel) {
  // Llama-3.1-8B (8,030,261,248 params; untied embedding and head 2 x 128,256 x 4096 =
  // 1,050,673,152 in bf16; norms 65 x 4096 = 266,240 in bf16): the 6,979,321,856 matrix
  // parameters take 4.25 bits, 3,707,764,736 B, as a dense model has no experts to keep the
  // format for. Sum 5,809,643,520 B (in bf16 throughout it would be 16.06 GB).
  const auto out = run({{"model", "llama-3.1-8b"}, {"weights", "mxfp4"}});
  EXPECT_NEAR(static_cast<double>(mem(out, "weights_bytes")), 5809643520.0, 1e6);
  // A count given without the architecture is a dense model too, of the Llama shape the stand-in
  // assumes (model_from_param_count: 43 layers = round(cbrt(16e9 / (12 x 128 x 128))), hidden
  // 43 x 128 = 5504, vocabulary 32,000, head untied): embedding and head 2 x 32,000 x 5504 =
  // 352,256,000 params in bf16 = 704,512,000 B, the other 15,647,744,000 at 4.25 bits =
  // 8,312,864,000 B. Sum 9,017,376,000 B (32 GB in bf16).
  const auto given = run({{"model", {{"params", 16e9}}}, {"weights", "mxfp4"}});
  EXPECT_EQ(mem(given, "weights_bytes"), 9017376000);
}

TEST(Weights, GivenCountMoeQuantizesItsExpertsOnly) {
  // MiniMax-M1-80k: 456B given, its experts counted from the config (80 x 32 x 3 x 6144 x 9216
  // = 434,865,438,720) at 4.25 bits = 231,022,264,320 B; embedding and head 2 x 200,064 x 6144
  // in bf16 = 4,916,772,864 B; the other 18,676,174,848 (attention, norms, routers) in bf16 =
  // 37,352,349,696 B. Sum 273,291,386,880 B (912 GB in bf16; before the split every byte of the
  // given count took bf16 under mxfp4).
  const auto out = run({{"model", "minimax-m1-80k"}, {"weights", "mxfp4"}});
  EXPECT_EQ(mem(out, "weights_bytes"), 273291386880);
  // int4 (4.125 bits, groups of 128): the experts and the rest at 4.125 bits, embedding and
  // head in bf16: (434,865,438,720 + 18,676,174,848) x 4.125 / 8 + 4,916,772,864.
  const auto int4 = run({{"model", "minimax-m1-80k"}, {"weights", "int4"}});
  EXPECT_NEAR(static_cast<double>(mem(int4, "weights_bytes")),
              453541613568.0 * 4.125 / 8 + 4916772864.0, 1.0);
}

TEST(KvCache, Llama2_7bIs512KiBPerTokenInBf16) {
  // 2 (K,V) x 32 layers x 32 heads x 128 dims x 2 bytes = 524,288.
  const auto out = run({{"model", "llama-2-7b"}, {"engine", "vllm"}});
  EXPECT_EQ(mem(out, "kv_cache_bytes_per_token"), 524288);
}

TEST(KvCache, DeepSeekV3MlaLatentIs70272BytesPerToken) {
  // 61 layers x (kv_lora_rank 512 + rope 64) x 2 bytes = 70,272 (vLLM/SGLang MLA cache).
  const auto out = run({{"model", "deepseek-v3"}, {"engine", "vllm"}});
  EXPECT_EQ(mem(out, "kv_cache_bytes_per_token"), 70272);
}

TEST(KvCache, Fp8HalvesAndGqaShrinks) {
  // Llama-3.1-8B: 2 x 32 x 8 kv heads x 128 x 1 byte = 65,536 per token in fp8.
  const auto out = run({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"kv_cache", "fp8"}});
  EXPECT_EQ(mem(out, "kv_cache_bytes_per_token"), 65536);
}

TEST(KvCache, HfBlogTableLlama31_8bAt1kTokensIs128MiB) {
  // HF blog "Llama 3.1" KV table (EST rows): 8B, 1k tokens, 16-bit = 0.125 GB.
  Scenario s = parse_scenario({{"model", "llama-3.1-8b"}}, Catalog::builtin());
  EXPECT_DOUBLE_EQ(memory::kv_cache(s, Catalog::builtin(), 1, 1024, nullptr), 128.0 * 1024 * 1024);
}

TEST(KvCache, SlidingWindowLayersStopGrowing) {
  // Gemma-3-4B: 5 global layers grow with context; 29 local layers keep 1024 tokens.
  Scenario s = parse_scenario({{"model", "gemma-3-4b"}}, Catalog::builtin());
  const double per_layer_token = 2.0 * 4 * 256 * 2;  // kv heads 4 x head_dim 256 x bf16
  EXPECT_DOUBLE_EQ(memory::kv_cache(s, Catalog::builtin(), 1, 8192, nullptr),
                   per_layer_token * (5 * 8192.0 + 29 * 1024.0));
}

TEST(KvCache, TensorParallelBeyondKvHeadsReplicates) {
  // Llama-3.1-8B has 8 KV heads: at tp=16 each rank still holds one head.
  Scenario s =
      parse_scenario({{"model", "llama-3.1-8b"}, {"parallel", {{"tp", 16}}}}, Catalog::builtin());
  EXPECT_DOUBLE_EQ(memory::kv_cache(s, Catalog::builtin(), 1, 1, nullptr), 2.0 * 32 * 1 * 128 * 2);
}

// A part called directly: with a sink it writes its formula under its own output key, with none
// it gives the same bytes (the numbers-only path builds no text). Llama-2-7B in fp16:
// 6,738,415,616 params x 2 bytes = 13,476,831,232.
TEST(MemoryParts, NullSinkGivesTheSameBytes) {
  const Catalog& cat = Catalog::builtin();
  const Scenario s = parse_scenario({{"model", "llama-2-7b"}, {"weights", "fp16"}}, cat);
  Explanations why;
  EXPECT_DOUBLE_EQ(memory::weights(s, cat, memory::engine_rules(s, cat), count_model(s), &why),
                   13476831232.0);
  EXPECT_DOUBLE_EQ(memory::weights(s, cat, memory::engine_rules(s, cat), count_model(s), nullptr),
                   13476831232.0);
  ASSERT_EQ(why.basis.size(), 1u);
  EXPECT_EQ(why.basis.at("weights_bytes").rfind("params x 16 bits (fp16: ", 0), 0u);
  // Inference keeps no gradients: 0 bytes either way, and the basis says so under its own key.
  EXPECT_EQ(memory::gradients(s, cat, memory::engine_rules(s, cat), count_model(s), nullptr), 0.0);
  EXPECT_EQ(memory::gradients(s, cat, memory::engine_rules(s, cat), count_model(s), &why), 0.0);
  EXPECT_EQ(why.basis.at("gradients_bytes"), "inference keeps no gradients");
  EXPECT_EQ(why.basis.size(), 2u);
  EXPECT_TRUE(why.warnings.empty());
}

TEST(Training, AdamWKeepsEightBytesPerTrainableParameter) {
  const auto out = run({{"model", "llama-2-7b"}, {"task", "full"}});
  // exp_avg and exp_avg_sq in fp32: 8 B. The peak is the foreach step, which adds one fp32
  // second moment (torch._foreach_sqrt(exp_avg_sqs)): 4 B more, 12 B in the figure.
  EXPECT_EQ(std::string(out["memory"]["peak_phase"]),
            "optimizer step (activations freed, gradients held)");
  EXPECT_EQ(mem(out, "optimizer_bytes"), (8 + 4) * 6738415616LL);
  EXPECT_EQ(mem(out, "master_weights_bytes"), 4 * 6738415616LL);
  // Freed before each forward, the gradients exist at the end of backward.
  EXPECT_EQ(mem(out, "gradients_full_bytes"), 2 * 6738415616LL);
}

TEST(Training, GradientsAndActivationsCoexistOnlyWithPersistentBuffers) {
  // Single GPU, no accumulation: the peak is at the loss, with no gradient alive yet.
  const auto single =
      run({{"model", "llama-3.2-3b"}, {"task", "full"}, {"batch", 2}, {"seq_len", 4096}});
  EXPECT_EQ(mem(single, "gradients_bytes"), 0);
  // Accumulating micro-batches keeps them through the next forward.
  const auto accum = run({{"model", "llama-3.2-3b"},
                          {"task", "full"},
                          {"batch", 2},
                          {"seq_len", 4096},
                          {"training", {{"grad_accum", 4}}}});
  EXPECT_EQ(mem(accum, "gradients_bytes"), 2 * 3212749824LL);
}

TEST(Training, PureBf16AdamStatesAreBf16) {
  // PEFT method comparison: 3.21B x (2 w + 2 g + 4 Adam bf16) = 23.9 GiB of model states. Its
  // batch (4 x 768 tokens) puts the peak at the loss, so the figure holds the states alone.
  const auto out = run({{"model", "llama-3.2-3b"},
                        {"task", "full"},
                        {"batch", 4},
                        {"seq_len", 768},
                        {"training", {{"mixed_precision", "pure-bf16"}}}});
  const double states = static_cast<double>(
      mem(out, "weights_bytes") + mem(out, "gradients_full_bytes") + mem(out, "optimizer_bytes"));
  EXPECT_NEAR(states / (1024.0 * 1024 * 1024), 23.9, 0.1);
}

TEST(Training, LoraRank8OnAllLinearOfLlama2_7b) {
  // 32 layers x r 8 x [(4096+4096) x 4 attention + (4096+11008) x 3 MLP] = 19,988,480 params;
  // AdamW fp32 states 8 B each.
  const auto out = run({{"model", "llama-2-7b"}, {"task", "lora"}});
  EXPECT_EQ(mem(out, "optimizer_bytes"), 19988480LL * 8);
  EXPECT_EQ(mem(out, "gradients_full_bytes"), 19988480LL * 4);
}

TEST(Training, ZeroStagesShardStatesOverDataParallelRanks) {
  nlohmann::json base = {{"model", "llama-2-7b"}, {"task", "full"}, {"gpu_count", 4}};
  base["training"]["zero_stage"] = 1;
  const auto z1 = run(base);
  base["training"]["zero_stage"] = 2;
  const auto z2 = run(base);
  EXPECT_EQ(mem(z1, "optimizer_bytes"), 2 * 6738415616LL);  // 8 B / 4 ranks
  EXPECT_EQ(mem(z1, "gradients_bytes"), 2 * 6738415616LL);  // not sharded at stage 1
  EXPECT_EQ(mem(z2, "gradients_bytes"), 6738415616LL / 2);  // 2 B / 4 ranks
}

TEST(Zero3, DeepSpeedOffloadHoldsTheLiveWindowPlusTheLargestParameter) {
  // Llama-2-7B LoRA (bf16, r 8 all-linear), DeepSpeed ZeRO-3 with parameters and optimizer on the
  // host, one GPU; DeepSpeed's defaults (data/engines.json): max_live 1e9, reuse distance 1e9,
  // prefetch bucket 5e7, persistence 1e5, reduce bucket 5e8 elements.
  // - streaming: the prefetch fills to max_live, 1e9 x 2 B = 2,000,000,000, and the parameter
  //   that crosses it can be the largest, the 32000 x 4096 embedding or head: 262,144,000 B;
  //   together 2,262,144,000 B.
  // - the turn: head 262,144,000 + the modules within the reuse distance (2 x the bytes after a
  //   module < 2e9 B): 7 + 6 matrices of the last two layers, 742,391,808 B, + the module in use
  //   (4096 x 11008 x 2 = 90,177,536): 1,094,713,344 B, less than the streaming set.
  // - resident on the GPU: 65 norms x 4096 x 2 B = 532,480 and the fp32 adapters
  //   19,988,480 x 4 = 79,953,920: 80,486,400 B.
  // Weights 2,262,144,000 + 80,486,400 = 2,342,630,400 B. Gradients: the adapters' 79,953,920 B
  // + the reduce bucket 5e8 x 2 B = 1,079,953,920 B.
  const auto out = run({{"model", "llama-2-7b"},
                        {"task", "lora"},
                        {"engine", "deepspeed"},
                        {"training", {{"zero_stage", 3}, {"offload", "optimizer+params"}}}});
  EXPECT_EQ(mem(out, "weights_bytes"), 2342630400LL);
  EXPECT_EQ(mem(out, "gradients_bytes"), 1079953920LL);
}

TEST(Zero3, DeepSpeedGathersOnTopOfTheShardOnlyAcrossRanks) {
  nlohmann::json base = {
      {"model", "llama-2-7b"}, {"task", "full"}, {"engine", "deepspeed"}, {"gpu_count", 1}};
  base["training"]["zero_stage"] = 3;
  // One rank: a parameter is gathered as a view of its own partition: 6,738,415,616 x 2 B.
  EXPECT_EQ(mem(run(base), "weights_bytes"), 13476831232LL);
  // Four ranks: the 1/4 shard 3,369,207,808 + the gathered set 2,262,144,000 (above).
  base["gpu_count"] = 4;
  EXPECT_EQ(mem(run(base), "weights_bytes"), 3369207808LL + 2262144000LL);
  // FSDP keeps its rule: the shard + 2 layers of (6,738,415,616 - 2 x 131,072,000) x 2 B / 32.
  base["engine"] = "fsdp";
  EXPECT_EQ(mem(run(base), "weights_bytes"), 3369207808LL + 809533952LL);
}

TEST(Training, CheckpointingSavesActivationMemory) {
  nlohmann::json base = {{"model", "llama-2-7b"}, {"task", "full"}, {"batch", 4}};
  const auto off = run(base);
  base["training"]["gradient_checkpointing"] = true;
  const auto on = run(base);
  EXPECT_LT(mem(on, "activations_bytes"), mem(off, "activations_bytes") / 3);
}

TEST(Capacity, UsableMemoryFollowsMeasuredFigures) {
  const Catalog& c = Catalog::builtin();
  // A100 80GB: 79.15 GiB visible to PyTorch (gpus-catalog-notes.md sec. 9).
  EXPECT_NEAR(memory::usable_capacity(c.gpu("a100-sxm4-80gb"), c) / (1 << 30), 79.15, 0.02);
  // A10 (GDDR6, ECC on): 22.5 GiB = 23,028 MiB in nvidia-smi.
  EXPECT_NEAR(memory::usable_capacity(c.gpu("a10-24gb"), c) / (1 << 30), 22.26, 0.3);
}

TEST(Capacity, GeforceCardsShowCudaLessOfTheirMemory) {
  const Catalog& c = Catalog::builtin();
  // 24 GiB x (1 - 0.0186) = 23.554 GiB, against 23.58 in vLLM's logs of an RTX 3090 (vLLM issue
  // #10517) and 32 x 0.9814 = 31.405 against 31.37 for an RTX 5090 (vLLM issue #14452).
  EXPECT_NEAR(memory::usable_capacity(c.gpu("rtx-3090-24gb"), c) / (1 << 30), 23.554, 0.001);
  EXPECT_NEAR(memory::usable_capacity(c.gpu("rtx-5090-32gb"), c) / (1 << 30), 31.405, 0.001);
  // AMD's RX 7900 XTX keeps the datacenter figure: 24 x (1 - 0.0106) = 23.746 (23.98 under ROCm).
  EXPECT_NEAR(memory::usable_capacity(c.gpu("rx-7900-xtx-24gb"), c) / (1 << 30), 23.746, 0.001);
}

TEST(Preallocating, VllmKvPoolIsWhatTheBudgetLeaves) {
  // VLLM-004 (vLLM 0.6.5): 0.9 x 79.22 GiB - 14.96 weights - 1.79 non-torch - 1.26 activations
  // = 53.29 GiB on an H100 for Llama-3-8B; our parts differ by their own errors but the identity
  // holds, with the CUDA graphs (0.21 GiB = 225,485,783 B) held beyond the budget.
  const auto out = run({{"model", "llama-3.1-8b"},
                        {"engine", "vllm"},
                        {"engine_version", "0.6.5"},
                        {"gpu", "h100-sxm5-80gb"},
                        {"seq_len", 8192}});
  const auto& m = out["memory"];
  const int64_t parts = m["weights_bytes"].get<int64_t>() + m["activations_bytes"].get<int64_t>() +
                        m["overhead_bytes"].get<int64_t>() + m["kv_cache_bytes"].get<int64_t>();
  EXPECT_NEAR(static_cast<double>(parts) + 225485783.0,
              static_cast<double>(m["total_bytes"].get<int64_t>()), 4.0);
  EXPECT_NEAR(m["kv_cache_bytes"].get<double>() / (1 << 30), 53.29, 1.0);
  EXPECT_EQ(m["kv_cache_capacity_tokens"].get<int64_t>(),
            m["kv_cache_bytes"].get<int64_t>() / 131072);
}

TEST(Training, ANaivePipelineHoldsOneMicroBatchInFlight) {
  // 1F1B keeps min(pp, micro-batches) micro-batches' activations on the first stage
  // (Korthikanti et al. 2022 sec. 4.2.3); a naive pipeline (engines.json naive_pipeline,
  // accelerate's device_map) runs one micro-batch at a time. The same Megatron job with the
  // flag set therefore holds, with 4 micro-batches over 2 stages, what the scheduled run holds
  // with one micro-batch.
  std::string engines(embedded::find("engines.json"));
  nlohmann::json doc = nlohmann::json::parse(engines);
  doc["megatron"]["naive_pipeline"] = true;
  const Catalog naive = Catalog::from_texts({{"engines.json", doc.dump()}});
  const Catalog& scheduled = Catalog::builtin();
  nlohmann::json job = {{"model", "llama-2-7b"},
                        {"engine", "megatron"},
                        {"gpu", "a100-sxm4-80gb"},
                        {"gpu_count", 2},
                        {"task", "full"},
                        {"seq_len", 1024},
                        {"batch", 1},
                        {"parallel", {{"pp", 2}}},
                        {"training", {{"global_batch", 4}}}};
  auto activations = [&](const nlohmann::json& j, const Catalog& c) {
    return estimate(parse_scenario(j, c), c, Detail::kFigures).memory.activations;
  };
  const double four_naive = activations(job, naive);
  const double four_scheduled = activations(job, scheduled);
  job["training"]["global_batch"] = 1;
  const double one_scheduled = activations(job, scheduled);
  EXPECT_DOUBLE_EQ(four_naive, one_scheduled);
  EXPECT_GT(four_scheduled, four_naive * 1.2);
}

// Llama-3.1-8B LoRA, 1 x 1,024 tokens, bf16 AMP, no recomputation, with the given targets.
double lora_activations(std::vector<std::string> targets) {
  const Catalog& cat = Catalog::builtin();
  Scenario s = parse_scenario({{"model", "llama-3.1-8b"}, {"task", "lora"}}, cat);
  s.batch = 1;
  s.seq_len = 1024;
  s.training.mixed_precision = MixedPrecision::kBf16;
  s.training.recompute = Recompute::kNone;
  s.training.lora_rank = 16;
  s.training.lora_targets = std::move(targets);
  return memory::activations(s, cat, nullptr);
}

// QLoRA keeps one dequantized 16-bit weight, the largest linear matrix, read from the modules the
// estimate counted when they are given (ModelCounts::modules) and listed otherwise: Llama-3.1-8B's
// MLP matrices, 4,096 x 14,336 x 2 B = 117,440,512 B; a list of one 1,000 x 1,000 matrix gives
// 2,000,000 B in their place.
TEST(Activations, QloraDequantizedCopyFromTheCountedModules) {
  const Catalog& cat = Catalog::builtin();
  const Scenario s = parse_scenario({{"model", "llama-3.1-8b"}, {"task", "qlora"}}, cat);
  const memory::EngineRules rules = memory::engine_rules(s, cat);
  const ModelCounts counts = count_model(s);
  const double listed = memory::activations(s, rules, nullptr);
  EXPECT_EQ(memory::activations(s, rules, nullptr, 0, &counts.modules), listed);
  LinearModules one;
  one.push_back({"proj", 1000, 1000, 1, false, false});
  EXPECT_NEAR(memory::activations(s, rules, nullptr, 0, &one) - listed, 2'000'000.0 - 117'440'512.0,
              1.0);
}

TEST(Activations, EachLoraTargetSavesItsInputAndRankOutput) {
  // An adapter on v_proj saves its input in 16 bits under AMP (PEFT autocast) and its rank-r
  // output in fp32: 2 x 4,096 + 4 x 16 = 8,256 B per token per layer, x 32 layers x 1,024 tokens
  // = 270,532,608 B.
  EXPECT_NEAR(lora_activations({"q_proj", "v_proj"}) - lora_activations({"q_proj"}), 270532608.0,
              1.0);
  // "all-linear" selects the seven projections of a Llama layer, no more and no fewer.
  EXPECT_EQ(lora_activations({"all-linear"}),
            lora_activations(
                {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}));
  // A target matches a module whose name ends with it (PEFT): "experts.gate_proj" names no
  // module of a dense model, so it adds nothing.
  EXPECT_EQ(lora_activations({"q_proj", "experts.gate_proj"}), lora_activations({"q_proj"}));
}

}  // namespace
}  // namespace gpusizer
