// Per-layer rotary caches of transformers 4.34-4.37 against hand-derived bytes (rope_cache.cc).
#include "memory/rope_cache.h"

#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "gpusizer/json/api.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

Scenario mistral_int8(const std::string& version) {
  Scenario s = unit_scenario({.model = "mistral-7b-v0.3", .weights = "int8"});
  s.engine_version = version;
  s.batch = 1;
  s.seq_len = 1;
  return s;
}

TEST(RopeCache, MistralLayersEachHoldCosAndSin) {
  // Mistral 7B: 32 layers x (cos + sin) x 32,768 positions x head_dim 128 x 2 B (bf16 default
  // dtype while from_pretrained builds the model) = 32 x 2 x 32,768 x 128 x 2 = 536,870,912 B.
  const Catalog& cat = Catalog::builtin();
  EXPECT_DOUBLE_EQ(memory::rope_cache_bytes(mistral_int8("4.35"), cat.engine("hf").release("4.35")),
                   536870912.0);
  // fp32 weights: the default dtype is fp32, 4 B per value.
  Scenario fp32 = mistral_int8("4.35");
  fp32.weights = cat.format("fp32", "weights", "weights");
  EXPECT_DOUBLE_EQ(memory::rope_cache_bytes(fp32, cat.engine("hf").release(fp32.engine_version)),
                   2.0 * 536870912.0);
  // A device_map split over 2 GPUs: the busiest holds 16 of the 32 layers.
  Scenario split = mistral_int8("4.35");
  split.parallel.pp = 2;
  EXPECT_DOUBLE_EQ(memory::rope_cache_bytes(split, cat.engine("hf").release(split.engine_version)),
                   536870912.0 / 2.0);
}

TEST(RopeCache, NewestReleaseAndOtherFamiliesHaveNone) {
  const Catalog& cat = Catalog::builtin();
  EXPECT_EQ(memory::rope_cache_bytes(mistral_int8("all"), cat.engine("hf").release("all")), 0.0);
  Scenario gemma = mistral_int8("4.35");
  gemma.model = cat.model("gemma-2-9b");
  EXPECT_EQ(memory::rope_cache_bytes(gemma, cat.engine("hf").release(gemma.engine_version)), 0.0);
}

TEST(RopeCache, WeightsOfTheEstimateCarryIt) {
  // The estimate's weights_bytes grows by exactly the caches between the two releases.
  const auto in =
      nlohmann::json::parse(R"({"model": "mistral-7b-v0.3", "task": "inference", "weights": "int8",
      "engine": "hf", "batch": 1, "seq_len": 1, "gpu": "a100-sxm4-80gb"})");
  const auto old_in = nlohmann::json::parse(R"({"model": "mistral-7b-v0.3", "task": "inference",
      "weights": "int8", "engine": "hf", "engine_version": "4.35", "batch": 1, "seq_len": 1,
      "gpu": "a100-sxm4-80gb"})");
  const auto now = estimate_json(in)["memory"]["weights_bytes"];
  const auto then = estimate_json(old_in)["memory"]["weights_bytes"];
  EXPECT_DOUBLE_EQ(then.get<double>() - now.get<double>(), 536870912.0);
  // The default release says which older one is modelled apart.
  const std::string basis = estimate_json(in)["basis"]["engine"].get<std::string>();
  EXPECT_NE(basis.find("every release but those modelled apart: 4.35"), std::string::npos) << basis;
}

}  // namespace
}  // namespace gpusizer
