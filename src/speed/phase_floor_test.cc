// The least time a serving phase can take on its hardware (Phase::floor_s,
// inference_speed.h): its FLOPs at the GPU's peak rate or its bytes at its peak bandwidth.
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "speed/inference_speed.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

InferenceSetup llama2_7b_on_a100() {
  const Scenario sc = unit_scenario(
      {.model = "llama-2-7b", .weights = "bf16", .engine = "vllm", .gpu = "a100-sxm4-80gb"});
  std::string why;
  const auto s = inference_setup(sc, Catalog::builtin().speed(), why);
  EXPECT_TRUE(s) << why;
  return *s;
}

// Llama-2-7B in bf16 on an A100 80GB (2,039 GB/s, 312 TFLOPS): one decode step at batch 1 reads
// the layers' and the output head's weights, (6,738,415,616 - 131,072,000 embedding) x 2 B =
// 13,214,687,232 B, and 512 tokens of cache, 512 x 32 layers x 2 x 4,096 x 2 B = 268,435,456 B:
// 13.483 GB / 2.039 TB/s = 6.613 ms (the hidden states add a few kB). Its ~13 GFLOPs would take
// 0.04 ms at peak, so the bytes bind; no engine's step is shorter.
TEST(PhaseFloor, DecodeAtBatchOneIsItsBytesAtPeakBandwidth) {
  const InferenceSetup s = llama2_7b_on_a100();
  const Phase step = decode_step(s, 1, 512);
  EXPECT_NEAR(step.floor_s, (13214687232.0 + 268435456.0) / 2.039e12, 2e-6);
  EXPECT_GT(step.seconds, step.floor_s);
}

// A 2,048-token prompt of the same model: the GEMMs do 2 FLOPs per weight and token over the
// 6.607e9 weights past the embedding, 2,048 x 2 x 6.607e9 = 2.706e13 FLOPs, 86.7 ms at 312
// TFLOPS; causal attention adds 2 x 2,048^2 x 4,096 x 32 layers = 1.1e12 FLOPs (3.5 ms). About
// 90 ms in all; its weights read once (13.2 GB, 6.5 ms) do not bind.
TEST(PhaseFloor, LongPrefillIsItsFlopsAtPeakRate) {
  const InferenceSetup s = llama2_7b_on_a100();
  const Phase prefill = prefill_time(s, 1, 2048);
  EXPECT_NEAR(prefill.floor_s, 0.0902, 0.003);
  EXPECT_GT(prefill.seconds, prefill.floor_s);
}

// Pipeline stages: a token crosses the pp stages one after another, so a decode step of one
// sequence over pp = 2 stages takes at least two stage passes, each reading half the weights:
// the same floor as one GPU reading them all.
TEST(PhaseFloor, PipelineStagesAreCrossedOneAfterAnother) {
  Scenario sc = unit_scenario(
      {.model = "llama-2-7b", .weights = "bf16", .engine = "vllm", .gpu = "a100-sxm4-80gb"});
  sc.parallel.pp = 2;
  std::string why;
  const auto s = inference_setup(sc, Catalog::builtin().speed(), why);
  ASSERT_TRUE(s) << why;
  const Phase step = decode_step(*s, 1, 512);
  EXPECT_NEAR(step.floor_s, 2 * step.pass.floor_s, 1e-15);
  EXPECT_NEAR(step.floor_s, (13214687232.0 + 268435456.0) / 2.039e12, 2e-6);
}

}  // namespace
}  // namespace gpusizer
