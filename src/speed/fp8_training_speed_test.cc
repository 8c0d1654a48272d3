// FP8 training's step against figures derived by hand (training_speed.cc compute_step_rates,
// add_fp8_casts): the layers' GEMMs at the FP8 rate, attention and the head at the bf16 rate,
// the casts' bytes at HBM bandwidth, the weights' re-cast in the optimizer step.
#include <gtest/gtest.h>

#include <string>

#include "gpusizer/json/scenario.h"
#include "speed/testing_training_speed.h"
#include "speed/training_speed.h"

namespace gpusizer {
namespace {

using testing::round_profile_doc;
using testing::step;

// H100 SXM5 (data/gpus.csv): dense bf16 989.4 and fp8 1978.9 TFLOPS, HBM 3350 GB/s; the round
// profile's eff 0.5 at every width.
constexpr double kRate16 = 989.4e12 * 0.5, kRate8 = 1978.9e12 * 0.5, kHbm = 3350e9;
// The GPT-2-shaped job (testing_training_speed.h): 4 layers of 24 h^2 forward FLOPs per token
// (h 1024), one 1024-token sequence a step, 52,459,520 parameters.
constexpr double kLayerFwd = 24.0 * 1024 * 1024 * 4, kTokens = 1024, kParams = 52459520;
// Values a token's casts quantize per layer (h 1024, ffn 4096, q/k/v reading one input):
// forward, the GEMMs' inputs: qkv 1024 + proj 1024 + fc 1024 + fc2 4096 = 7,168; backward, the
// gradients of their outputs: 3 x 1024 + 1024 + 4096 + 1024 = 9,216.
constexpr double kInputs = 7168.0 * 4, kOutputs = 9216.0 * 4;

Scenario job(const std::string& precision, const std::string& gpu = "h100-sxm5-80gb") {
  nlohmann::json j = testing::small_gpt2_job();
  j["gpu"] = gpu;
  j["training"]["mixed_precision"] = precision;
  return parse_scenario(j, Catalog::builtin());
}

// The round profile, whose casts read 4 bytes a value under current scaling (an amax pass and a
// cast pass over the bf16 values) and 2 under MXFP8, as data/speed.json.
SpeedProfile profile() {
  return SpeedProfile::from_json(round_profile_doc());
}

TEST(Fp8TrainingSpeed, LayerGemmsAtTheFp8RateAttentionAndHeadAtBf16) {
  // Only the layers' forward + backward GEMMs change rate: 3 x 100,663,296 x 1024 FLOPs x
  // (1 / 494.7 - 1 / 989.45) TFLOP/s = 0.31256 ms saved; the attention core and the tied head
  // (vocab 1000) stay at the bf16 rate. The casts cost 6 B a value on H100 (4 read, a row- and a
  // column-wise byte written) x (28,672 + 36,864) values x 1024 tokens / 3.35 TB/s = 0.12019 ms.
  const auto p = profile();
  const TrainingSpeed bf16 = step(job("bf16"), p);
  const TrainingSpeed fp8 = step(job("fp8"), p);
  const double saved = 3 * kLayerFwd * kTokens * (1 / kRate16 - 1 / kRate8);
  const double casts = 6 * (kInputs + kOutputs) * kTokens / kHbm;
  EXPECT_NEAR(bf16.breakdown.compute - fp8.breakdown.compute, saved - casts, 0.003 * saved);
  EXPECT_EQ(fp8.dtype, "fp8");
  // MFU against the peak of the dtype the layers run in.
  EXPECT_NEAR(fp8.mfu, fp8.tflops_per_gpu * 1e12 / 1978.9e12, 1e-12);
}

TEST(Fp8TrainingSpeed, LayerGemmsAtTheGpusMeasuredFp8MatmulFraction) {
  // achievable_matmul.fp8_gpus gives H100 0.5 of its FP8 rate where its 16-bit fraction stays 1:
  // the layers' GEMMs then take 3 x 100,663,296 x 1024 FLOPs x (1 / (0.5 x 989.45) - 1 / 989.45)
  // TFLOP/s = 0.31256 ms longer; attention, the head and the casts are unchanged.
  nlohmann::json doc = round_profile_doc();
  doc["achievable_matmul"]["fp8_gpus"] = {{"h100-sxm5-80gb", 0.5}};
  const SpeedProfile halved = SpeedProfile::from_json(doc);
  const Scenario s = job("fp8");
  const double longer = 3 * kLayerFwd * kTokens * (1 / (0.5 * kRate8) - 1 / kRate8);
  EXPECT_NEAR(step(s, halved).breakdown.compute - step(s, profile()).breakdown.compute, longer,
              0.003 * longer);
  // A bf16 step reads the 16-bit fraction alone.
  EXPECT_EQ(step(job("bf16"), halved).breakdown.compute,
            step(job("bf16"), profile()).breakdown.compute);
}

TEST(Fp8TrainingSpeed, FullRecomputationReplaysTheForwardsGemmsAndCasts) {
  // The replayed forward: 100,663,296 x 1024 x (1 / 494.7 - 1 / 989.45) TFLOP/s = 0.10419 ms
  // less GEMM time, 6 x 28,672 x 1024 / 3.35e12 = 52.58 us of input casts again.
  Scenario bf16 = job("bf16"), fp8 = job("fp8");
  bf16.training.recompute = fp8.training.recompute = Recompute::kFull;
  const auto p = profile();
  const double replay = kLayerFwd * kTokens * (1 / kRate16 - 1 / kRate8);
  const double casts = 6 * kInputs * kTokens / kHbm;
  EXPECT_NEAR(step(bf16, p).breakdown.recompute - step(fp8, p).breakdown.recompute, replay - casts,
              0.003 * replay);
}

TEST(Fp8TrainingSpeed, Mxfp8OnB200CastsBothLayoutsWithTheirScales) {
  // B200: bf16 2250, fp8 4500 TFLOPS, 8,000 GB/s. GEMMs: 3 x 100,663,296 x 1024 x
  // (1 / 1125 - 1 / 2250) TFLOP/s = 0.13745 ms saved; casts 2 read + 2 x 1.03125 written
  // = 4.0625 B a value: 4.0625 x 65,536 x 1024 / 8e12 = 34.08 us.
  const auto p = profile();
  const double saved = 3 * kLayerFwd * kTokens * (1 / (2250e12 * 0.5) - 1 / (4500e12 * 0.5));
  const double casts = 4.0625 * (kInputs + kOutputs) * kTokens / 8000e9;
  EXPECT_NEAR(step(job("bf16", "b200-180gb"), p).breakdown.compute -
                  step(job("mxfp8", "b200-180gb"), p).breakdown.compute,
              saved - casts, 0.003 * saved);
  // Per-tensor FP8 on B200 writes one copy: its GEMMs take either layout (5 B a value).
  const double fp8_casts = 5 * (kInputs + kOutputs) * kTokens / 8000e9;
  EXPECT_NEAR(step(job("bf16", "b200-180gb"), p).breakdown.compute -
                  step(job("fp8", "b200-180gb"), p).breakdown.compute,
              saved - fp8_casts, 0.003 * saved);
}

TEST(Fp8TrainingSpeed, TheOptimizerStepCastsTheUpdatedWeightsOnce) {
  // The bf16 copy read and a row- and a column-wise FP8 copy written: 4 B a parameter more
  // than bf16 AMP's 42 (training_speed.cc optimizer_bytes_per_param), at HBM bandwidth.
  TrainingOptions t;
  t.mixed_precision = MixedPrecision::kFp8;
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_param(t), 42.0 + 4.0);
  t.mixed_precision = MixedPrecision::kMxfp8;
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_param(t), 42.0 + 2.0 + 2.0 * 1.03125);
  const auto p = profile();
  const double extra =
      step(job("fp8"), p).breakdown.optimizer - step(job("bf16"), p).breakdown.optimizer;
  EXPECT_NEAR(extra, kParams * 4.0 / kHbm, 1e-3 * extra);
}

TEST(Fp8TrainingSpeed, NoStepWithoutFp8TensorCores) {
  // A GPU without FP8 (A100) has no rate for the recipe, not its bf16 one passed off as FP8.
  Scenario s = job("fp8");
  s.gpu = Catalog::builtin().gpu_ref("a100-sxm4-80gb", "gpu");
  std::string why;
  EXPECT_FALSE(training_speed(s, Catalog::builtin().engine(s.engine), profile(), why));
  EXPECT_NE(why.find("fp8"), std::string::npos) << why;
}

}  // namespace
}  // namespace gpusizer
