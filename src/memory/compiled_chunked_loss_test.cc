// The compiled chunked cross-entropy (activations.cc, torchtune compile_loss).
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "memory/memory_parts.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

// torchtune's September-2024 README row: Llama 3.1 8B LoRA on one RTX 4090, batch 2, packed
// 2048 tokens, activation checkpointing, CEWithChunkedOutputLoss.
Scenario tt_lora(bool compile, bool chunked) {
  Scenario s = unit_scenario({.model = "llama-3.1-8b", .task = Task::kLora, .engine = "torchtune"});
  s.batch = 2;
  s.seq_len = 2048;
  s.training.mixed_precision = MixedPrecision::kBf16;
  s.training.recompute = Recompute::kFull;
  s.training.flash_attention = true;
  s.training.lora_targets = {"q_proj", "v_proj"};
  s.training.chunked_loss = chunked;
  s.training.compile = compile;
  return s;
}

TEST(CompiledChunkedLoss, KeepsTheBf16ChunksInsteadOfTheFp32LogSoftmax) {
  // Eager: every chunk's bf16 logits (2 B) and saved fp32 log-softmax (4 B) = 6 B per logit.
  // Compiled with its upcast: the bf16 chunks (2 B) and one of the 8 chunks' bf16 gradient
  // (2 / 8 B) = 2.25 B. 2 x 2048 = 4,096 tokens x 128,256 vocabulary = 525,336,576 logits;
  // x (6 - 2.25) B = 1,970,012,160 B less.
  const Catalog& cat = Catalog::builtin();
  const double eager = memory::activations(tt_lora(false, true), cat, nullptr);
  const double compiled = memory::activations(tt_lora(true, true), cat, nullptr);
  EXPECT_NEAR(eager - compiled, 1970012160.0, 1.0);
}

TEST(CompiledChunkedLoss, CompileAloneChangesNothing) {
  // Only the chunked loss's compiled form is modelled; an unchunked loss keeps its bytes.
  const Catalog& cat = Catalog::builtin();
  EXPECT_EQ(memory::activations(tt_lora(true, false), cat, nullptr),
            memory::activations(tt_lora(false, false), cat, nullptr));
}

}  // namespace
}  // namespace gpusizer
