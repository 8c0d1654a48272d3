// Megatron-Core's selective recompute_modules (gradient_checkpointing as a list): what each frees
// of a layer's saved tensors (activations.cc recomputed_module_bytes) and what the step replays
// (training_speed.cc module_replay_flops), against numbers derived by hand.
#include <gtest/gtest.h>

#include <string>

#include "gpusizer/catalog.h"
#include "gpusizer/error.h"
#include "gpusizer/json/scenario.h"
#include "memory/memory_parts.h"
#include "speed/training_speed.h"
#include "testing/refused_field.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

// One 4,096-token sequence through every layer on one GPU under Megatron, selective
// recomputation with the modules `mods` (0: "selective", core_attn).
Scenario megatron(const char* model, uint8_t mods) {
  Scenario s = unit_scenario({.model = model, .task = Task::kPretrain, .engine = "megatron"});
  s.batch = 1;
  s.seq_len = 4096;
  s.training.mixed_precision = MixedPrecision::kBf16;
  s.training.flash_attention = true;
  s.training.recompute = Recompute::kSelective;
  s.training.recompute_modules = mods;
  return s;
}

double freed(const char* model, uint8_t mods) {
  const Catalog& cat = Catalog::builtin();
  return memory::activations(megatron(model, 0), cat, nullptr) -
         memory::activations(megatron(model, mods), cat, nullptr);
}

TEST(RecomputeModules, MlaUpProjFreesThePerHeadQueriesKeysAndValues) {
  // DeepSeek-V3: 128 heads of q and k 192 (128 + 64 rope) and v 128: 2 x 192 + 128 = 512 values
  // a head, 65,536 a token and layer, 2 B each, x 61 layers x 4,096 tokens = 32,749,125,632 B.
  EXPECT_NEAR(freed("deepseek-v3", kRecomputeMlaUpProj | kRecomputeCoreAttn), 32749125632.0, 1.0);
}

TEST(RecomputeModules, MlpKeepsOnlyItsInput) {
  // Llama 3.1 8B under Megatron (fused SwiGLU): a layer's MLP saves its fc1 input 4,096, the fc1
  // output 2 x 14,336 and the fc2 input 14,336, x 2 B = 94,208 B a token; checkpointed it keeps
  // its 4,096-value input, 8,192 B: 86,016 B freed x 32 layers x 4,096 tokens = 11,274,289,152 B.
  EXPECT_NEAR(freed("llama-3.1-8b", kRecomputeMlp | kRecomputeCoreAttn), 11274289152.0, 1.0);
}

TEST(RecomputeModules, ReplayedGemmsOfTheModules) {
  // Llama 3.1 8B, mlp: 3 matrices of 4,096 x 14,336 in 32 layers, 2 FLOPs each a token:
  // 11,274,289,152 FLOPs replayed a token; without core_attn the attention core is not.
  Scenario s = megatron("llama-3.1-8b", kRecomputeMlp);
  const double none = training_flops_per_token(megatron("llama-3.1-8b", 0));
  const double mlp = training_flops_per_token(s);
  s.training.recompute = Recompute::kNone;
  const double plain = training_flops_per_token(s);
  EXPECT_NEAR(mlp - plain, 11274289152.0, 1.0);
  EXPECT_GT(none, plain);  // "selective" alone replays the attention core
}

TEST(RecomputeModules, ParsedFromAListOfMegatronNames) {
  nlohmann::json j = {{"model", "llama-3.1-8b"},
                      {"task", "pretrain"},
                      {"engine", "megatron"},
                      {"training", {{"gradient_checkpointing", {"core_attn", "mlp"}}}}};
  const Scenario s = parse_scenario(j, Catalog::builtin());
  EXPECT_EQ(s.training.recompute, Recompute::kSelective);
  EXPECT_EQ(s.training.recompute_modules, kRecomputeCoreAttn | kRecomputeMlp);
  const nlohmann::json bads[] = {nlohmann::json::array(), nlohmann::json{"mpl"}, nlohmann::json{1}};
  for (const nlohmann::json& bad : bads) {
    j["training"]["gradient_checkpointing"] = bad;
    EXPECT_EQ(testing::refused_field(j), "training.gradient_checkpointing") << bad.dump();
  }
}

}  // namespace
}  // namespace gpusizer
