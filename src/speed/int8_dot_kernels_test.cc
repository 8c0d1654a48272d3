// GGUF weights on a GPU without FP16 tensor cores (set_int8_dot_kernels, inference_speed.cc):
// llama.cpp's MMVQ and MMQ kernels at the DP4A int8 rate, bound by their own work per weight
// (data/formats.csv dp4a_*) or, for the mat-vec passes, by their weight bytes.
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
// sequence reads the weights at 346 GB/s x llama.cpp's bw_eff, about 12.5 ms, while MMVQ's
// 2.5625 cycles a q4_0 weight (below) make the 2 x (6,476,005,376 + 131,072,000 head + 266,240
// norms) = 13.2 GFLOP of the mat-vec run at 47e12 / (4 x 2.5625) = 4.59 TFLOP/s x compute_eff_max
// 0.686 = 3.15 TFLOP/s (3.12 with the engine's 441 TFLOP/s ceiling), 4.23 ms: the step is bound
// by its bytes, as MMVQ is. (At FP32 x eff(1)
// it came out compute-bound at 24.4 ms, the bug of issue 14.) llama-bench measures tg128 56.3 t/s
// (llama.cpp PR #4766): 17.8 ms a token.
TEST(Int8DotKernels, P40BatchOneDecodeIsBoundByTheWeightBytes) {
  const InferenceSetup s = setup("tesla-p40-24gb", "q4_0");
  EXPECT_DOUBLE_EQ(s.matvec_max_tokens, 8.0);
  EXPECT_DOUBLE_EQ(s.peak_flops, 11.8e12);  // attention stays at the FP32 rate
  EXPECT_NEAR(s.costs.dense_weight_bytes, kQ40WeightBytes, 1.0);
  const PassTime p = decode_step(s, 1, 1).pass;
  const double bw = 346e9 * s.engine.bw_eff;  // NVIDIA bw_scale 1, gguf bw_scale 1
  EXPECT_NEAR(p.memory_s, kQ40WeightBytes / bw, 1e-9);
  EXPECT_NEAR(p.memory_s, 12.49e-3, 0.05e-3);  // bw_eff 0.868 of data/speed.json
  EXPECT_NEAR(p.compute_s, 4.23e-3, 0.02e-3);
  EXPECT_DOUBLE_EQ(p.gemm_s(), p.memory_s);
  // Fixed terms: llama.cpp's per-step overhead, no per-layer term, no all-reduce at one GPU.
  EXPECT_DOUBLE_EQ(p.overhead_s, s.engine.step_overhead_s);
  EXPECT_DOUBLE_EQ(p.comm_s, 0.0);
  // Up to MMVQ's batch of 8 the mat-vec stays bound by the bytes it reads (8 x 4.15 ms = 33 ms
  // of instructions would not be: the MMVQ rate is per token and weight).
  EXPECT_DOUBLE_EQ(decode_step(s, 2, 1).pass.gemm_s(), decode_step(s, 2, 1).pass.memory_s);
}

