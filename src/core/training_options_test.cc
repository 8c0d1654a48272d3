// The training options' enums: the contract's names both ways, and a typo answered with the
// valid names and the closest one (as every name the scenario reads).
#include "gpusizer/training_options.h"

#include <gtest/gtest.h>

#include "gpusizer/error.h"

namespace gpusizer {
namespace {

TEST(TrainingOptions, NamesAreTheContractsBothWays) {
  // docs/contract.md "training": the spellings the JSON carries in and out.
  EXPECT_EQ(to_string(Optimizer::kPagedAdamw8bit), "paged-adamw-8bit");
  EXPECT_EQ(to_string(Optimizer::kSgdMomentum), "sgd-momentum");
  EXPECT_EQ(to_string(MixedPrecision::kPureBf16), "pure-bf16");
  EXPECT_EQ(to_string(Offload::kOptimizerParams), "optimizer+params");
  EXPECT_EQ(optimizer_names().size(), 8u);
  for (const auto& n : optimizer_names()) EXPECT_EQ(to_string(parse_optimizer(n, "o")), n);
  for (const auto& n : mixed_precision_names())
    EXPECT_EQ(to_string(parse_mixed_precision(n, "p")), n);
  for (const auto& n : offload_names()) EXPECT_EQ(to_string(parse_offload(n, "f")), n);
  // Case does not matter, as for every name the scenario reads.
  EXPECT_EQ(parse_optimizer("AdamW", "o"), Optimizer::kAdamw);
  EXPECT_EQ(parse_mixed_precision("BF16", "p"), MixedPrecision::kBf16);
}

TEST(TrainingOptions, ATypoNamesTheFieldTheValidValuesAndTheClosest) {
  try {
    parse_optimizer("adamw8bit", "training.optimizer");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "training.optimizer");
    EXPECT_EQ(e.code(), "unknown_name");
    EXPECT_STREQ(
        e.what(),
        "training.optimizer: unknown value 'adamw8bit'; expected one of adamw, adamw-8bit, "
        "paged-adamw-8bit, paged-adamw, sgd, sgd-momentum, adafactor, lion (did you mean "
        "adamw-8bit?)");
  }
  try {
    parse_offload("optimiser", "training.offload");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("(did you mean optimizer?)"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parse_mixed_precision("bf32", "training.mixed_precision"), InputError);
}

TEST(TrainingOptions, FamiliesOfValues) {
  // bitsandbytes: the paged optimizers keep their states in unified memory, the 8-bit ones
  // blockwise in one byte (Dettmers et al. 2022).
  EXPECT_TRUE(is_paged(Optimizer::kPagedAdamw) && is_paged(Optimizer::kPagedAdamw8bit));
  EXPECT_FALSE(is_paged(Optimizer::kAdamw8bit));
  EXPECT_TRUE(is_8bit(Optimizer::kAdamw8bit) && is_8bit(Optimizer::kPagedAdamw8bit));
  EXPECT_FALSE(is_8bit(Optimizer::kPagedAdamw));
  // AMP keeps an fp32 master; pure-bf16 and fp32 do not; bf16 matmuls under both bf16 recipes.
  EXPECT_TRUE(is_amp(MixedPrecision::kBf16) && is_amp(MixedPrecision::kFp16));
  EXPECT_FALSE(is_amp(MixedPrecision::kPureBf16) || is_amp(MixedPrecision::kFp32));
  EXPECT_TRUE(computes_in_bf16(MixedPrecision::kPureBf16));
  EXPECT_FALSE(computes_in_bf16(MixedPrecision::kFp16));
  // The FP8 recipes are bf16 AMP whose linear layers' GEMMs take FP8 operands (Transformer
  // Engine: fp32 master, bf16 parameters, attention and head in bf16).
  for (const MixedPrecision p : {MixedPrecision::kFp8, MixedPrecision::kMxfp8})
    EXPECT_TRUE(is_fp8(p) && is_amp(p) && computes_in_bf16(p));
  EXPECT_FALSE(is_fp8(MixedPrecision::kBf16) || is_fp8(MixedPrecision::kPureBf16));
  EXPECT_EQ(parse_mixed_precision("MXFP8", "p"), MixedPrecision::kMxfp8);
}

}  // namespace
}  // namespace gpusizer
