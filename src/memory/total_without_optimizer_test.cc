// The least device total of a training scenario with another optimizer (memory_estimate.cc
// total_without_optimizer), the bound by which a change search skips a combination that adds
// 8-bit AdamW to one past the GPU. Values checked by hand in the comments.
#include <gtest/gtest.h>

#include <string>

#include "estimate/layout.h"
#include "gpusizer/catalog.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"
#include "memory/memory_estimate.h"
#include "testing/resolved_scenario.h"

namespace gpusizer {
namespace {

const Catalog& cat() {
  return Catalog::builtin();
}

MemoryEstimate memory_of(const Scenario& s) {
  return estimate(s, cat(), Detail::kMemory).memory;
}

double bound_of(const Scenario& s) {
  return total_without_optimizer(s, memory_of(s), cat().engine(s.engine));
}

// Full fine-tuning of Llama-2-7B (6,738,415,616 parameters) on one H100 with HF transformers
// (allocator fraction 0.06), batch 8: the peak is at the loss whatever the optimizer. AdamW's
// states are two fp32 moments, 8 B x 6,738,415,616 = 53,907,324,928 B; its total less 1.06 x
// that is 203,268,563,108 - 57,141,764,423.68 = 146,126,798,684 B, plain SGD's total (no
// states: bf16 weights, fp32 master copy and the activations at the loss, as AdamW's).
TEST(TotalWithoutOptimizer, AdamwLessItsStatesIsPlainSgd) {
  auto full = [](const char* optimizer) {
    return testing::resolved_scenario({{"model", "llama-2-7b"},
                                       {"task", "full"},
                                       {"gpu", "h100"},
                                       {"batch", 8},
                                       {"training", {{"optimizer", optimizer}}}});
  };
  const Scenario adamw = full("adamw");
  const MemoryEstimate m = memory_of(adamw);
  ASSERT_EQ(m.peak_phase, "loss (before any gradient exists)");
  EXPECT_DOUBLE_EQ(m.optimizer, 53'907'324'928.0);
  EXPECT_NEAR(m.total, 203'268'563'108.0, 1.0);
  const double bound = bound_of(adamw);
  EXPECT_NEAR(bound, 146'126'798'684.0, 200.0);  // less a part in 10^9 for rounding
  // No other optimizer goes below it: none (plain SGD) is the bound itself.
  for (const char* other : {"sgd", "adamw-8bit", "sgd-momentum", "lion", "adafactor"}) {
    const double total = memory_of(full(other)).total;
    EXPECT_LE(bound, total) << other;
    if (std::string(other) == "sgd") {
      EXPECT_NEAR(total, 146'126'798'684.0, 1.0);
    }
  }
}

// The optimizer step as the peak (optimizer_step_test's scenario: LoRA of Llama 3.1 8B, 8
// micro-batches, the foreach AdamW temporaries outgrow the activations): AdamW's optimizer bytes
// at the peak are its states and the step's temporaries, 6,344,933,376 B; without them the
// other optimizers' peaks (8-bit AdamW and plain SGD build no temporaries) stay above the bound.
TEST(TotalWithoutOptimizer, HoldsWhenTheStepIsThePeak) {
  auto lora = [](const char* optimizer) {
    const nlohmann::json training = {{"lora_rank", 8},
                                     {"lora_targets", {"q_proj", "v_proj"}},
                                     {"modules_to_save", {"embed_tokens", "lm_head"}},
                                     {"optimizer", optimizer},
                                     {"gradient_checkpointing", true},
                                     {"grad_accum", 8}};
    return testing::resolved_scenario({{"model", "llama-3.1-8b"},
                                       {"task", "lora"},
                                       {"gpu", "a100-sxm4-80gb"},
                                       {"seq_len", 256},
                                       {"batch", 1},
                                       {"training", training}});
  };
  const Scenario adamw = lora("adamw");
  const MemoryEstimate m = memory_of(adamw);
  ASSERT_EQ(m.peak_phase, "optimizer step (activations freed, gradients held)");
  EXPECT_DOUBLE_EQ(m.optimizer, 6'344'933'376.0);
  const double bound = bound_of(adamw);
  EXPECT_LT(bound, m.total - 6e9);
  for (const char* other : {"sgd", "adamw-8bit"}) {
    const MemoryEstimate o = memory_of(lora(other));
    EXPECT_LE(bound, o.total) << other;
    EXPECT_GT(o.total, bound + o.optimizer) << other;  // the activations come back at its peak
  }
}

// No bound where the optimizer is not what the total leaves out: serving, and a paged optimizer
// (its states count in the overhead, outside the allocator).
TEST(TotalWithoutOptimizer, NoneForServingOrAPagedOptimizer) {
  const Scenario serving = testing::resolved_scenario({{"model", "llama-3.1-8b"}, {"gpu", "h100"}});
  EXPECT_EQ(bound_of(serving), 0.0);
  const Scenario paged =
      testing::resolved_scenario({{"model", "llama-2-7b"},
                                  {"task", "full"},
                                  {"gpu", "h100"},
                                  {"training", {{"optimizer", "paged-adamw-8bit"}}}});
  EXPECT_EQ(bound_of(paged), 0.0);
}

}  // namespace
}  // namespace gpusizer
