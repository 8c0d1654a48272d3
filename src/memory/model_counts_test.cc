// count_model against counts derived by hand from the architecture (memory/model_counts.h).
#include "memory/model_counts.h"

#include <gtest/gtest.h>

#include <utility>

#include "gpusizer/catalog.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

Scenario llama2_7b(Task task) {
  Scenario s = unit_scenario({.model = "llama-2-7b", .task = task});
  s.training.lora_rank = 8;
  s.training.lora_targets = {"q_proj", "v_proj"};
  return s;
}

TEST(ModelCounts, Llama2_7bCountedOnce) {
  // Llama-2-7B: vocab 32,000, hidden 4,096, 32 layers, MLP 11,008, 32 heads and KV heads, untied
  // head, RMSNorm. Embedding and head 32,000 x 4,096 = 131,072,000 each; a layer: attention
  // 4 x 4,096^2 = 67,108,864, gated MLP 3 x 4,096 x 11,008 = 135,266,304, two norms 8,192, so
  // 202,383,360 x 32 = 6,476,267,520; final norm 4,096. Total 6,738,415,616 (Meta's model card
  // and the Hugging Face checkpoint's parameter count).
  const ModelCounts c = count_model(llama2_7b(Task::kInference));
  EXPECT_EQ(c.params.total, 6738415616);
  EXPECT_EQ(c.params.embedding, 131072000);
  EXPECT_EQ(c.params.lm_head, 131072000);
  // q, k, v, o, gate, up, down: seven matrices per layer.
  ASSERT_EQ(c.modules.size(), 7u);
  EXPECT_EQ(c.modules[0].in * c.modules[0].out * c.modules[0].count, 4096LL * 4096 * 32);
  EXPECT_EQ(c.trainable.total(), 0.0);  // inference trains nothing
}

TEST(ModelCounts, LoraSplitOfLlama2_7b) {
  // LoRA r 8 on q_proj and v_proj: each adapter is A (8 x 4,096) + B (4,096 x 8) = 65,536, two
  // per layer, 32 layers: 4,194,304 trainable parameters (PEFT's print_trainable_parameters for
  // this model and config), all in the layers.
  const ModelCounts c = count_model(llama2_7b(Task::kLora));
  EXPECT_EQ(c.trainable.layers, 4194304.0);
  EXPECT_EQ(c.trainable.embedding, 0.0);
  EXPECT_EQ(c.trainable.experts, 0.0);
  EXPECT_EQ(c.params.total, 6738415616);
}

TEST(ModelCounts, FullTrainingTrainsEveryParameter) {
  // Full fine-tuning trains all 6,738,415,616; the split keeps the embedding and the untied head
  // apart (131,072,000 each) for the pipeline's first and last stage.
  const ModelCounts c = count_model(llama2_7b(Task::kFull));
  EXPECT_EQ(c.trainable.total(), 6738415616.0);
  EXPECT_EQ(c.trainable.embedding, 131072000.0);
  EXPECT_EQ(c.trainable.lm_head, 131072000.0);
}

TEST(ModelCounts, LoraAndQloraCountTheSame) {
  // QLoRA adapts the same q_proj and v_proj at r 8 as LoRA, and trains the same adapters: their
  // counts are the same, field by field (a change search keeps one set for both tasks), the
  // adapters 4,194,304 (2 x 65,536 x 32 layers) and the trainable parameters those alone.
  const ModelCounts lora = count_model(llama2_7b(Task::kLora));
  const ModelCounts qlora = count_model(llama2_7b(Task::kQlora));
  EXPECT_EQ(lora.adapters.all, 4194304.0);
  EXPECT_EQ(lora.trainable.total(), 4194304.0);
  EXPECT_EQ(qlora.adapters.all, lora.adapters.all);
  EXPECT_EQ(qlora.adapters.active, lora.adapters.active);
  EXPECT_EQ(qlora.lora_modules, lora.lora_modules);
  EXPECT_EQ(qlora.lora_missing_inputs, lora.lora_missing_inputs);
  EXPECT_EQ(qlora.trainable.layers, lora.trainable.layers);
  EXPECT_EQ(qlora.trainable.embedding, lora.trainable.embedding);
  EXPECT_EQ(qlora.trainable.lm_head, lora.trainable.lm_head);
  EXPECT_EQ(qlora.trainable.experts, lora.trainable.experts);
  EXPECT_EQ(qlora.params.total, lora.params.total);
  EXPECT_EQ(qlora.params.active, lora.params.active);
  ASSERT_EQ(qlora.modules.size(), lora.modules.size());
  for (size_t i = 0; i < lora.modules.size(); ++i) {
    EXPECT_EQ(qlora.modules[i].name, lora.modules[i].name);
    EXPECT_EQ(qlora.modules[i].count, lora.modules[i].count);
  }
}

TEST(ModelCounts, ClearedCountsCountAnotherTask) {
  // LoRA's counts with their task's part cleared are ModelCounts(model)'s: counted again for full
  // fine-tuning they are count_model's, every parameter trainable and no adapter.
  ModelCounts c = count_model(llama2_7b(Task::kLora));
  clear_training(c);
  EXPECT_EQ(c.trainable.total(), 0.0);
  EXPECT_EQ(c.adapters.all, 0.0);
  EXPECT_EQ(c.lora_modules, 0u);
  count_training(llama2_7b(Task::kFull), c);
  const ModelCounts full = count_model(llama2_7b(Task::kFull));
  EXPECT_EQ(c.trainable.total(), 6738415616.0);
  EXPECT_EQ(c.trainable.layers, full.trainable.layers);
  EXPECT_EQ(c.trainable.embedding, full.trainable.embedding);
  EXPECT_EQ(c.trainable.lm_head, full.trainable.lm_head);
  EXPECT_EQ(c.params.total, full.params.total);
  EXPECT_EQ(c.modules.size(), full.modules.size());
  EXPECT_EQ(c.adapters.all, full.adapters.all);
  EXPECT_EQ(c.lora_modules, full.lora_modules);
  EXPECT_EQ(c.lora_missing_inputs, full.lora_missing_inputs);
}

}  // namespace
}  // namespace gpusizer
