// LoRA on a fused q/k/v Linear (memory_parts.h fused_qkv; the rule is model_counts.h
// lora_missing_inputs): one adapter pair on Qwen v1's c_attn, not three, in the memory and in
// the training step alike.
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"
#include "speed/training_speed.h"

namespace gpusizer {
namespace {

constexpr const char* kQwenFinetuneTargets[] = {"q_proj",    "k_proj",  "v_proj",   "o_proj",
                                                "gate_proj", "up_proj", "down_proj"};

Scenario qwen_1_8b_lora(const std::vector<std::string>& targets) {
  // Qwen/Qwen-1.8B config.json (model_type "qwen": modeling_qwen.py, c_attn = q, k, v fused).
  // LoRA r = 64 on c_attn, c_proj, w1, w2 as Qwen's finetune.py targets them, named by the
  // projections they are (c_attn = q, k, v; c_proj = o and down).
  const nlohmann::json config = {{"architectures", {"QWenLMHeadModel"}},
                                 {"model_type", "qwen"},
                                 {"hidden_size", 2048},
                                 {"intermediate_size", 11008},
                                 {"num_attention_heads", 16},
                                 {"num_hidden_layers", 24},
                                 {"kv_channels", 128},
                                 {"vocab_size", 151936},
                                 {"seq_length", 8192},
                                 {"max_position_embeddings", 8192},
                                 {"no_bias", true},
                                 {"tie_word_embeddings", false}};
  const nlohmann::json j = {
      {"model", {{"hf_config", config}}},
      {"task", "lora"},
      {"engine", "hf"},
      {"gpu", "a100-sxm4-80gb"},
      {"seq_len", 512},
      {"training", {{"lora_rank", 64}, {"optimizer", "adamw"}, {"lora_targets", targets}}}};
  return parse_scenario(j, Catalog::builtin());
}

Scenario qwen_1_8b_finetune() {
  return qwen_1_8b_lora({std::begin(kQwenFinetuneTargets), std::end(kQwenFinetuneTargets)});
}

// Per layer, r = 64, d = 2,048, MLP width 11,008 / 2 = 5,504:
//   c_attn (2,048 -> 6,144):      64 x (2,048 + 6,144) = 524,288
//   attn.c_proj (2,048 -> 2,048): 64 x (2,048 + 2,048) = 262,144
//   w1, w2 (2,048 -> 5,504):  2 x 64 x (2,048 + 5,504) = 966,656
//   mlp.c_proj (5,504 -> 2,048):  64 x (5,504 + 2,048) = 483,328
// = 2,236,416 x 24 layers = 53,673,984 adapter values (three q/k/v adapters would add
// 2 x 64 x 2,048 x 24 = 6,291,456).
constexpr double kAdapterValues = 53673984.0;

TEST(FusedQkvLora, QwenV1CAttnCarriesOneAdapter) {
  // PEFT keeps the adapters and their gradients in fp32: 4 B each.
  const MemoryEstimate m =
      estimate(qwen_1_8b_finetune(), Catalog::builtin(), Detail::kMemory).memory;
  EXPECT_DOUBLE_EQ(m.gradients_full, kAdapterValues * 4);
}

TEST(FusedQkvLora, TrainingStepCountsOneAdapterOnCAttn) {
  // No experts: every adapter is active.
  const Scenario s = qwen_1_8b_finetune();
  EXPECT_DOUBLE_EQ(lora_params(*s.model, s.training, false), kAdapterValues);
  EXPECT_DOUBLE_EQ(lora_params(*s.model, s.training, true), kAdapterValues);
}

TEST(FusedQkvLora, PartOfTheFusedLinearKeepsItsOwnCount) {
  // Only q_proj named: the rule needs all three of the fused Linear's projections adapted, so
  // the count stays the listed one: 24 x 64 x (2,048 + 2,048) = 6,291,456.
  const Scenario s = qwen_1_8b_lora({"q_proj"});
  EXPECT_DOUBLE_EQ(lora_params(*s.model, s.training, false), 6291456.0);
}

}  // namespace
}  // namespace gpusizer