// The counts of data/formats.csv, by hand from llama.cpp's Jan 2024 ggml-cuda.cu (cc 6.1 SM
// slots: ALU op 1, shift 2, conversion 4, LD/ST op 4).
// q4_0 MMQ, Pascal tiles 64 x 64 with 8 warps (each thread 2 rows x 8 columns of the output),
// one pass over 8 blocks (256 weights deep): 64 x 64 x 256 / 256 threads / 4 = 1024 __dp4a.
// Its 8 k-steps (VDR 4) load from shared memory 2 rows x (4 quants + 1 scale) + 8 columns x
// (8 q8_1 ints + 1 scale) = 82, 656 in all, plus 64 LD/ST ops filling the tiles: 720 x 4 = 2880
// slots, over its ALU's 1480 ops + 2 x 64 shifts + 4 x 258 conversions = 2640: MMQ reaches
// 1024 / 2880 = 35.6% of the DP4A rate (bound by the 32 LD/ST units).
// q3_k MMQ, one pass over 2 blocks (512 weights): 2048 __dp4a; each k-step unpacks 2 rows x 8
// ints with 3 shifts, 2 ands and a 10-instruction __vsubss4: ALU 7726 + 2 x 774 + 4 x 257 =
// 10302 slots, over LD/ST 1880 x 4 = 7520: 2048 / 10302 = 19.9% (bound by the ALU).
// q3_k MMVQ (vec_dot_q3_K_q8_1, 16 weights a call): per 4 weights two scale bytes, 5 shifts,
// __vsubss4, __dp4a, a 3-instruction IMUL, I2F and FFMA; 104 ALU + 2 x 19 + 4 x 9 = 178 slots,
// 11.125 a weight (4.3 times q4_0's 41 / 16).
TEST(Int8DotKernels, KernelCountsPerFormat) {
  const Catalog& c = Catalog::builtin();
  const Dp4aKernelCounts& q4 = c.format("q4_0", "weights", "weights").dp4a;
  EXPECT_DOUBLE_EQ(q4.mmq_dp4a, 64.0 * 64.0 * 256.0 / 256.0 / 4.0);
  EXPECT_DOUBLE_EQ(q4.mmq_lsu, (8.0 * (2 * 5 + 8 * 9) + 64.0) * 4.0);
  EXPECT_DOUBLE_EQ(q4.mmq_alu, 1480.0 + 2 * 64.0 + 4 * 258.0);
  EXPECT_DOUBLE_EQ(q4.mmvq_cycles_per_weight, 41.0 / 16.0);
  const Dp4aKernelCounts& q3 = c.format("q3_k", "weights", "weights").dp4a;
  EXPECT_DOUBLE_EQ(q3.mmq_dp4a, 64.0 * 64.0 * 512.0 / 256.0 / 4.0);
  EXPECT_DOUBLE_EQ(q3.mmq_alu, 7726.0 + 2 * 774.0 + 4 * 257.0);
  EXPECT_DOUBLE_EQ(q3.mmq_lsu, 1880.0 * 4.0);
  EXPECT_DOUBLE_EQ(q3.mmvq_cycles_per_weight, (104.0 + 2 * 19.0 + 4 * 9.0) / 16.0);
  // The _m mixes take their body's kernels; formats without llama.cpp kernels have none.
  EXPECT_DOUBLE_EQ(c.format("q4_k_m", "weights", "weights").dp4a.mmq_alu,
                   c.format("q4_k", "weights", "weights").dp4a.mmq_alu);
  EXPECT_DOUBLE_EQ(c.format("fp16", "weights", "weights").dp4a.mmq_dp4a, 0.0);
}

// Prompt processing of 512 tokens (llama-bench pp512, one ubatch) runs MMQ at 35.6% of the DP4A
// rate (above) x eff(512), combined harmonically with the engine's kernel ceiling, for
// 512 x 2 x (layers' 6,476,005,376 + head 131,072,000 + norms 266,240) FLOPs (the model's count
// takes every weight a token touches once, the norms included): 47 TOPS x 0.3556 x 0.686 x
// 512 / 522.4 = 11.24 TFLOP/s, 10.96 with the engine's 441 TFLOP/s ceiling: 6.766 TFLOP in
// 0.618 s; llama-bench measures 935 t/s, 0.548 s for the whole pass.
TEST(Int8DotKernels, P40PromptProcessingRunsAtTheMmqShareOfTheDp4aRate) {
  const InferenceSetup s = setup("tesla-p40-24gb", "q4_0");
  EXPECT_DOUBLE_EQ(s.gemm_peak_flops, 47.0e12 * 1024.0 / 2880.0);
  EXPECT_DOUBLE_EQ(s.kernel.compute_scale, 1.0);  // the counts replace the gguf scale
  const double flops = 512.0 * 2.0 * (6476005376.0 + 131072000.0 + 266240.0);
  const InferenceProfile& e = s.engine;
  double rate = 47.0e12 * 1024.0 / 2880.0 * e.compute_eff_max * 512.0 /
                (512.0 + e.compute_k_tokens) * s.matmul_scale;
  rate = 1.0 / (1.0 / rate + 1.0 / e.compute_cap_flops);
  const PassTime p = prefill_time(s, 1, 512).pass;
  EXPECT_NEAR(p.compute_s, flops / rate, 1e-9);
  EXPECT_NEAR(p.compute_s, 0.618, 0.002);
  EXPECT_GT(p.compute_s, p.memory_s);
}

