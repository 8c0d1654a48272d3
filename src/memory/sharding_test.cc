// How ZeRO shards a model state: the dense part over dp x ep x cp, the routed experts over
// dp x cp (sharding.cc zero_shard; Megatron-Core parallel_state's data-parallel and
// expert-data-parallel groups). Values checked by hand in the comments.
#include "memory/sharding.h"

#include <gtest/gtest.h>

#include "estimate/layout.h"
#include "gpusizer/catalog.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"
#include "testing/resolved_scenario.h"

namespace gpusizer {
namespace {

const Catalog& cat() {
  return Catalog::builtin();
}

// Mixtral-8x7B: 32 layers x 8 experts x 3 x 4,096 x 14,336 = 45,097,156,608 routed-expert
// parameters of 46,702,792,704, so 1,605,636,096 dense ones (attention, norms, routers,
// embedding and head).
Scenario mixtral_full(int64_t gpus, const nlohmann::json& parallel, int zero) {
  return testing::resolved_scenario(
      {{"model", "mixtral-8x7b-v0.1"},
       {"task", "full"},
       {"engine", "megatron"},
       {"gpu", "h100"},
       {"gpu_count", gpus},
       {"parallel", parallel},
       {"training", {{"zero_stage", zero}, {"gradient_checkpointing", "full"}}}});
}

TEST(ZeroShard, DenseOverEveryDataRankExpertsOverTheirOwn) {
  Scenario s = mixtral_full(8, {{"tp", 1}, {"pp", 1}, {"ep", 4}, {"dp", 2}}, 1);
  ASSERT_EQ(s.dense_data_ranks(), 8);
  ASSERT_EQ(s.expert_data_ranks(), 2);
  // 100 B of layers, 800 of experts, 50 + 50 of embedding and head: a GPU holds 100 + 800 / 4
  // + 100 = 400, of which 200 are experts; ZeRO leaves (400 - 200) / 8 + 200 / 2 = 125.
  const memory::ModelBytes b{100, 800, 50, 50};
  const memory::SplitBytes split = memory::per_gpu_split(b, s);
  EXPECT_DOUBLE_EQ(split.whole, 400);
  EXPECT_DOUBLE_EQ(split.experts, 200);
  EXPECT_DOUBLE_EQ(memory::zero_shard(split, s), 125);
  EXPECT_DOUBLE_EQ(memory::per_gpu(b, s, true), 125);
  // Context parallelism without experts: one group of dp x cp = 4 ranks, 1,000 / 4.
  Scenario dense = mixtral_full(8, {{"tp", 2}, {"pp", 1}, {"cp", 2}, {"dp", 2}}, 1);
  EXPECT_DOUBLE_EQ(memory::per_gpu(b, dense, true), (50.0 + 800.0 / 2 + 50.0) / 4);
}

// The fp32 master copy under Megatron's distributed optimizer (ZeRO-1) on 8 H100 at EP 8, no
// data parallelism beyond it: the dense parameters are sharded over all 8 ranks, each expert
// lives on one. 4 B x (1,605,636,096 / 8 + 45,097,156,608 / 8) = 4 x 5,837,849,088 =
// 23,351,396,352 B; before the dense part was sharded over the expert ranks the whole
// 4 x (1,605,636,096 + 5,637,144,576) = 28,971,122,688 B stayed on each GPU.
TEST(ZeroShard, MixtralMasterCopyAtExpertParallelEight) {
  const Scenario s = mixtral_full(8, {{"tp", 1}, {"pp", 1}, {"ep", 8}, {"dp", 1}}, 1);
  const MemoryEstimate m = estimate(s, cat(), Detail::kMemory).memory;
  EXPECT_NEAR(m.master_weights, 23'351'396'352.0, 1.0);
  // The 8-bit-free AdamW's two fp32 moments: 2 x the master copy.
  EXPECT_NEAR(m.optimizer, 2.0 * 23'351'396'352.0, 2.0);
}

}  // namespace
}  // namespace gpusizer
