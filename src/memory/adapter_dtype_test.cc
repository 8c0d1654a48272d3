// The LoRA adapters' dtype by engine (engines.json adapters_fp32; model_states.cc adapter_bytes).
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

MemoryEstimate lora_on(const char* engine) {
  const nlohmann::json j = {
      {"model", "llama-3.1-8b"},
      {"task", "lora"},
      {"engine", engine},
      {"gpu", "a100-sxm4-80gb"},
      {"seq_len", 2048},
      {"training",
       {{"lora_rank", 8}, {"lora_targets", {"q_proj", "v_proj"}}, {"optimizer", "adamw"}}}};
  return estimate(parse_scenario(j, Catalog::builtin()), Catalog::builtin(), Detail::kMemory)
      .memory;
}

TEST(AdapterDtype, TorchtuneKeepsAdaptersAndTheirStatesInBf16) {
  // Llama 3.1 8B (32 layers, hidden 4,096, 8 KV heads x 128 = 1,024), rank 8 on q and v:
  // 32 x 8 x ((4,096 + 4,096) + (4,096 + 1,024)) = 3,407,872 adapter parameters.
  // PEFT (hf): fp32 adapter 4 B + fp32 gradient 4 B + AdamW's two fp32 states 8 B = 16 B each.
  // torchtune builds them in bf16: 2 + 2 + 4 = 8 B each. The difference: 3,407,872 x 8 B.
  // (Gradients as they all exist at the end of the backward; the peak here is at the loss.)
  const MemoryEstimate hf = lora_on("hf"), tt = lora_on("torchtune");
  EXPECT_DOUBLE_EQ(hf.weights - tt.weights, 3407872.0 * 2);
  EXPECT_DOUBLE_EQ(hf.gradients_full - tt.gradients_full, 3407872.0 * 2);
  EXPECT_DOUBLE_EQ(hf.optimizer - tt.optimizer, 3407872.0 * 4);
  EXPECT_DOUBLE_EQ(hf.gradients_full, 3407872.0 * 4);
}

}  // namespace
}  // namespace gpusizer