// A q3_k decode step: MMVQ's 11.125 cycles a weight make its 13.21 GFLOP run at 47e12 /
// (4 x 11.125) x 0.686 = 0.725 TFLOP/s (under the 441 TFLOP/s ceiling), 18.3 ms, over the
// 2.89 GB of weights' 9.6 ms: the 3-bit step is bound by its instructions, not its bytes
// (llama-bench measures 30.7 t/s, 32.5 ms a token, against q4_0's 17.8 ms with 30% more bytes).
TEST(Int8DotKernels, P40Q3kDecodeIsBoundByItsInstructions) {
  const InferenceSetup s = setup("tesla-p40-24gb", "q3_k");
  const double flops = 2.0 * (6476005376.0 + 131072000.0 + 266240.0);
  EXPECT_DOUBLE_EQ(s.matvec_peak_flops, 47.0e12 / (4.0 * 11.125));
  const PassTime p = decode_step(s, 1, 1).pass;
  const double rate = 47.0e12 / (4.0 * 11.125) * s.engine.compute_eff_max;
  EXPECT_NEAR(p.compute_s, flops * (1.0 / rate + 1.0 / s.engine.compute_cap_flops), 1e-9);
  EXPECT_NEAR(p.compute_s, 18.3e-3, 0.1e-3);
  EXPECT_NEAR(p.memory_s, 9.63e-3, 0.05e-3);
  EXPECT_DOUBLE_EQ(p.gemm_s(), p.compute_s);
}

// llama.cpp's legacy 32-value blocks (ggml-common.h: block_q4_1 fp16 d + fp16 m + 16 nibble
// bytes = 20 B, block_q5_0 fp16 d + 4 fifth-bit bytes + 16 = 22 B, block_q5_1 24 B), counted from
// the same Jan 2024 ggml-cuda.cu as q4_0 above. Each MMQ pass covers 8 blocks (WARP_SIZE / QI = 32
// / 4) in 8 k-steps of VDR 4, 1024 __dp4a as q4_0's.
// q5_0 MMVQ (vec_dot_q5_0_q8_1, VDR 2: 2 ints of nibbles, 16 weights a call): per int the low
// nibbles (1 and) and the high ones (1 shift, 1 and), and 8 fifth bits put in with a shift, an
// and and an or each: 9 shifts, 10 ands, 8 ors and 2 __dp4a; for the call 2 unaligned nibble
// loads and 1 fifth-bit load merged (3 ops) and 2 variable shifts of the fifth bits, 4 float ops
// (the constant x ds8.y, FFMA, x d5, the += of mul_mat_vec_q) and mul_mat_vec_q's 7 loop ops
// (q4_0's 21 ALU less its 14); 4 conversions (ds8 half2, d5, I2F). ALU 3 + 20 + 16 + 4 + 4 + 7 =
// 54, shifts 2 + 18 = 20: 54 + 2 x 20 + 4 x 4 = 110 slots, 6.875 a weight.
// q5_0 MMQ unpacks once into the tile (load_tiles_q5_0) and multiplies with q8_0's dot product,
// so its shared-memory operand loads bind: 2 rows x (8 ints + 1 scale) + 8 columns x (8 + 1) = 90
// a k-step, 720 a pass, plus 8 rows x (4 global loads + 2 stores) + 2 x 2 scale loads and stores
// + the q8_1 tile's 36: 808 x 4 = 3232 slots, 1024 / 3232 = 31.7% of the DP4A rate.
// q4_1 MMQ: 82 shared loads a k-step as q4_0, but 4 float ops a call (d4d8, m4s8, FFMA, +=) and
// the half2 scales of both operands converted: ALU 8 x (128 + 16 + 64) = 1664, 2 x 64 shifts,
// 4 x 8 x (16 + 16 + 4) conversions = 2944 slots, over LD/ST (656 + 56) x 4 = 2848.
TEST(Int8DotKernels, LegacyBlockFormatCounts) {
  const Catalog& c = Catalog::builtin();
  EXPECT_DOUBLE_EQ(c.format("q4_1", "weights", "weights").bits_per_value, 20.0 * 8 / 32);
  EXPECT_DOUBLE_EQ(c.format("q5_0", "weights", "weights").bits_per_value, 22.0 * 8 / 32);
  EXPECT_DOUBLE_EQ(c.format("q5_1", "weights", "weights").bits_per_value, 24.0 * 8 / 32);
  const Dp4aKernelCounts& q50 = c.format("q5_0", "weights", "weights").dp4a;
  EXPECT_DOUBLE_EQ(q50.mmvq_cycles_per_weight,
                   ((3.0 + 2 * 10 + 2 * 8 + 4 + 4 + 7) + 2 * (2 + 2 * 9.0) + 4 * 4.0) / 16.0);
  EXPECT_DOUBLE_EQ(q50.mmvq_cycles_per_weight, 6.875);
  EXPECT_DOUBLE_EQ(q50.mmq_dp4a, 1024.0);
  EXPECT_DOUBLE_EQ(q50.mmq_lsu, (8.0 * (2 * 9 + 8 * 9) + 8 * 6 + 2 * 2 + 36) * 4.0);
  EXPECT_GT(q50.mmq_lsu, q50.mmq_alu);  // bound by the shared-memory loads
  const Dp4aKernelCounts& q41 = c.format("q4_1", "weights", "weights").dp4a;
  EXPECT_DOUBLE_EQ(q41.mmq_dp4a, 1024.0);
  EXPECT_DOUBLE_EQ(q41.mmq_alu, 8.0 * (128 + 16 + 16 * 4) + 2 * 64.0 + 4 * 8.0 * (16 + 16 + 4));
  EXPECT_DOUBLE_EQ(q41.mmq_lsu, (8.0 * (2 * 5 + 8 * 9) + 56) * 4.0);
  // The q4_1 and q5_1 mat-vec kernels add the min's product: more slots a weight than q4_0's.
  EXPECT_GT(q41.mmvq_cycles_per_weight, 41.0 / 16.0);
  EXPECT_GT(c.format("q5_1", "weights", "weights").dp4a.mmvq_cycles_per_weight,
            q50.mmvq_cycles_per_weight);
}

