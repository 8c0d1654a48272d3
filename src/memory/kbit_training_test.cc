// bitsandbytes QLoRA memory against hand-derived bytes (kbit_training.cc, activations.cc).
#include "memory/kbit_training.h"

#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "gpusizer/json/api.h"
#include "memory/memory_parts.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

Scenario qlora(const std::string& engine) {
  Scenario s = unit_scenario(
      {.model = "llama-3.1-8b", .weights = "nf4", .task = Task::kQlora, .engine = engine});
  s.batch = 1;
  s.seq_len = 4096;
  s.training.mixed_precision = MixedPrecision::kBf16;
  s.training.recompute = Recompute::kFull;
  s.training.flash_attention = true;
  s.training.lora_rank = 16;
  s.training.lora_targets = {"q_proj", "v_proj"};
  return s;
}

TEST(Kbit, Nf4BaseLayerBytes) {
  // One Llama-3.1-8B decoder layer: q 4096x4096 + k, v 4096x1024 + o 4096x4096 + gate, up, down
  // 4096x14336 = 16,777,216 x 2 + 4,194,304 x 2 + 58,720,256 x 3 = 218,103,808 matrix params at
  // 4 + 8/64 + 32/(64 x 256) = 4.127 bits (NF4 blocks of 64, 8-bit absmax, fp32 absmax per 256
  // blocks) = 112,515,301 B, plus two RMSNorm weights of 4,096 in bf16 = 16,384 B, plus the
  // layer's LoRA adapters, which torchtune builds in the model's bf16 (r 16 on q: 16 x (4,096 +
  // 4,096), on v: 16 x (4,096 + 1,024) = 212,992 params x 2 B = 425,984 B).
  Scenario s = qlora("torchtune");
  const Catalog& cat = Catalog::builtin();
  const double l32 = memory::weights(s, cat, memory::engine_rules(s, cat), count_model(s), nullptr);
  s.model.edit().num_layers = 31;
  const double l31 = memory::weights(s, cat, memory::engine_rules(s, cat), count_model(s), nullptr);
  EXPECT_NEAR(l32 - l31, 218103808.0 * 4.127 / 8 + 16384.0 + 425984.0, 2.0);
}

TEST(Kbit, PeftCastsEmbeddingHeadAndNormsToFp32) {
  // prepare_model_for_kbit_training: embedding and untied head 128,256 x 4,096 each and
  // 65 x 4,096 norm weights go from 2 to 4 bytes: 2 x (2 x 525,336,576 + 266,240) B.
  const Catalog& cat = Catalog::builtin();
  const Scenario s = qlora("hf");
  EXPECT_TRUE(memory::kbit_fp32_upcast(s, cat.engine("hf")));
  EXPECT_FALSE(memory::kbit_fp32_upcast(s, cat.engine("torchtune")));
  EXPECT_DOUBLE_EQ(memory::kbit_upcast_extra_bytes(s, cat.engine("hf"), count_params(*s.model)),
                   2.0 * (2.0 * 525336576.0 + 266240.0));
  // A sharded (ZeRO-3) run loads Params4bit on cpu/meta and TRL skips the call.
  Scenario sharded = s;
  sharded.training.zero_stage = 3;
  EXPECT_EQ(
      memory::kbit_upcast_extra_bytes(sharded, cat.engine("hf"), count_params(*sharded.model)),
      0.0);
}

TEST(Kbit, CheckpointedLayerInputsAreFp32UnderPeft) {
  // Full recomputation keeps each layer's input: 4,096 tokens x 4,096 x 4 B = 67,108,864 B per
  // layer when the residual stream is fp32 (PEFT-prepared), 33,554,432 B in bf16 (torchtune).
  const Catalog& cat = Catalog::builtin();
  Scenario hf = qlora("hf");
  Scenario tt = qlora("torchtune");
  auto per_layer = [&](Scenario s) {
    const double a = memory::activations(s, cat, nullptr);
    s.model.edit().num_layers = 31;
    return a - memory::activations(s, cat, nullptr);
  };
  EXPECT_NEAR(per_layer(hf), 4096.0 * 4096 * 4, 1.0);
  EXPECT_NEAR(per_layer(tt), 4096.0 * 4096 * 2, 1.0);
}

}  // namespace
}  // namespace gpusizer
