// The logits of the sampled tokens: gathered over the tensor-parallel group and read in fp32 by
// the sampler, counted by hand from the vocabulary and the shipped link figures.
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "speed/inference_speed.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

std::optional<InferenceSetup> llama70b_tp(int64_t tp) {
  Scenario s =
      unit_scenario({.model = "llama-3.1-70b", .engine = "trtllm", .gpu = "h100-sxm5-80gb"});
  s.parallel.tp = tp;
  s.gpu_count = tp;
  std::string why;
  return inference_setup(s, Catalog::builtin().speed(), why);
}

// Llama-3.1-70B (vocabulary 128,256) at TP8 on H100 SXM, a step that samples 2,048 sequences:
// the gather moves 2,048 x 128,256 x 2 B = 525,336,576 B, 7/8 of it over NVLink at 450 GB/s one
// way x 0.8 = 3.6e11 B/s under NCCL's Simple protocol (25 + 29 us to start, data/speed.json
// links): 1.27686e-3 + 5.4e-5 = 1.33086e-3 s. The sampler writes
// and reads 2,048 x 128,256 x 8 B = 2,101,346,304 B at the engine's achieved bandwidth.
TEST(Logits, TheSampledRowsAreGatheredAndReadInFp32) {
  const auto setup = llama70b_tp(8);
  ASSERT_TRUE(setup);
  ASSERT_EQ(setup->costs.vocab, 128256);
  PassTime pass;
  add_logits(*setup, 2048, pass);
  EXPECT_NEAR(pass.comm_s, 1.33086e-3, 1e-8);
  const double bw = 3.35e12 * setup->engine.bw_eff * setup->vendor.bw_scale;
  EXPECT_NEAR(setup->bandwidth, 3.35e12, 1e3);
  EXPECT_NEAR(pass.logits_s, 2101346304.0 / bw, 1e-12);
}

// On one GPU nothing is gathered; no sampled row costs nothing.
TEST(Logits, OneGpuGathersNothing) {
  const auto setup = llama70b_tp(1);
  ASSERT_TRUE(setup);
  PassTime pass;
  add_logits(*setup, 64, pass);
  EXPECT_EQ(pass.comm_s, 0);
  EXPECT_GT(pass.logits_s, 0);
  PassTime none;
  add_logits(*setup, 0, none);
  EXPECT_EQ(none.logits_s, 0);
}

}  // namespace
}  // namespace gpusizer
