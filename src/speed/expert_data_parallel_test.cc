// The data-parallel gradient traffic of a mixture-of-experts model under expert parallelism:
// the dense parameters' gradients are reduced over every data-parallel rank, each routed
// expert's only over the ranks that hold a copy of it (training_speed.cc shard_bytes;
// Megatron-Core's expert-data-parallel group). On the round profile (links at line rate, no
// latency) the times are in the ratio of the bytes, checked by hand below.
#include <gtest/gtest.h>

#include "gpusizer/json/scenario.h"
#include "speed/testing_training_speed.h"

namespace gpusizer {
namespace {

using testing::round_profile;
using testing::step;

// Mixtral-8x7B: 45,097,156,608 routed-expert parameters (32 layers x 8 x 3 x 4,096 x 14,336)
// of 46,702,792,704; 1,605,636,096 dense. Pre-training on 8 H100 under Megatron, ZeRO-1.
Scenario mixtral(int64_t ep, int64_t dp) {
  return parse_scenario({{"model", "mixtral-8x7b-v0.1"},
                         {"task", "pretrain"},
                         {"engine", "megatron"},
                         {"gpu", "h100"},
                         {"gpu_count", 8},
                         {"seq_len", 4096},
                         {"batch", 1},
                         {"parallel", {{"tp", 1}, {"pp", 1}, {"ep", ep}, {"dp", dp}}},
                         {"training", {{"zero_stage", 1}, {"global_batch", 8}}}},
                        Catalog::builtin());
}

constexpr double kTotal = 46'702'792'704.0;
constexpr double kExperts = 45'097'156'608.0;
constexpr double kDense = kTotal - kExperts;

TEST(ExpertDataParallel, ExpertGradientsReduceOnlyAmongTheirCopies) {
  const SpeedProfile p = round_profile();
  // No expert parallelism: all 46.7B gradients all-reduced over 8 ranks.
  const double plain = step(mixtral(1, 8), p).dp_comm_s;
  ASSERT_GT(plain, 0.0);
  // EP 8: each expert lives on one GPU, so only the dense gradients travel, over the 8 ranks
  // that hold them all: 1,605,636,096 / 46,702,792,704 = 0.03438 of the traffic.
  EXPECT_NEAR(step(mixtral(8, 1), p).dp_comm_s / plain, kDense / kTotal, 1e-9);
  // EP 4 x dp 2: the dense gradients over 8 ranks (2 x 7/8 of them) and a GPU's quarter of the
  // experts over the 2 ranks holding it (2 x 1/2 of them), against 2 x 7/8 of them all:
  // (1.75 x 1,605,636,096 + 0.25 x 45,097,156,608) / (1.75 x 46,702,792,704) = 0.17232.
  const double four = step(mixtral(4, 2), p).dp_comm_s;
  EXPECT_NEAR(four / plain, (1.75 * kDense + 0.25 * kExperts) / (1.75 * kTotal), 1e-9);
}

}  // namespace
}  // namespace gpusizer
