// Speed against hand-checked bounds: the bandwidth roofline, the 6N floor, link ordering.
#include "gpusizer/speed.h"

#include <gtest/gtest.h>

#include "speed/collectives.h"
#include "speed/model_costs.h"
#include "speed/training_speed.h"

namespace gpusizer {
namespace {

Scenario make(const std::string& model, const std::string& gpu, const std::string& weights,
              const std::string& engine = "vllm") {
  const Catalog& cat = Catalog::builtin();
  Scenario s;
  s.model = cat.model(model);
  s.gpu = cat.gpu(gpu);
  s.weights = cat.format(weights, "weights", "weights");
  s.kv_cache = cat.format(weights == "fp16" ? "fp16" : "bf16", "kv", "kv_cache");
  s.engine = engine;
  s.batch = 1;
  s.prompt_len = 128;
  s.output_len = 128;
  s.seq_len = 256;
  return s;
}

PerformanceEstimate run(const Scenario& s) {
  return estimate_speed(s, Catalog::builtin(), MemoryEstimate{}, nullptr);
}

TEST(Speed, DecodeNeverBeatsTheBandwidthRoofline) {
  // Llama-2-7B fp16: 6.74e9 x 2 = 13.48e9 bytes; A100 80GB 2039e9 B/s -> at most 151 tok/s.
  for (const char* engine : {"hf", "vllm", "sglang", "trtllm", "llama.cpp"}) {
    const auto p = run(make("llama-2-7b", "a100-sxm4-80gb", "fp16", engine));
    SCOPED_TRACE(engine);
    ASSERT_TRUE(p.decode_tokens_per_s);
    EXPECT_GT(*p.decode_tokens_per_s, 0);
    EXPECT_LT(*p.decode_tokens_per_s, 2039e9 / 13.48e9);
    EXPECT_NEAR(*p.tpot_ms, 1e3 / *p.decode_tokens_per_s, 1e-9);
  }
}

// Which side of the roofline binds a decode step is a typed figure (the advisor's reasons read it,
// never the basis text). Batch 1 of Llama-2-7B fp16 on an A100 reads 13.5 GB a step, 6.6 ms at
// 2,039 GB/s, against 13.5 GFLOP, 0.04 ms at 312 TFLOPS: bandwidth-bound. 1,024 sequences of
// Llama-3.1-8B bf16 on an H100 at a context of 2 tokens: 1,024 x 2 x 8.03e9 = 1.64e13 FLOP, at
// least 16.6 ms at the 989 TFLOPS peak, against 16.1 GB of weights and 0.3 GB of KV, under 10 ms
// at 3.35 TB/s even at half its bandwidth: compute-bound.
TEST(Speed, DecodeSaysWhichSideOfTheRooflineBinds) {
  const auto one = run(make("llama-2-7b", "a100-sxm4-80gb", "fp16"));
  ASSERT_TRUE(one.decode_bandwidth_bound);
  EXPECT_TRUE(*one.decode_bandwidth_bound);
  Scenario s = make("llama-3.1-8b", "h100-sxm5-80gb", "bf16");
  s.batch = 1024;
  s.prompt_len = 1;
  s.output_len = 2;
  s.seq_len = 3;
  const auto many = run(s);
  ASSERT_TRUE(many.decode_bandwidth_bound);
  EXPECT_FALSE(*many.decode_bandwidth_bound);
}

TEST(Speed, PrefillBelowTheComputeRoofline) {
  Scenario s = make("llama-2-7b", "a100-sxm4-80gb", "fp16", "trtllm");
  s.prompt_len = 2048;
  const auto p = run(s);
  // 2 x 6.48e9 FLOPs per token at 312 TFLOPS: at most 24,000 tokens/s.
  ASSERT_TRUE(p.prefill_tokens_per_s);
  EXPECT_LT(*p.prefill_tokens_per_s, 312e12 / (2 * 6.48e9));
  EXPECT_GT(*p.prefill_tokens_per_s, 0.3 * 312e12 / (2 * 6.48e9));
  // TRT-LLM v0.5 measured 133 ms for this prompt (docs/validation-throughput-sources.md).
  EXPECT_GT(*p.ttft_ms, 133 * 0.6);
  EXPECT_LT(*p.ttft_ms, 133 * 1.6);
}

TEST(Speed, BatchingRaisesAggregateDecode) {
  Scenario s = make("llama-3.1-8b", "h100-sxm5-80gb", "bf16");
  const double one = *run(s).decode_tokens_per_s;
  s.batch = 64;
  const double many = *run(s).decode_tokens_per_s;
  EXPECT_GT(many, 10 * one);
  EXPECT_LT(many, 64 * one);
}

TEST(Speed, QuantizedWeightsDecodeFaster) {
  const double fp16 =
      *run(make("llama-2-7b", "rtx-4090-24gb", "fp16", "llama.cpp")).decode_tokens_per_s;
  const double q4 =
      *run(make("llama-2-7b", "rtx-4090-24gb", "q4_k_m", "llama.cpp")).decode_tokens_per_s;
  EXPECT_GT(q4, 1.5 * fp16);
  EXPECT_LT(q4, 4 * fp16);  // 16 / 4.8 bits is the ceiling
}

TEST(Speed, LlamaCppLayerSplitGivesNoSingleStreamSpeedUp) {
  Scenario s = make("llama-3.1-8b", "rtx-4090-24gb", "q4_k_m", "llama.cpp");
  const double one = *run(s).decode_tokens_per_s;
  s.gpu_count = 4;
  const double four = *run(s).decode_tokens_per_s;
  EXPECT_LE(four, one);
  EXPECT_GT(four, 0.8 * one);
}

TEST(Speed, TensorParallelSpeedsUpDecodeSublinearly) {
  Scenario s = make("llama-2-70b", "a100-sxm4-80gb", "bf16");
  s.parallel.tp = 2;
  s.gpu_count = 2;
  const double tp2 = *run(s).decode_tokens_per_s;
  s.parallel.tp = 8;
  s.gpu_count = 8;
  const double tp8 = *run(s).decode_tokens_per_s;
  EXPECT_GT(tp8, 1.5 * tp2);
  EXPECT_LT(tp8, 4 * tp2);
}

TEST(Speed, MoeDecodeReadsOnlyTheActivatedExperts) {
  EXPECT_NEAR(expected_distinct_experts(8, 2, 1), 2, 1e-12);
  EXPECT_NEAR(expected_distinct_experts(8, 2, 1000), 8, 1e-9);
  const Model& m = Catalog::builtin().model("mixtral-8x7b-v0.1");
  const NumberFormat& bf16 = Catalog::builtin().format("bf16", "weights", "weights");
  const ModelCosts c = model_costs(m, bf16, bf16);
  const ParamCounts p = count_params(m);
  // One token reads about the active weights (12.9B), a big batch all of them (46.7B).
  EXPECT_NEAR(weight_bytes_read(c, 1) / 2, static_cast<double>(p.active - p.embedding), 0.02e9);
  EXPECT_NEAR(weight_bytes_read(c, 4096) / 2, static_cast<double>(p.total - p.embedding), 0.02e9);
}

TEST(Speed, GivenCountMoeReadsItsExpertsApart) {
  // MiniMax-M1-80k's count is given (456B; its lightning blocks are not countable), but its
  // experts are: 80 MoE layers x 32 experts x 3 x 6144 x 9216 = 434,865,438,720 params, i.e.
  // 169,869,312 an expert, 90,243,072 B at mxfp4's 4.25 bits. The rest, 456e9 - 2 x 200,064 x
  // 6144 (embedding and head) - the experts = 18,676,174,848, is read in bf16, and the head too:
  // 2 x (18,676,174,848 + 1,229,193,216) = 39,810,736,128 B a pass besides the experts.
  const Model& m = Catalog::builtin().model("minimax-m1-80k");
  const NumberFormat& mxfp4 = Catalog::builtin().format("mxfp4", "weights", "weights");
  const NumberFormat& bf16 = Catalog::builtin().format("bf16", "kv", "kv_cache");
  const ModelCosts c = model_costs(m, mxfp4, bf16);
  EXPECT_NEAR(c.expert_bytes, 90243072.0, 1.0);
  EXPECT_NEAR(c.dense_weight_bytes, 39810736128.0, 1.0);
  // One token: the dense part and 2 experts in each of the 80 layers (14,438,891,520 B).
  EXPECT_NEAR(weight_bytes_read(c, 1), 39810736128.0 + 160 * 90243072.0, 1e3);
  // Every byte the memory holds (Weights.GivenCountMoeQuantizesItsExpertsOnly): 273,291,386,880.
  EXPECT_NEAR(c.total_weight_bytes, 273291386880.0, 1e3);
}

// The full wave's output rate of `s` when the memory estimate holds `max_batch` sequences.
double max_output(const Scenario& s, int64_t max_batch) {
  MemoryEstimate m;
  m.max_batch = max_batch;
  return *estimate_speed(s, Catalog::builtin(), m, nullptr).max_output_tokens_per_s;
}

TEST(Speed, MaxOutputUsesTheBatchThatFits) {
  const Scenario s = make("llama-3.1-8b", "h100-sxm5-80gb", "fp8", "trtllm");
  EXPECT_GT(max_output(s, 512), 20 * max_output(s, 1));
}

// A setup whose memory holds no sequence (max_batch 0) runs at the batch it asks, as if memory
// sufficed: its changes' speed factors are measured against that (docs/advisor.md). Llama-3.1-8B
// in fp8 on an H100: the full wave of 64 sequences against one reads the same 8 GB of weights a
// decode step for 64 times the tokens, so it runs over 20 times the output rate; a memory
// estimate of max_batch 0 gives that rate at batch 64, not one stream's.
TEST(Speed, MaxOutputOfASetupThatHoldsNoSequenceIsAtTheBatchItAsks) {
  Scenario s = make("llama-3.1-8b", "h100-sxm5-80gb", "fp8", "trtllm");
  const double one = max_output(s, 0);
  s.batch = 64;
  const double asked = max_output(s, 0);
  EXPECT_GT(asked, 20 * one);
  EXPECT_EQ(asked, max_output(s, 64));
}

Scenario training(const std::string& link_gpu, int64_t gpus) {
  Scenario s = make("llama-2-13b", link_gpu, "bf16", "deepspeed");
  s.task = Task::kFull;
  s.seq_len = 2048;
  s.batch = 4;
  s.gpu_count = gpus;
  s.parallel.dp = gpus;
  s.training.zero_stage = 3;
  return s;
}

TEST(Speed, TrainingFlopsAreAtLeastSixN) {
  Scenario s = training("a100-sxm4-80gb", 8);
  const double n = static_cast<double>(count_params(*s.model).active_compute);
  EXPECT_GE(training_flops_per_token(s), 6 * n);
  s.training.recompute = Recompute::kFull;
  EXPECT_GE(training_flops_per_token(s), 8 * n);
  s.task = Task::kLora;
  s.training.recompute = Recompute::kNone;
  s.training.lora_targets = {"all-linear"};
  EXPECT_GE(training_flops_per_token(s), 4 * n);
  EXPECT_LT(training_flops_per_token(s), 6 * n);
}

TEST(Speed, PcieStepNeverFasterThanNvlink) {
  // Same GPU, NVLink vs the PCIe of a board without it: the A100 PCIe has an NVLink bridge, so
  // compare the links directly and then full steps on otherwise equal GPUs.
  const Gpu& a100 = Catalog::builtin().gpu("a100-sxm4-80gb");
  const LinkProfile& lp = Catalog::builtin().speed().links();
  const Link nv = group_link(a100, 8, 8, lp);
  Gpu no_nvlink = a100;
  no_nvlink.nvlink = false;
  no_nvlink.scaleup_gbps_bidir.reset();
  const Link pcie = group_link(no_nvlink, 8, 8, lp);
  EXPECT_GT(nv.bytes_per_s, pcie.bytes_per_s);
  Scenario with = training("a100-sxm4-80gb", 8);
  Scenario without = with;
  without.gpu = no_nvlink;
  const auto a = run(with), b = run(without);
  ASSERT_TRUE(a.step_time_s && b.step_time_s);
  EXPECT_LE(*a.step_time_s, *b.step_time_s);
  // Model FLOPs never exceed the peak: MFU in (0, 1).
  EXPECT_GT(*a.mfu, 0.2);
  EXPECT_LT(*a.mfu, 1.0);
}

TEST(Speed, RingAllReduce) {
  const Link l{100e9, 0, "test"};
  // 2 (n-1)/n x 1 GB over 100 GB/s with n = 4: 15 ms.
  EXPECT_NEAR(allreduce_s(1e9, 4, l), 0.015, 1e-12);
  EXPECT_EQ(allreduce_s(1e9, 1, l), 0);
}

TEST(Speed, CvTrainingFp32VersusAmp) {
  const Catalog& cat = Catalog::builtin();
  Scenario s;
  s.model = cat.model("resnet-50");
  s.task = Task::kCvTrain;
  s.gpu = cat.gpu("a10-24gb");
  s.weights = cat.format("fp32", "weights", "weights");
  s.kv_cache = s.weights;
  s.batch = 64;
  s.image_size = 224;
  s.dataset_items = 1281167;
  s.epochs = 1;
  s.training.mixed_precision = MixedPrecision::kFp32;
  const auto fp32 = run(s);
  s.training.mixed_precision = MixedPrecision::kBf16;
  const auto amp = run(s);
  ASSERT_TRUE(fp32.train_tokens_per_s && amp.train_tokens_per_s && amp.time_to_train_s);
  EXPECT_GT(*amp.train_tokens_per_s, *fp32.train_tokens_per_s);
  EXPECT_NEAR(*amp.time_to_train_s, 1281167 / *amp.train_tokens_per_s, 1e-6);
}

TEST(Speed, LlamaCppMatVecBandwidthCeiling) {
  // Little's law ceiling (data/speed.json llama.cpp bw_cap_gbps ~1 TB/s): an A100 (2039 GB/s)
  // decodes Llama 3 8B F16 at about the speed of an RTX 4090 (1008 GB/s), as the XiongjieDai
  // llama-bench rows show (53 vs 54 tok/s), not twice as fast.
  const auto a100 = run(make("llama-3.1-8b", "a100-sxm4-80gb", "fp16", "llama.cpp"));
  const auto rtx = run(make("llama-3.1-8b", "rtx-4090-24gb", "fp16", "llama.cpp"));
  ASSERT_TRUE(a100.decode_tokens_per_s && rtx.decode_tokens_per_s);
  EXPECT_LT(*a100.decode_tokens_per_s / *rtx.decode_tokens_per_s, 1.3);
  // vLLM has no such ceiling: it keeps the A100's bandwidth advantage.
  const auto v100 = run(make("llama-3.1-8b", "a100-sxm4-80gb", "fp16"));
  const auto v4090 = run(make("llama-3.1-8b", "rtx-4090-24gb", "fp16"));
  EXPECT_GT(*v100.decode_tokens_per_s / *v4090.decode_tokens_per_s, 1.5);
}

TEST(Speed, LlamaCppPrefillUsesTheFp16AccumulateRateOnGeForce) {
  // llama.cpp's cuBLAS GEMMs accumulate in fp16: the RTX 4090 runs them at 330 TFLOPS, twice the
  // 165 TFLOPS (fp32 accumulate) gpus.csv stores, so its prompt processing beats the L40S'
  // 362 TFLOPS only through that factor (measured 7139 vs 6035 tok/s, Q4_K_M pp512).
  Scenario rtx = make("llama-3.1-8b", "rtx-4090-24gb", "q4_k_m", "llama.cpp");
  rtx.prompt_len = 512;
  rtx.output_len = 1;
  Scenario l40s = rtx;
  l40s.gpu = Catalog::builtin().gpu("l40s-48gb");
  const auto a = run(rtx), b = run(l40s);
  ASSERT_TRUE(a.prefill_tokens_per_s && b.prefill_tokens_per_s);
  EXPECT_GT(*a.prefill_tokens_per_s, 0.9 * *b.prefill_tokens_per_s);
  // 2 x 8e9 FLOPs per token at 330 TFLOPS bounds it from above.
  EXPECT_LT(*a.prefill_tokens_per_s, 330e12 / (2 * 7.5e9));
}

TEST(Speed, TrainingLosesMoreToElementwiseKernelsOnH100) {
  // The bandwidth-bound non-GEMM share grows with FLOPs per byte (H100 295, A100 153): the
  // H100 / A100 speed-up stays below the 3.2x ratio of their dense rates (llm-foundry MPT-7B:
  // 10640 vs 4641 tokens/s/GPU, 2.3x).
  Scenario h = make("llama-2-7b", "h100-sxm5-80gb", "bf16", "fsdp");
  h.task = Task::kPretrain;
  h.seq_len = 2048;
  h.batch = 4;
  h.gpu_count = 8;
  h.parallel.dp = 8;
  h.training.zero_stage = 3;
  Scenario a = h;
  a.gpu = Catalog::builtin().gpu("a100-sxm4-80gb");
  const auto ph = run(h), pa = run(a);
  ASSERT_TRUE(ph.train_tokens_per_s_per_gpu && pa.train_tokens_per_s_per_gpu);
  const double ratio = *ph.train_tokens_per_s_per_gpu / *pa.train_tokens_per_s_per_gpu;
  EXPECT_GT(ratio, 1.8);
  EXPECT_LT(ratio, 3.0);
}

}  // namespace
}  // namespace gpusizer
