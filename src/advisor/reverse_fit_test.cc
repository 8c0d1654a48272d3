// What fits given GPUs: with the levers standard for the task (ZeRO-3 over the GPUs, gradient
// checkpointing) unless told not to. Bounds worked out by hand in the comments.
#include <gtest/gtest.h>

#include "gpusizer/advisor.h"
#include "gpusizer/error.h"
#include "gpusizer/json/advisor.h"

namespace gpusizer {
namespace {

const Catalog& cat() {
  return Catalog::builtin();
}

bool lists(const nlohmann::json& fit, const std::string& model) {
  for (const auto& m : fit["models"])
    if (m["model"] == model) return true;
  return false;
}

// Full fine-tuning on 8 x H100 80 GB. Mixed-precision AdamW keeps 16 bytes a parameter (bf16
// weights 2 + bf16 gradients 2 + fp32 master, momentum and variance 12; Rajbhandari et al. 2020,
// sec. 3.1). ZeRO-3 over 8 GPUs leaves 16/8 = 2 bytes a parameter per GPU, so even with no
// activations at all 80e9 bytes hold at most 40e9 parameters: the upper bound. Qwen2.5-32B
// (32.76e9) needs 65.5 GB of states a GPU, plus checkpointed layer inputs 2 x 2048 x 5120 x 64
// layers = 1.3 GB, one layer's working set and gathered parameters (~3 GB), fp32 logits of
// 2048 x 152,064 x 4 B = 1.2 GB (twice with their gradient) and the CUDA context: about 74 GB,
// under 80 GB. So the largest model is between 32.7e9 and 40e9 parameters. Without the levers
// (plain data parallel, 16 bytes a parameter on every GPU) no model over 80e9 / 16 = 5e9 fits.
// The typed search: models come back largest first, and a limit keeps the largest of them.
TEST(ReverseFitTyped, LargestFirstAndTheLimitKeepsThem) {
  FitRequest r = parse_fit_request({{"gpu", "h100-sxm5-80gb"}}, cat(), 100);
  ASSERT_GT(r.models.size(), 10u);  // every language model of the catalog, parsed once
  const FitResult all = fit(r, cat());
  ASSERT_GT(all.models.size(), 3u);
  for (size_t i = 1; i < all.models.size(); ++i)
    EXPECT_GE(all.models[i - 1].params, all.models[i].params);
  r.limit = 2;
  const FitResult two = fit(r, cat());
  ASSERT_EQ(two.models.size(), 2u);
  EXPECT_EQ(two.models[0].model, all.models[0].model);
  EXPECT_EQ(two.models[1].params, all.models[1].params);
  EXPECT_TRUE(two.levers.empty());  // serving: no standard levers
}

// Serving sizes each model in the format its checkpoint ships in unless the request names one.
// gpt-oss-120b's checkpoint is 60.8 GiB (model card: routed experts in MXFP4, the rest bf16), so
// it fits one H100 80 GB; in bf16 its 116.83e9 parameters would be 233.7 GB, three H100s' worth.
TEST(ReverseFitTyped, EachModelInTheFormatItShipsIn) {
  const auto j = fit_json({{"gpu", "h100-sxm5-80gb"}}, cat(), 100);
  bool gpt_oss = false;
  for (const auto& m : j["models"]) {
    if (m["model"] == "gpt-oss-120b") {
      gpt_oss = true;
      EXPECT_EQ(m["weights"], "mxfp4");
    }
    if (m["model"] == "llama-3.1-8b") {
      EXPECT_EQ(m["weights"], "bf16");
    }
  }
  EXPECT_TRUE(gpt_oss);
  EXPECT_FALSE(lists(fit_json({{"gpu", "h100-sxm5-80gb"}, {"weights", "bf16"}}, cat(), 100),
                     "gpt-oss-120b"));
}

// A model the request names is answered beside the catalog's largest. Llama-2-7B in bf16 on one
// H100 80 GB: 13.5 GB of weights and 0.5 MB of KV cache a token (32 layers x 2 x 4096 x 2 B), so
// its own context of 4,096 tokens takes 2 GB and fits: the context search stops at the model's
// maximum. Llama-3.1-70B's 70,553,706,496 parameters are 141 GB in bf16, over a 12 GB card.
TEST(ReverseFitNamed, TheNamedModelIsAnsweredBesideTheCatalog) {
  const auto j = fit_json({{"model", "llama-2-7b"}, {"gpu", "h100-sxm5-80gb"}}, cat());
  ASSERT_TRUE(j.contains("named"));
  EXPECT_EQ(j["named"]["model"], "llama-2-7b");
  EXPECT_TRUE(j["named"]["fits"].get<bool>());
  EXPECT_EQ(j["named"]["max_seq_len"], 4096);
  EXPECT_GE(j["named"]["max_batch"].get<int64_t>(), 2);
  EXPECT_GT(j["models"].size(), 3u);  // the catalog's largest, as without a model

  const auto big = fit_json({{"model", "llama-3.1-70b"}, {"gpu", "rtx-3060-12gb"}}, cat());
  EXPECT_FALSE(big["named"]["fits"].get<bool>());
  EXPECT_EQ(big["named"]["params"], 70553706496);
  EXPECT_FALSE(big["named"].contains("max_batch"));

  EXPECT_FALSE(fit_json({{"gpu", "h100-sxm5-80gb"}}, cat()).contains("named"));
  try {
    (void)fit_json({{"model", "lama-2-7b"}, {"gpu", "h100-sxm5-80gb"}}, cat());
    ADD_FAILURE() << "an unknown model was not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "model");
  }
}

TEST(ReverseFitLevers, FullFineTuneOnEightH100) {
  const nlohmann::json req = {
      {"model", "llama-2-7b"}, {"gpu", "h100-sxm5-80gb"}, {"gpu_count", 8}, {"task", "full"}};
  const auto j = fit_json(req, cat());
  ASSERT_FALSE(j["models"].empty());
  const double largest = j["models"][0]["params"].get<double>();
  EXPECT_GE(largest, 32.7e9);
  EXPECT_LE(largest, 40e9);
  ASSERT_EQ(j["levers"].size(), 2u);
  EXPECT_EQ(j["levers"][0], "gradient checkpointing");
  EXPECT_EQ(j["levers"][1], "ZeRO-3 over the 8 GPUs");

  nlohmann::json plain = req;
  plain["levers"] = false;
  const auto p = fit_json(plain, cat());
  EXPECT_TRUE(p["levers"].empty());
  ASSERT_FALSE(p["models"].empty());
  EXPECT_LE(p["models"][0]["params"].get<double>(), 5e9);
}

// A layout the user gave is kept: with zero_stage 0 given, no ZeRO-3 is applied.
TEST(ReverseFitLevers, GivenSettingsAreKept) {
  const auto j = fit_json({{"model", "llama-2-7b"},
                           {"gpu", "h100-sxm5-80gb"},
                           {"gpu_count", 8},
                           {"task", "full"},
                           {"training", {{"zero_stage", 0}, {"gradient_checkpointing", false}}}},
                          cat());
  EXPECT_TRUE(j["levers"].empty());
  EXPECT_THROW(fit_json({{"model", "llama-2-7b"}, {"gpu", "a10-24gb"}, {"levers", "no"}}, cat()),
               InputError);
}

// LoRA and QLoRA of a 7B on 2 x A10 (24 GB): LoRA holds the 13.5 GB bf16 base on each GPU (6.7 GB
// with ZeRO-3) and QLoRA a 3.9 GB NF4 base; with checkpointing the activations at 2048 tokens are
// under 1 GB (32 layer inputs of 2 x 2048 x 4096 B = 0.54 GB plus one layer), so both fit.
TEST(ReverseFitLevers, LoraAndQloraOf7BFitTwoA10) {
  for (const char* task : {"lora", "qlora"}) {
    nlohmann::json req = {
        {"model", "llama-2-7b"}, {"gpu", "a10-24gb"}, {"gpu_count", 2}, {"task", task}};
    if (std::string(task) == "qlora") req["weights"] = "nf4";
    const auto j = fit_json(req, cat(), 100);
    EXPECT_TRUE(lists(j, "llama-2-7b")) << task;
  }
}

// The longest context fit proposes is the model's own maximum (Llama-2-7B: 4096 tokens).
TEST(ReverseFitLevers, ContextWithinTheModelsMaximum) {
  const auto j = fit_json({{"model", "llama-2-7b"}, {"gpu", "h100-sxm5-80gb"}}, cat(), 100);
  for (const auto& m : j["models"])
    if (m["model"] == "llama-2-7b") {
      EXPECT_EQ(m["max_seq_len"].get<int64_t>(), 4096);
    }
}

}  // namespace
}  // namespace gpusizer
