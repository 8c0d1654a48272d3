// A weight format's kernel scales (SpeedProfile::weight_kernel): a kind's bw_scale, and a
// dequantizing kind's cost a weight folded into the share of bandwidth its bytes achieve.
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "gpusizer/error.h"
#include "gpusizer/speed_profile.h"
#include "speed/testing_training_speed.h"

namespace gpusizer {
namespace {

SpeedProfile profile_with_kernels(const nlohmann::json& kernels) {
  nlohmann::json doc = testing::round_profile_doc();
  doc["weight_kernels"] = kernels;
  return SpeedProfile::from_json(doc);
}

TEST(WeightKernel, DequantCostAWeightLowersTheShareMoreForFewerBits) {
  // Half a byte's time a weight: int8 (1 B) takes 1.5 B's time, 1 / 1.5 = 0.6667 of its
  // bandwidth; int4 with one fp16 scale a group of 128 (4.125 bits, 0.515625 B) takes
  // 1.015625 B's time, 0.515625 / 1.015625 = 0.50769.
  const auto p = profile_with_kernels(
      {{"int", {{"bw_scale", 1.0}, {"compute_scale", 0.8}, {"dequant_bytes_per_weight", 0.5}}}});
  EXPECT_NEAR(p.weight_kernel("int", 8).bw_scale, 0.666667, 1e-6);
  EXPECT_NEAR(p.weight_kernel("int", 4.125).bw_scale, 0.507692, 1e-6);
  EXPECT_DOUBLE_EQ(p.weight_kernel("int", 8).compute_scale, 0.8);
}

TEST(WeightKernel, AKindWithoutDequantCostKeepsItsScale) {
  const auto p = profile_with_kernels({{"quant", {{"bw_scale", 0.8}, {"compute_scale", 0.75}}}});
  EXPECT_DOUBLE_EQ(p.weight_kernel("quant", 4.25).bw_scale, 0.8);
  EXPECT_DOUBLE_EQ(p.weight_kernel("quant", 8).bw_scale, 0.8);
  // A kind the file does not name runs at the engine's own figures.
  EXPECT_DOUBLE_EQ(p.weight_kernel("float", 16).bw_scale, 1.0);
  EXPECT_DOUBLE_EQ(p.weight_kernel("float", 16).compute_scale, 1.0);
}

TEST(WeightKernel, ANegativeDequantCostIsRefusedByName) {
  try {
    profile_with_kernels(
        {{"int", {{"bw_scale", 1.0}, {"compute_scale", 0.8}, {"dequant_bytes_per_weight", -1}}}});
    FAIL() << "a negative cost was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dequant_bytes_per_weight"), std::string::npos)
        << e.what();
  }
}

TEST(WeightKernel, ShippedIntKernelsRunInt8FasterThanTheirBytesShareOfInt4) {
  // The shipped figure (data/speed.json, fitted on gpt-fast's int4 rows) gives int8 a larger
  // share of the bandwidth than int4: a weight's arithmetic weighs less against one byte than
  // against half of one.
  const SpeedProfile& p = Catalog::builtin().speed();
  EXPECT_GT(p.weight_kernel("int", 8).bw_scale, p.weight_kernel("int", 4.125).bw_scale);
}

}  // namespace
}  // namespace gpusizer
