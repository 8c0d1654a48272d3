// A GEMM's shape (gemm_shape.h): the size efficiency and the share of instances that run.
#include "speed/gemm_shape.h"

#include <gtest/gtest.h>

namespace gpusizer {
namespace {

TEST(GemmShape, SizeEfficiencyIsHalfAtTheHalfPoint) {
  EXPECT_DOUBLE_EQ(gemm_size_eff(1024, 1024), 0.5);
  EXPECT_DOUBLE_EQ(gemm_size_eff(8192, 1024), 8.0 / 9.0);
  EXPECT_DOUBLE_EQ(gemm_size_eff(8192, 0), 1.0);
  EXPECT_DOUBLE_EQ(gemm_size_eff(8192, -5), 1.0);  // a negative half point is none
}

// Mixtral: 2 of 8 experts per token; its attention matrices run for every token.
TEST(GemmShape, RoutedExpertsRunAtTopKOverExperts) {
  Model m;
  m.num_experts = 8;
  m.experts_per_token = 2;
  EXPECT_DOUBLE_EQ(active_share({.name = "experts.w1", .expert = true}, m), 0.25);
  EXPECT_DOUBLE_EQ(active_share({.name = "q_proj"}, m), 1.0);
  m.num_experts = 0;  // a dense model has no routed share
  EXPECT_DOUBLE_EQ(active_share({.name = "experts.w1", .expert = true}, m), 1.0);
}

}  // namespace
}  // namespace gpusizer