// Llama 2 7B in q5_0 on the P40, one decode step of one sequence: the layers' 6,476,005,376
// weights at 22 B per 32 = 4,452,253,696 B, the q6_k head's 107,520,000 B and the norms' 532,480
// B: 4,560,306,176 B, 15.18 ms at 346 GB/s x bw_eff 0.868. MMVQ's 6.875 cycles a weight make the
// 13.21 GFLOP run at 47e12 / (4 x 6.875) x 0.686 = 1.172 TFLOP/s, 11.27 ms (11.30 with the
// engine's 441 TFLOP/s ceiling): the step stays bound by its bytes, 3.88 ms short of turning.
// llama-bench measures tg128 48.14 t/s (PR #4766), 20.8 ms a token.
TEST(Int8DotKernels, P40Q50DecodeIsBoundByItsBytes) {
  const InferenceSetup s = setup("tesla-p40-24gb", "q5_0");
  const double bytes = 6476005376.0 * 22 / 32 + 131072000.0 * 6.5625 / 8 + 266240.0 * 2;
  EXPECT_DOUBLE_EQ(bytes, 4560306176.0);
  EXPECT_NEAR(s.costs.dense_weight_bytes, bytes, 1.0);
  EXPECT_DOUBLE_EQ(s.matvec_peak_flops, 47.0e12 / (4.0 * 6.875));
  const PassTime p = decode_step(s, 1, 1).pass;
  EXPECT_NEAR(p.memory_s, bytes / (346e9 * s.engine.bw_eff), 1e-9);
  EXPECT_NEAR(p.memory_s, 15.18e-3, 0.02e-3);
  const double flops = 2.0 * (6476005376.0 + 131072000.0 + 266240.0);
  const double rate = 47.0e12 / (4.0 * 6.875) * s.engine.compute_eff_max;
  EXPECT_NEAR(p.compute_s, flops * (1.0 / rate + 1.0 / s.engine.compute_cap_flops), 1e-9);
  EXPECT_NEAR(p.compute_s, 11.30e-3, 0.02e-3);
  EXPECT_DOUBLE_EQ(p.gemm_s(), p.memory_s);
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
  EXPECT_DOUBLE_EQ(a100.matvec_peak_flops, 0.0);
}

}  // namespace
}  // namespace gpusizer
