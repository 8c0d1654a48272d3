// vLLM's Marlin MXFP4 experts on compute capability 8.x against hand-derived bytes and the
// published A100 start-up logs of data/validation/memory.csv (mxfp4_marlin.cc).
#include "memory/mxfp4_marlin.h"

#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "memory/memory_parts.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

constexpr double kGiB = 1073741824.0;

Scenario gpt_oss(std::string_view model, std::string_view gpu, int64_t tp,
                 std::string_view engine = "vllm") {
  Scenario s = unit_scenario({.model = model, .weights = "mxfp4", .engine = engine, .gpu = gpu});
  s.parallel.tp = tp;
  return s;
}

double weights(const Scenario& s) {
  const Catalog& cat = Catalog::builtin();
  return memory::weights(s, cat, memory::engine_rules(s, cat), count_model(s), nullptr);
}

TEST(Mxfp4Marlin, OneExpertAtThePaddedShapes) {
  // gpt-oss hidden 2880 -> 3072 (multiple of 256). TP4: intermediate 2880 / 4 = 720 -> 768
  // (multiple of 128). w13 2 x 768 x 3072 = 4,718,592 values, w2 3072 x 768 = 2,359,296; 7,077,888
  // values x (4 bits + 8 bits / 32) = 0.53125 B = 3,760,128 B; biases (2 x 768 + 3072) x 2 B =
  // 9,216 B. Sum 3,769,344 B.
  EXPECT_DOUBLE_EQ(memory::marlin_mxfp4_expert_bytes(2880, 720, true), 3769344.0);
  // TP1: intermediate 2880 -> 2944. w13 2 x 2944 x 3072 = 18,087,936, w2 9,043,968; 27,131,904 x
  // 0.53125 = 14,413,824 B; biases (5888 + 3072) x 2 = 17,920 B. Sum 14,431,744 B.
  EXPECT_DOUBLE_EQ(memory::marlin_mxfp4_expert_bytes(2880, 2880, true), 14431744.0);
  // Shapes already on the tiles take no padding: 4 bits + 1/32 B a value, no bias.
  EXPECT_DOUBLE_EQ(memory::marlin_mxfp4_expert_bytes(4096, 1024, false),
                   3.0 * 4096 * 1024 * 0.53125);
}

TEST(Mxfp4Marlin, GptOss120bTp4OnA100) {
  // Per GPU at TP4 (data/models.jsonl gpt-oss-120b config): routed experts 36 layers x 128 x
  // 3,769,344 B = 17,369,137,152 B; embedding and head 2 x 201,088 x 2880 bf16 / 4 =
  // 579,133,440 B; the rest in bf16 / 4: attention 36 x 26,550,144 (q 2880x4096 + k, v 2880x512
  // + o 4096x2880, their biases, 64 sinks) = 955,805,184, router 36 x (2880 x 128 + 128) =
  // 13,275,648, norms 36 x 2 x 2880 + 2880 = 210,240: 969,291,072 x 2 B / 4 = 484,645,536 B.
  // Sum 18,432,916,128 B = 17.167 GiB.
  const Scenario s = gpt_oss("gpt-oss-120b", "a100-sxm4-80gb", 4);
  EXPECT_NEAR(weights(s), 18432916128.0, 1.0);
  // vLLM 0.10.1.1 on 4x A100 80GB logged "Model loading took 17.2217 GiB" per GPU
  // (VLLMLOGS-006); without the padding the experts alone are 1.99 GiB less (15.18 GiB).
  EXPECT_NEAR(weights(s) / kGiB, 17.2217, 0.01 * 17.2217);
}

TEST(Mxfp4Marlin, GptOss20bTp1OnA100) {
  // Routed experts 24 x 32 x 14,431,744 B = 11,083,579,392 B; embedding and head 2 x 201,088 x
  // 2880 x 2 B = 2,316,533,760 B; attention 24 x 26,550,144 = 637,203,456, router 24 x (2880 x
  // 32 + 32) = 2,212,608, norms 24 x 2 x 2880 + 2880 = 141,120: 639,557,184 x 2 B =
  // 1,279,114,368 B. Sum 14,679,227,520 B = 13.671 GiB.
  const Scenario s = gpt_oss("gpt-oss-20b", "a100-sxm4-80gb", 1);
  EXPECT_NEAR(weights(s), 14679227520.0, 1.0);
  // vLLM 0.19.0 on one A100 80GB logged "Model loading took 13.72 GiB" (VLLMLOGS-017).
  EXPECT_NEAR(weights(s) / kGiB, 13.72, 0.01 * 13.72);
}

TEST(Mxfp4Marlin, OnlyVllmOnComputeCapability8) {
  // Ada (RTX 4090, capability 8.9) takes the Marlin path too.
  EXPECT_TRUE(memory::vllm_marlin_mxfp4(gpt_oss("gpt-oss-20b", "rtx-4090-24gb", 1),
                                        Catalog::builtin().engine("vllm")));
  // Hopper has vLLM's Triton or FlashInfer kernels; another engine has its own; a GPU-less
  // estimate and a dense format keep the checkpoint's bytes.
  const Scenario h100 = gpt_oss("gpt-oss-120b", "h100-sxm5-80gb", 4);
  const Scenario sglang = gpt_oss("gpt-oss-120b", "a100-sxm4-80gb", 4, "sglang");
  Scenario bf16 = gpt_oss("gpt-oss-120b", "a100-sxm4-80gb", 4);
  bf16.weights = Catalog::builtin().format("bf16", "weights", "weights");
  const Catalog& cat = Catalog::builtin();
  EXPECT_FALSE(memory::vllm_marlin_mxfp4(h100, cat.engine("vllm")));
  EXPECT_FALSE(memory::vllm_marlin_mxfp4(sglang, cat.engine("sglang")));
  EXPECT_FALSE(memory::vllm_marlin_mxfp4(bf16, cat.engine("vllm")));
  EXPECT_FALSE(memory::vllm_marlin_mxfp4(gpt_oss("gpt-oss-120b", "", 4), cat.engine("vllm")));
  // 120b at TP4 on H100: experts at the format's 4.25 bits, 1.99 GiB under the A100's.
  EXPECT_NEAR(weights(gpt_oss("gpt-oss-120b", "a100-sxm4-80gb", 4)) - weights(h100),
              17369137152.0 - 114701598720.0 * 4.25 / 8 / 4, 1.0);
}

TEST(Mxfp4Marlin, ExpertParallelismKeepsExpertsWhole) {
  // EP4: each rank holds 32 of the 128 experts, each at the TP1 shapes (14,431,744 B).
  Scenario s = gpt_oss("gpt-oss-120b", "a100-sxm4-80gb", 1);
  s.parallel.ep = 4;
  EXPECT_DOUBLE_EQ(memory::marlin_mxfp4_routed_bytes(s) / 4.0, 36.0 * 32 * 14431744.0);
}

}  // namespace
}  // namespace gpusizer
