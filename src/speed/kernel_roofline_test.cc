// Each kind of kernel on its own roofline (PassTime, inference_speed.h) and the GEMM rate of a
// tensor-parallel split (tp_gemm_scale, inference_speed.cc).
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "speed/inference_speed.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

// GEMMs: max(3 compute, 2 weights) = 3; attention: max(1 FLOPs, 4 cache) = 4; then the kernels
// of their own (0.5), the all-reduces (1) and the overhead (0.5): 9, where one roofline over
// the whole step would give max(3 + 1, 2 + 4) + 0.5 + 1 + 0.5 = 8.
TEST(KernelRoofline, EachKindOfKernelMeetsItsOwnRoofAndTheKindsAdd) {
  PassTime t;
  t.compute_s = 3;
  t.memory_s = 2;
  t.attention_s = 1;
  t.cache_s = 4;
  t.side_s = 0.5;
  t.comm_s = 1;
  t.overhead_s = 0.5;
  EXPECT_DOUBLE_EQ(t.gemm_s(), 3);
  EXPECT_DOUBLE_EQ(t.attention_kernel_s(), 4);
  EXPECT_DOUBLE_EQ(t.total(), 9);
}

// Llama-3.1-70B, FP8 weights and cache, TP8 on H100: 750 sequences at 2,176 tokens. One token's
// FP8 cache is 80 layers x 2 x 8 KV heads x 128 x 1 B = 163,840 B, split over the 8 KV heads'
// ranks; the step's GEMMs do 750 x 2 x active params of work. At this batch the GEMMs are bound
// by their FLOPs and attention by the cache it streams, so both times count in full.
TEST(KernelRoofline, LargeDecodeBatchPaysComputeBoundGemmsAndCacheBoundAttention) {
  Scenario sc = unit_scenario({.model = "llama-3.1-70b",
                               .weights = "fp8",
                               .kv_cache = "fp8",
                               .engine = "trtllm",
                               .gpu = "h100-sxm5-80gb"});
  sc.parallel.tp = 8;
  std::string why;
  const auto s = inference_setup(sc, Catalog::builtin().speed(), why);
  ASSERT_TRUE(s) << why;
  EXPECT_DOUBLE_EQ(s->costs.kv_bytes_per_token_layer * 80, 163840.0);
  const PassTime p = decode_step(*s, 750, 2176).pass;
  const double bw = s->bandwidth * s->engine.bw_eff * s->vendor.bw_scale;
  const double per_sequence = 2176.0 * 163840.0 + s->costs.activation_bytes_per_token;
  EXPECT_NEAR(p.cache_s, 750.0 * per_sequence / 8.0 / bw, 1e-9);
  EXPECT_GT(p.compute_s, p.memory_s);
  EXPECT_GT(p.cache_s, p.attention_s);
  EXPECT_DOUBLE_EQ(p.total(),
                   p.compute_s + p.cache_s + p.side_s + p.logits_s + p.comm_s + p.overhead_s);
}

// Two 8192 x 8192 matrices, one column- and one row-parallel, k_width 1024. Unsplit each is
// 8192 wide: 8192 / 9216 = 8/9 of the rate. At TP8 the column one is 8192 / 8 = 1024 wide in
// its output and the row one 1024 deep: 1024 / 2048 = 1/2. Equal FLOPs, so the split runs at
// (1/2) / (8/9) = 9/16 of the unsplit rate.
TEST(TpGemmScale, TensorParallelNarrowsEachMatrixOnItsSplitSide) {
  Model m;
  LinearModules mods;
  mods.push_back({.name = "q_proj", .in = 8192, .out = 8192, .count = 1});
  mods.push_back({.name = "o_proj", .in = 8192, .out = 8192, .count = 1, .role = MatrixRole::kRow});
  EXPECT_DOUBLE_EQ(tp_gemm_scale(mods, m, 8, 1024), 9.0 / 16.0);
  EXPECT_DOUBLE_EQ(tp_gemm_scale(mods, m, 1, 1024), 1.0);
  EXPECT_DOUBLE_EQ(tp_gemm_scale(mods, m, 8, 0), 1.0);
  EXPECT_DOUBLE_EQ(tp_gemm_scale({}, m, 8, 1024), 1.0);
  // A router is not a GEMM of the layer's time; a routed expert counts at k / E of its FLOPs:
  // here 1 of 4 experts, so the expert (4x the FLOPs, 1/4 run) weighs as much as q_proj. The
  // experts run as one grouped GEMM, at their unsplit 1024 / 2048 = 1/2 of the rate either way.
  // Time split: 2/(1/2) + 1/(1/2) = 6 against 2/(8/9) + 1/(1/2) = 4.25 whole.
  m.num_experts = 4;
  m.experts_per_token = 1;
  mods.push_back(
      {.name = "mlp.gate", .in = 8192, .out = 4, .count = 1, .role = MatrixRole::kRouter});
  mods.push_back(
      {.name = "experts.gate_proj", .in = 8192, .out = 1024, .count = 32, .expert = true});
  EXPECT_DOUBLE_EQ(tp_gemm_scale(mods, m, 8, 1024), 4.25 / 6.0);
}

// q (7,168 wide), k and v (512 each) read the same input: the engine runs them as one fused
// 8192 x 8192 GEMM, so at TP8 it is 1,024 wide (1/2 of the rate) and unsplit 8,192 (8/9): 9/16,
// as one matrix. Read apart, k and v would be 64 wide at TP8 (1/17 of the rate).
TEST(TpGemmScale, FusedProjectionsCountAsOneMatrix) {
  Model m;
  LinearModules mods;
  mods.push_back({.name = "q_proj", .in = 8192, .out = 7168, .count = 1, .attention = true});
  mods.push_back({.name = "k_proj", .in = 8192, .out = 512, .count = 1, .attention = true});
  mods.push_back({.name = "v_proj", .in = 8192, .out = 512, .count = 1, .attention = true});
  EXPECT_DOUBLE_EQ(tp_gemm_scale(mods, m, 8, 1024), 9.0 / 16.0);
}

}  // namespace
}  // namespace gpusizer
