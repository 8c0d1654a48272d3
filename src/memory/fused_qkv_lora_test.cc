// LoRA on a fused q/k/v Linear (memory_parts.h fused_qkv): one adapter pair, not three.
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

MemoryEstimate qwen_1_8b_lora() {
  // Qwen/Qwen-1.8B config.json; LoRA r = 64 on c_attn, c_proj, w1, w2 as Qwen's finetune.py
  // targets them, named by the projections they are (c_attn = q, k, v; c_proj = o and down).
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
      {"training",
       {{"lora_rank", 64},
        {"optimizer", "adamw"},
        {"lora_targets",
         {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}}}}};
  return estimate(parse_scenario(j, Catalog::builtin()), Catalog::builtin(), Detail::kMemory)
      .memory;
}

TEST(FusedQkvLora, QwenV1CAttnCarriesOneAdapter) {
  // Per layer, r = 64, d = 2,048, MLP width 11,008 / 2 = 5,504:
  //   c_attn (2,048 -> 6,144):      64 x (2,048 + 6,144) = 524,288
  //   attn.c_proj (2,048 -> 2,048): 64 x (2,048 + 2,048) = 262,144
  //   w1, w2 (2,048 -> 5,504):  2 x 64 x (2,048 + 5,504) = 966,656
  //   mlp.c_proj (5,504 -> 2,048):  64 x (5,504 + 2,048) = 483,328
  // = 2,236,416 x 24 layers = 53,673,984 adapter values (three q/k/v adapters would add
  // 2 x 64 x 2,048 x 24 = 6,291,456). PEFT keeps them and their gradients in fp32: 4 B each.
  EXPECT_DOUBLE_EQ(qwen_1_8b_lora().gradients_full, 53673984.0 * 4);
}

}  // namespace
}  // namespace gpusizer
