// The expert-parallel all-to-all of a training step across nodes: a rank's tokens for experts on
// its own node go over NVLink while those for other nodes go over its NIC, side by side
// (collectives.cc alltoall_s). On the round profile (links at line rate, no latency) the times
// follow from the bytes and H100's links alone, derived by hand below.
#include <gtest/gtest.h>

#include "gpusizer/json/scenario.h"
#include "speed/collectives.h"
#include "speed/testing_training_speed.h"

namespace gpusizer {
namespace {

using testing::round_profile;
using testing::step;

// Qwen3-30B-A3B (hidden 2,048, 128 experts, top-8, 48 MoE layers) pre-trained under Megatron on
// H100 SXM, 8 GPUs a node, one 4,096-token sequence a micro-batch, one micro-batch a step.
Scenario qwen3_moe(int64_t ep) {
  return parse_scenario({{"model", "qwen3-30b-a3b"},
                         {"task", "pretrain"},
                         {"engine", "megatron"},
                         {"gpu", "h100"},
                         {"gpu_count", ep},
                         {"gpus_per_node", 8},
                         {"seq_len", 4096},
                         {"batch", 1},
                         {"parallel", {{"tp", 1}, {"pp", 1}, {"ep", ep}, {"dp", 1}}},
                         {"training", {{"zero_stage", 1}, {"global_batch", ep}}}},
                        Catalog::builtin());
}

// Each all-to-all moves a rank's 4,096 tokens x 8 copies x 2,048 x 2 B = 134,217,728 B; four a
// MoE layer (dispatch and combine, forward and backward), 48 layers: 192 a step. H100: NVLink
// 900 GB/s both ways, 450e9 B/s one way; one 400 Gb/s NIC a GPU, 50e9 B/s.
constexpr double kBytes = 4096.0 * 8 * 2048 * 2;

TEST(ExpertAllToAll, InsideOneNodeEveryPeerIsOnNvlink) {
  // EP 8: 7/8 x 134,217,728 / 450e9 = 2.60978e-4 s; x 192 = 5.01078e-2 s.
  EXPECT_NEAR(step(qwen3_moe(8), round_profile()).breakdown.ep_comm, 192 * 7.0 / 8 * kBytes / 450e9,
              1e-9);
}

TEST(ExpertAllToAll, AcrossTwoNodesOnlyTheRemoteHalfCrossesTheNetwork) {
  // EP 16 on two nodes: 7 of a rank's 16 shares go over NVLink (1.30489e-4 s) while the 8 for the
  // other node go over its NIC: 8/16 x 134,217,728 / 50e9 = 1.34218e-3 s, the slower; x 192 =
  // 0.257698 s. All 15/16 over the network would take 0.483184 s.
  EXPECT_NEAR(step(qwen3_moe(16), round_profile()).breakdown.ep_comm, 192 * 0.5 * kBytes / 50e9,
              1e-9);
}

TEST(ExpertAllToAll, RanksSpacedByTensorParallelismCountWholeRanksOnANode) {
  // tp 4 x ep 4 over 16 GPUs: a node holds 2 expert ranks, so 1 of 4 shares goes over NVLink and
  // 2 of 4 over the network: 0.5 x 1e6 / 50e9 = 1e-5 s.
  const SpeedProfile p = round_profile();
  const Gpu& h100 = Catalog::builtin().gpu("h100");
  EXPECT_NEAR(alltoall_s(1e6, 4, 4, h100, 8, p.links()), 0.5 * 1e6 / 50e9, 1e-15);
  // Inside the node (ep 2 x tp 4): 1/2 over NVLink.
  EXPECT_NEAR(alltoall_s(1e6, 2, 4, h100, 8, p.links()), 0.5 * 1e6 / 450e9, 1e-15);
}

TEST(ExpertAllToAll, ARackScaleDomainKeepsEveryPeerOnNvlink) {
  // GB200 NVL72 trays of 4 GPUs: EP 64 spans 16 trays but one NVLink domain of 72, so 63/64 of
  // the bytes cross NVLink at 1,800 / 2 GB/s one way: 63/64 x 1e6 / 900e9 = 1.09375e-6 s. At EP
  // 144 (two racks) 72 of 144 shares leave the rack over the NIC: 0.5 x 1e6 / 50e9 = 1e-5 s.
  const SpeedProfile p = round_profile();
  const Gpu& gb200 = Catalog::builtin().gpu("gb200-186gb");
  EXPECT_NEAR(alltoall_s(1e6, 64, 1, gb200, 4, p.links()), 63.0 / 64 * 1e6 / 900e9, 1e-15);
  EXPECT_NEAR(alltoall_s(1e6, 144, 1, gb200, 4, p.links()), 0.5 * 1e6 / 50e9, 1e-15);
}

}  // namespace
}  // namespace gpusizer
