// The optimizer step as a memory phase (memory_estimate.cc step_temporaries, place_step_peak).
#include <gtest/gtest.h>

#include <string>

#include "gpusizer/catalog.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

// Llama 3.1 8B, LoRA r = 8 on q_proj and v_proj with PEFT's modules_to_save copies of the
// embedding and the head, 256 tokens, gradient checkpointing, 8 micro-batches per step: the
// activations are small beside what the step allocates.
MemoryEstimate saved_edges(const char* engine, const char* optimizer,
                           const char* gpu = "a100-sxm4-80gb") {
  const nlohmann::json training = {{"lora_rank", 8},
                                   {"lora_targets", {"q_proj", "v_proj"}},
                                   {"modules_to_save", {"embed_tokens", "lm_head"}},
                                   {"optimizer", optimizer},
                                   {"gradient_checkpointing", true},
                                   {"grad_accum", 8}};
  const nlohmann::json j = {
      {"model", "llama-3.1-8b"}, {"task", "lora"}, {"engine", engine},    {"gpu", gpu},
      {"seq_len", 256},          {"batch", 1},     {"training", training}};
  return estimate(parse_scenario(j, Catalog::builtin()), Catalog::builtin(), Detail::kMemory)
      .memory;
}

TEST(OptimizerStep, ForeachAdamwTemporaryIsOneSecondMomentOfEveryTrainableValue) {
  // Adapters: 32 layers x r (in + out): q_proj 8 x (4,096 + 4,096) = 65,536, v_proj
  // 8 x (4,096 + 1,024) = 40,960; 32 x 106,496 = 3,407,872 fp32 values (PEFT).
  // Saved copies: embedding and untied head 2 x 128,256 x 4,096 = 1,050,673,152 bf16 values.
  // AdamW states (exp_avg, exp_avg_sq, like each parameter):
  //   3,407,872 x 8 B + 1,050,673,152 x 4 B = 27,262,976 + 4,202,692,608 = 4,229,955,584 B.
  // The foreach step's exp_avg_sq_sqrt = torch._foreach_sqrt(exp_avg_sqs) per (device, dtype)
  // group; the fp32 group's list is still bound when the bf16 group's is built, so both live:
  //   3,407,872 x 4 B + 1,050,673,152 x 2 B = 13,631,488 + 2,101,346,304 = 2,114,977,792 B.
  // At the step: 4,229,955,584 + 2,114,977,792 = 6,344,933,376 B, activations freed.
  const MemoryEstimate m = saved_edges("hf", "adamw");
  EXPECT_EQ(std::string(m.peak_phase), "optimizer step (activations freed, gradients held)");
  EXPECT_DOUBLE_EQ(m.optimizer, 6344933376.0);
  EXPECT_EQ(m.activations, 0.0);
  // Gradients are held at the step: adapters 3,407,872 x 4 B + copies 1,050,673,152 x 2 B.
  EXPECT_DOUBLE_EQ(m.gradients, 2114977792.0);
}

TEST(OptimizerStep, FusedAndPerTensorOptimizersBuildNoWholeModelTemporary) {
  // torchtune's configs take torch.optim.AdamW(fused=True): the backward stays the peak.
  const MemoryEstimate tune = saved_edges("torchtune", "adamw");
  EXPECT_NE(std::string(tune.peak_phase), "optimizer step (activations freed, gradients held)");
  EXPECT_GT(tune.activations, 0.0);
  // bitsandbytes 8-bit AdamW updates each tensor in its own kernel.
  const MemoryEstimate bnb = saved_edges("hf", "adamw-8bit");
  EXPECT_NE(std::string(bnb.peak_phase), "optimizer step (activations freed, gradients held)");
  EXPECT_GT(bnb.activations, 0.0);
  // On Apple's MPS torch.optim takes the per-tensor loop: no foreach list.
  const MemoryEstimate mps = saved_edges("hf", "adamw", "apple-m2-ultra-192gb");
  EXPECT_NE(std::string(mps.peak_phase), "optimizer step (activations freed, gradients held)");
  EXPECT_GT(mps.activations, 0.0);
}

}  // namespace
}  // namespace gpusizer
