// Optimizer states of PEFT modules_to_save copies (model_states.cc optimizer_states).
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

MemoryEstimate lora(const char* engine, int zero_stage, bool save_edges) {
  nlohmann::json training = {{"lora_rank", 8},
                             {"lora_targets", {"q_proj", "v_proj"}},
                             {"optimizer", "adamw"},
                             {"zero_stage", zero_stage}};
  if (save_edges) training["modules_to_save"] = {"embed_tokens", "lm_head"};
  const nlohmann::json j = {{"model", "llama-3.1-8b"}, {"task", "lora"},  {"engine", engine},
                            {"gpu", "a100-sxm4-80gb"}, {"seq_len", 2048}, {"training", training}};
  return estimate(parse_scenario(j, Catalog::builtin()), Catalog::builtin(), Detail::kMemory)
      .memory;
}

TEST(SavedModuleStates, TorchOptimizerKeepsThemInTheCopiesBf16) {
  // Llama 3.1 8B: embedding and untied head 2 x 128,256 x 4,096 = 1,050,673,152 trainable
  // values in bf16 copies. torch AdamW makes exp_avg and exp_avg_sq with zeros_like(p): 2 x 2 B
  // = 4 B each, 4,202,692,608 B (8 B, fp32, was counted before).
  const double saved = 2.0 * 128256 * 4096;
  EXPECT_DOUBLE_EQ(lora("hf", 0, true).optimizer - lora("hf", 0, false).optimizer, saved * 4.0);
}

TEST(SavedModuleStates, ZeroOptimizerKeepsFp32States) {
  // DeepSpeed's ZeRO optimizer steps fp32 partitions, so its Adam states are fp32: 8 B each
  // (one GPU: the partition is the whole).
  EXPECT_DOUBLE_EQ(lora("deepspeed", 2, true).optimizer - lora("deepspeed", 2, false).optimizer,
                   2.0 * 128256 * 4096 * 8.0);
}

}  // namespace
}  // namespace gpusizer
