// GGUF weights on a GPU without FP16 tensor cores (set_int8_dot_kernels, inference_speed.cc):
// llama.cpp's MMVQ and MMQ kernels at the DP4A int8 rate, mat-vec passes bound by their bytes.
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "speed/inference_speed.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

InferenceSetup setup(const char* gpu, const char* weights) {
  Scenario sc = unit_scenario({.model = "llama-2-7b",
                               .weights = weights,
                               .kv_cache = "fp16",
                               .engine = "llama.cpp",
                               .gpu = gpu});
  sc.training.flash_attention = false;  // llama-bench's default -fa 0
  std::string why;
  auto s = inference_setup(sc, Catalog::builtin().speed(), why);
  EXPECT_TRUE(s) << why;
  return s ? *s : InferenceSetup{};
}

// Llama 2 7B in q4_0 with the q6_k head llama.cpp keeps (data/formats.csv): 32 layers x
// (4 x 4096^2 + 3 x 4096 x 11008) = 6,476,005,376 weights at 18 B per 32 (4.5 bits):
// 3,642,753,024 B; head 32000 x 4096 x 6.5625 / 8 = 107,520,000 B; norms (2 x 32 + 1) x 4096
// in 16 bits = 532,480 B. Together 3,750,805,504 B a step reads.
constexpr double kQ40WeightBytes = 3750805504.0;

// The Tesla P40 (346 GB/s, no FP16 tensor rate, INT8 47 TOPS by DP4A): one decode step of one
// sequence reads the weights at 346 GB/s x llama.cpp's bw_eff, about 12.5 ms, while the
// 2 x (6,476,005,376 + 131,072,000 head) = 13.2 GFLOP of the mat-vec at the DP4A rate take
// under 1 ms: the step is bound by its bytes, as MMVQ is. (At FP32 x eff(1) it came out
// compute-bound at 24.4 ms, the bug of issue 14.) llama-bench measures tg128 56.3 t/s
// (llama.cpp PR #4766): 17.8 ms a token.
TEST(Int8DotKernels, P40BatchOneDecodeIsBoundByTheWeightBytes) {
  const InferenceSetup s = setup("tesla-p40-24gb", "q4_0");
  EXPECT_DOUBLE_EQ(s.gemm_peak_flops, 47.0e12);
  EXPECT_DOUBLE_EQ(s.matvec_max_tokens, 8.0);
  EXPECT_DOUBLE_EQ(s.peak_flops, 11.8e12);  // attention stays at the FP32 rate
  EXPECT_NEAR(s.costs.dense_weight_bytes, kQ40WeightBytes, 1.0);
  const PassTime p = decode_step(s, 1, 1).pass;
  const double bw = 346e9 * s.engine.bw_eff;  // NVIDIA bw_scale 1, gguf bw_scale 1
  EXPECT_NEAR(p.memory_s, kQ40WeightBytes / bw, 1e-9);
  EXPECT_NEAR(p.memory_s, 12.49e-3, 0.05e-3);  // bw_eff 0.868 of data/speed.json
  EXPECT_LT(p.compute_s, 1e-3);
  EXPECT_DOUBLE_EQ(p.gemm_s(), p.memory_s);
  // Fixed terms: llama.cpp's per-step overhead, no per-layer term, no all-reduce at one GPU.
  EXPECT_DOUBLE_EQ(p.overhead_s, s.engine.step_overhead_s);
  EXPECT_DOUBLE_EQ(p.comm_s, 0.0);
  // Up to MMVQ's batch of 8 the mat-vec stays bound by the bytes it reads.
  EXPECT_DOUBLE_EQ(decode_step(s, 8, 1).pass.gemm_s(), decode_step(s, 8, 1).pass.memory_s);
}

// Prompt processing of 512 tokens (llama-bench pp512, one ubatch) runs MMQ at the DP4A rate:
// 47 TOPS x eff(512) x the gguf dequantization scale, combined harmonically with the engine's
// kernel ceiling, for 512 x 2 x (layers' 6,476,005,376 + head 131,072,000 + norms 266,240)
// FLOPs (the model's count takes every weight a token touches once, the norms included).
TEST(Int8DotKernels, P40PromptProcessingRunsAtTheDp4aRate) {
  const InferenceSetup s = setup("tesla-p40-24gb", "q4_0");
  const double flops = 512.0 * 2.0 * (6476005376.0 + 131072000.0 + 266240.0);
  const InferenceProfile& e = s.engine;
  double rate = 47.0e12 * e.compute_eff_max * 512.0 / (512.0 + e.compute_k_tokens) *
                s.kernel.compute_scale * s.matmul_scale;
  rate = 1.0 / (1.0 / rate + 1.0 / e.compute_cap_flops);
  const PassTime p = prefill_time(s, 1, 512).pass;
  EXPECT_NEAR(p.compute_s, flops / rate, 1e-9);
  EXPECT_GT(p.compute_s, p.memory_s);
}

// F16 weights on the P40 go through cuBLAS in FP32 (no fast FP16 at compute capability 6.1):
// the FP32 rate, no DP4A. Tensor-core GPUs keep their tensor rate for GGUF weights.
TEST(Int8DotKernels, OnlyGgufWeightsOnGpusWithoutFp16TensorCores) {
  const InferenceSetup f16 = setup("tesla-p40-24gb", "fp16");
  EXPECT_DOUBLE_EQ(f16.gemm_peak_flops, 0.0);
  EXPECT_DOUBLE_EQ(f16.peak_flops, 11.8e12);
  const InferenceSetup a100 = setup("a100-pcie-80gb", "q4_0");
  EXPECT_DOUBLE_EQ(a100.gemm_peak_flops, 0.0);
  EXPECT_DOUBLE_EQ(a100.matvec_max_tokens, 0.0);
}

}  // namespace
}  // namespace gpusizer
