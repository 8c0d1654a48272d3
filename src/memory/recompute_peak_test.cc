// Full recomputation: the loss tensors and the recomputed layer never coexist (activations.cc,
// peak_beside_checkpoints).
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "memory/memory_parts.h"

namespace gpusizer {
namespace {

// torchtune's September-2024 README row: Llama 3.1 8B LoRA (q_proj, v_proj, rank 8), batch 2 x
// 2,048 tokens, pure bf16, activation checkpointing, compiled CEWithChunkedOutputLoss.
Scenario tt_lora() {
  const Catalog& cat = Catalog::builtin();
  Scenario s;
  s.model = cat.model("llama-3.1-8b");
  s.weights = cat.format("bf16", "weights", "weights");
  s.kv_cache = cat.format("bf16", "kv", "kv_cache");
  s.task = Task::kLora;
  s.engine = "torchtune";
  s.batch = 2;
  s.seq_len = 2048;
  s.training.mixed_precision = MixedPrecision::kBf16;
  s.training.recompute = Recompute::kFull;
  s.training.flash_attention = true;
  s.training.lora_rank = 8;
  s.training.lora_targets = {"q_proj", "v_proj"};
  s.training.chunked_loss = true;
  s.training.compile = true;
  return s;
}

TEST(RecomputePeak, CheckpointsPlusTheLargerPhase) {
  // 4,096 tokens. Checkpoints: 32 layers x 4,096 x 4,096 hidden x 2 B = 1,073,741,824 B.
  // Loss phase: 4,096 x 128,256 vocabulary x 2.25 B (compiled chunks) = 1,182,007,296 B, plus
  // the final norm's fp32 input and the head's bf16 input, 4,096 x 4,096 x (4 + 2) B =
  // 100,663,296 B: 1,282,670,592 B.
  // Recompute phase: one layer's saved bytes per token, two fp32 norm inputs 2 x 4 x 4,096 =
  // 32,768; the q and v adapters' fp32 inputs and rank-8 fp32 outputs 2 x (4 x 4,096 + 4 x 8) =
  // 32,832; FlashAttention's Q, K, V (4,096 + 2 x 1,024) x 2 B, output 4,096 x 2 B and 32 heads'
  // fp32 log-sum-exp: 20,608; gate, SiLU(gate) and up 3 x 14,336 x 2 B = 86,016: 172,224 B per
  // token x 4,096 = 705,429,504 B, plus the layer output's gradient 4,096 x 4,096 x 2 B =
  // 33,554,432 B: 738,983,936 B, smaller than the loss phase.
  // Peak: 1,073,741,824 + 1,282,670,592 = 2,356,412,416 B (the sum of both phases would add
  // 705,429,504 B more).
  const Catalog& cat = Catalog::builtin();
  EXPECT_NEAR(memory::activations(tt_lora(), cat, nullptr), 2356412416.0, 1.0);
}

TEST(RecomputePeak, TheSmallerPhaseDoesNotCount) {
  // Adapting k_proj too adds 4 x 4,096 + 4 x 8 B per token to the recompute phase (to 172,224 +
  // 16,416 = 188,640 B x 4,096 + 33,554,432 = 806,219,776 B), still below the loss phase's
  // 1,282,670,592 B: the peak does not move.
  const Catalog& cat = Catalog::builtin();
  Scenario s = tt_lora();
  const double two = memory::activations(s, cat, nullptr);
  s.training.lora_targets = {"q_proj", "k_proj", "v_proj"};
  EXPECT_EQ(memory::activations(s, cat, nullptr), two);
}

}  // namespace
}  // namespace gpusizer
