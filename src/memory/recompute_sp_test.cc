// Full recomputation under tensor and sequence parallelism (activations.cc).
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "memory/memory_parts.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

// torchtitan Llama 3.1 70B, FSDP 32 x TP 8, local batch 16 x 8,192 tokens, full AC
// (torchtitan benchmarks/llama3_h100_202412_torchtitan.md, table 4).
Scenario titan(bool sp) {
  Scenario s = unit_scenario({.model = "llama-3.1-70b", .task = Task::kPretrain, .engine = "fsdp"});
  s.batch = 16;
  s.seq_len = 8192;
  s.parallel.tp = 8;
  s.parallel.dp = 32;
  s.parallel.sequence_parallel = sp;
  s.training.mixed_precision = MixedPrecision::kBf16;
  s.training.recompute = Recompute::kFull;
  s.training.flash_attention = true;
  s.training.zero_stage = 3;
  return s;
}

double one_layer(Scenario s) {
  const Catalog& cat = Catalog::builtin();
  const double all = memory::activations(s, cat, nullptr);
  s.model.edit().num_layers -= 1;
  return all - memory::activations(s, cat, nullptr);
}

TEST(RecomputeSp, CheckpointedInputIsShardedAlongTheSequence) {
  // Each layer keeps its input, 16 x 8,192 tokens x 8,192 hidden x 2 B = 2,147,483,648 B; with
  // sequence parallelism each TP rank keeps 1/8 of the sequence: 268,435,456 B (Korthikanti et
  // al. 2022 table 2, full recomputation with SP: 2sbh/t per layer).
  EXPECT_NEAR(one_layer(titan(true)), 268435456.0, 1.0);
  EXPECT_NEAR(one_layer(titan(false)), 2147483648.0, 1.0);
}

TEST(RecomputeSp, SequenceParallelShardsTheEdgesToo) {
  // Beyond the 79 further layer inputs (7/8 of 2 GiB each), the embedding output and the final
  // norm input (16 x 8,192 x 8,192 x (4 + 2) B = 6,442,450,944 B) shrink by 7/8 as well, and
  // the recomputed layer's norm inputs: the whole difference is at least the first two terms.
  const Catalog& cat = Catalog::builtin();
  const double with = memory::activations(titan(true), cat, nullptr);
  const double without = memory::activations(titan(false), cat, nullptr);
  EXPECT_GT(without - with, 7.0 / 8.0 * (80 * 2147483648.0 + 6442450944.0));
}

}  // namespace
}  // namespace gpusizer
