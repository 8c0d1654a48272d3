// FP8 training's memory against figures derived by hand from Transformer Engine's and
// Megatron's rules (fp8_training.h): how the layers' weights are held, the FP8 inputs saved for
// the backward.
#include "memory/fp8_training.h"

#include <gtest/gtest.h>

#include <string>

#include "gpusizer/catalog.h"
#include "gpusizer/error.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/scenario.h"
#include "testing/refused_field.h"

namespace gpusizer {
namespace {

using nlohmann::json;

// Llama 3.1 8B pre-training, one 4096-token sequence, no recomputation, FlashAttention.
json llama8b(const std::string& engine, const std::string& precision,
             const std::string& gpu = "h100-sxm5-80gb") {
  return {{"model", "llama-3.1-8b"},
          {"task", "pretrain"},
          {"engine", engine},
          {"gpu", gpu},
          {"seq_len", 4096},
          {"batch", 1},
          {"training", {{"mixed_precision", precision}}}};
}

double mem(const json& scenario, const char* key) {
  return estimate_json(scenario)["memory"][key].get<double>();
}

// Llama 3.1 8B's layers: 32 x (attention 4096 x (4096 + 1024 + 1024) + 4096 x 4096 = 41,943,040,
// MLP 3 x 4096 x 14336 = 176,160,768, two norms 8,192) = 6,979,584,000 parameters, the final
// norm's 4,096 maybe with them.
constexpr double kLayerParams = 6979584000.0;

TEST(Fp8Training, MegatronHoldsItsLayersInFp8) {
  // fp8_param_gather: the layers' weights are FP8 alone (the fp32 master in the optimizer). On
  // H100 a row-wise and a transposed copy, 1 B each: as many bytes as bf16. On B200 the FP8
  // GEMM takes either layout: one copy, 1 B less than bf16 a layer parameter; MXFP8 keeps both
  // with a scale per 32 values: 2 x 1.03125 B, 0.0625 B more.
  const auto delta = [](const char* precision, const char* gpu) {
    return mem(llama8b("megatron", precision, gpu), "weights_bytes") -
           mem(llama8b("megatron", "bf16", gpu), "weights_bytes");
  };
  EXPECT_NEAR(delta("fp8", "h100-sxm5-80gb"), 0.0, 1.0);
  EXPECT_NEAR(delta("fp8", "b200-180gb"), -kLayerParams, 4096);
  EXPECT_NEAR(delta("mxfp8", "b200-180gb"), 0.0625 * kLayerParams, 0.0625 * 4096 + 1);
}

TEST(Fp8Training, WeightBytesByHowTheEngineHoldsThem) {
  // Per layer parameter beside a 2-byte working copy (fp8_training.h): TE's cached copies add
  // 2 x 1 B on H100 and 1 B on B200; ZeRO-3 keeps no copies and shards FP8 weights row-wise.
  Scenario s = parse_scenario(llama8b("megatron", "fp8"), Catalog::builtin());
  EngineProfile engine = Catalog::builtin().engine("megatron");
  engine.fp8_weights = Fp8Weights::kCached;
  EXPECT_DOUBLE_EQ(memory::fp8_weight_bytes(s, engine, 2.0), 4.0);
  s.gpu = Catalog::builtin().gpu_ref("b200-180gb");
  EXPECT_DOUBLE_EQ(memory::fp8_weight_bytes(s, engine, 2.0), 3.0);
  engine.fp8_weights = Fp8Weights::kPerPass;
  EXPECT_DOUBLE_EQ(memory::fp8_weight_bytes(s, engine, 2.0), 2.0);
  engine.fp8_weights = Fp8Weights::kPrimary;
  s.training.zero_stage = 3;
  EXPECT_DOUBLE_EQ(memory::fp8_weight_bytes(s, engine, 2.0), 1.0);
  s.training.mixed_precision = MixedPrecision::kBf16;
  EXPECT_LT(memory::fp8_weight_bytes(s, engine, 2.0), 0.0);  // not an FP8 recipe
}

TEST(Fp8Training, EnginesThatCastAtEachPassHoldTheBf16WeightsAlone) {
  // accelerate's TE backend calls te.Linear without is_first_microbatch; torchao casts per pass.
  for (const char* engine : {"hf", "fsdp"})
    EXPECT_EQ(mem(llama8b(engine, "fp8"), "weights_bytes"),
              mem(llama8b(engine, "bf16"), "weights_bytes"))
        << engine;
}

TEST(Fp8Training, TransformerEngineSavesFp8InputsForTheWeightGradients) {
  // Per token and layer, the inputs of linear_qkv (4096), linear_fc1 (4096) and linear_fc2
  // (14336) are saved as 1-byte column-wise copies instead of 2-byte tensors, and linear_proj
  // keeps a 1-byte copy of the attention output FlashAttention already saves in bf16:
  // 22,528 - 4,096 = 18,432 B less, x 32 layers x 4096 tokens = 2,415,919,104 B.
  const double saved = mem(llama8b("megatron", "bf16"), "activations_bytes") -
                       mem(llama8b("megatron", "fp8"), "activations_bytes");
  EXPECT_NEAR(saved, 2415919104.0, 1.0);
  // The same rule under accelerate's TE backend, 8 sequences with SGD so that the loss, not the
  // optimizer step, is the peak the activations are reported at.
  const auto hf = [](const char* precision) {
    json j = llama8b("hf", precision);
    j["batch"] = 8;
    j["training"]["optimizer"] = "sgd";
    return mem(j, "activations_bytes");
  };
  EXPECT_NEAR(hf("bf16") - hf("fp8"), 8 * 2415919104.0, 8.0);
  // MXFP8: (2 - 1.03125) x 22,528 - 1.03125 x 4,096 = 17,600 B a token and layer.
  const double mx = mem(llama8b("megatron", "bf16", "b200-180gb"), "activations_bytes") -
                    mem(llama8b("megatron", "mxfp8", "b200-180gb"), "activations_bytes");
  EXPECT_NEAR(mx, 17600.0 * 32 * 4096, 1.0);
  // torchao float8 saves the 16-bit input and casts it again in the backward.
  EXPECT_EQ(mem(llama8b("fsdp", "fp8"), "activations_bytes"),
            mem(llama8b("fsdp", "bf16"), "activations_bytes"));
}

TEST(Fp8Training, ModelStatesAreBf16Amps) {
  // fp32 master copy and fp32 gradients as bf16 AMP: the FP8 recipes quantize at each GEMM.
  for (const char* key : {"master_weights_bytes", "gradients_full_bytes", "optimizer_bytes"})
    EXPECT_EQ(mem(llama8b("megatron", "fp8"), key), mem(llama8b("megatron", "bf16"), key)) << key;
}

TEST(Fp8Training, RefusedWhereTheGpuOrTheTaskCannotRunIt) {
  EXPECT_EQ(testing::refused_field(llama8b("megatron", "fp8", "a100-sxm4-80gb")),
            "training.mixed_precision");
  EXPECT_EQ(testing::refused_field(llama8b("megatron", "mxfp8", "h100-sxm5-80gb")),
            "training.mixed_precision");
  json lora = llama8b("hf", "fp8");
  lora["task"] = "lora";
  EXPECT_EQ(testing::refused_field(lora), "training.mixed_precision");
  EXPECT_EQ(testing::refused_field(llama8b("megatron", "fp8", "l40s-48gb")),
            "accepted");  // Ada has FP8
}

}  // namespace
}  // namespace gpusizer
