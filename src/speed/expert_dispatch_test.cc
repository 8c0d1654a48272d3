// The dispatch and combine of a serving MoE layer under attention data parallelism (ep > tp):
// an all-gather of every group's hidden states and a reduce-scatter of the expert outputs, as
// vLLM's default all2all backend runs them, timed from the shipped link figures by hand.
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "speed/inference_speed.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

Scenario mixtral_decode(int64_t tp, int64_t ep) {
  Scenario s =
      unit_scenario({.model = "mixtral-8x7b-v0.1", .engine = "vllm", .gpu = "h100-sxm5-80gb"});
  s.parallel.tp = tp;
  s.parallel.ep = ep;
  s.gpu_count = ep;
  return s;
}

// Mixtral-8x7B (hidden 4096, 32 layers, all MoE), a 64-token decode step, tp 1 x 8 attention
// groups on H100 SXM (NVLink 900 GB/s both ways, 450 one way, x 0.8 NCCL efficiency = 3.6e11
// B/s; 25 us per collective; messages this small take NCCL's LL protocol at half the bandwidth,
// data/speed.json links). Per MoE layer the groups gather and scatter back 64 x 4096 x 2 B =
// 524,288 B: 2 x 7/8 x 524,288 / 3.6e11 = 2.5486e-6 s on the wire, twice that under LL, plus
// 25 us = 3.00972e-5 s; 32 layers: 9.63111e-4 s. With tp 1 there is no tensor-parallel
// all-reduce.
TEST(ExpertDispatch, AttentionDataParallelGathersAndScattersEachMoeLayer) {
  std::string why;
  const auto setup = inference_setup(mixtral_decode(1, 8), Catalog::builtin().speed(), why);
  ASSERT_TRUE(setup) << why;
  ASSERT_EQ(setup->attention_groups, 8);
  EXPECT_NEAR(decode_step(*setup, 64, 512).pass.comm_s, 9.63111e-4, 1e-8);
}

// tp 2 x 4 groups, every message under LL (wire time doubled): each group's tensor-parallel pair
// all-reduces its 16 tokens twice per layer, 16 x 4096 x 2 = 131,072 B: 2 x 2 x 1/2 x 131,072 /
// 3.6e11 + 25e-6 = 2.57282e-5 s, x 64 = 1.64660e-3 s; the dispatch over the 4 groups: 2 x 2 x
// 3/4 x 524,288 / 3.6e11 + 25e-6 = 2.93691e-5 s, x 32 = 9.39810e-4 s; and each group gathers its
// 16 sequences' logits over its pair, 16 x 32,000 x 2 B = 1,024,000 B: 2 x 1/2 x 1,024,000 /
// 3.6e11 + 25e-6 = 2.78444e-5 s; together 2.61426e-3 s.
TEST(ExpertDispatch, TensorParallelGroupsAddTheirOwnAllReduces) {
  std::string why;
  const auto setup = inference_setup(mixtral_decode(2, 8), Catalog::builtin().speed(), why);
  ASSERT_TRUE(setup) << why;
  EXPECT_NEAR(decode_step(*setup, 64, 512).pass.comm_s, 2.61426e-3, 1e-8);
}

// ep = tp (experts spread whole over the tensor-parallel ranks): the MoE output is summed by the
// layer's usual all-reduce, so there is no dispatch: 64 all-reduces of 64 x 4096 x 2 B over 8
// under LL: 2 x 2 x 7/8 x 524,288 / 3.6e11 + 25e-6 = 3.00972e-5 s, x 64 = 1.92622e-3 s; plus the
// gather of the 64 sequences' logits, 64 x 32,000 x 2 B = 4,096,000 B, still LL (44.9 us against
// Simple's 25 + 29 + 9.96 = 64.0 us): 2 x 7/8 x 4,096,000 / 3.6e11 + 25e-6 = 4.49111e-5 s;
// 1.97113e-3 s in all.
TEST(ExpertDispatch, ExpertsOverTheTensorParallelRanksNeedNoDispatch) {
  std::string why;
  const auto setup = inference_setup(mixtral_decode(8, 8), Catalog::builtin().speed(), why);
  ASSERT_TRUE(setup) << why;
  EXPECT_EQ(setup->attention_groups, 1);
  EXPECT_NEAR(decode_step(*setup, 64, 512).pass.comm_s, 1.97113e-3, 1e-8);
}

}  // namespace
}  // namespace gpusizer
