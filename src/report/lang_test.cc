// The language layer: choosing the language, templates with holes, and what must not change.
#include "gpusizer/lang.h"

#include <gtest/gtest.h>

#include "gpusizer/error.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/lang.h"
#include "gpusizer/json/render.h"

namespace gpusizer {
namespace {

TEST(Lang, ParsesCodesAndRegionTags) {
  EXPECT_EQ(parse_lang("en"), Lang::kEn);
  EXPECT_EQ(parse_lang("zh"), Lang::kZh);
  EXPECT_EQ(parse_lang("zh-CN"), Lang::kZh);
  EXPECT_EQ(parse_lang("ZH_tw"), Lang::kZh);
  EXPECT_EQ(parse_lang("en-US"), Lang::kEn);
  try {
    parse_lang("fr", "--lang");
    FAIL() << "fr accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--lang");
    EXPECT_NE(std::string(e.what()).find("use en or zh"), std::string::npos);
  }
}

TEST(Lang, AcceptLanguageTakesTheHighestSupportedQ) {
  EXPECT_EQ(lang_from_accept_language(""), Lang::kEn);
  EXPECT_EQ(lang_from_accept_language("zh"), Lang::kZh);
  EXPECT_EQ(lang_from_accept_language("zh-CN,zh;q=0.9,en;q=0.8"), Lang::kZh);
  EXPECT_EQ(lang_from_accept_language("en-GB, zh;q=0.5"), Lang::kEn);
  // fr is unsupported; of the two supported ones zh has the higher q.
  EXPECT_EQ(lang_from_accept_language("fr;q=1, en;q=0.3, zh;q=0.7"), Lang::kZh);
  // q=0 means "not this one" (RFC 9110 sec. 12.4.2).
  EXPECT_EQ(lang_from_accept_language("zh;q=0"), Lang::kEn);
  EXPECT_EQ(lang_from_accept_language("de, ja"), Lang::kEn);
}

TEST(Lang, TemplateKeepsNumbersAndNames) {
  // data/lang/zh.json: "does not fit: needs {} GiB per GPU, {} has {} GiB usable".
  EXPECT_EQ(translate_text("does not fit: needs 137.7 GiB per GPU, H100 SXM5 80GB has 79.2 GiB "
                           "usable",
                           Lang::kZh),
            "显存放不下：每块 GPU 需要 137.7 GiB，H100 SXM5 80GB 可用 79.2 GiB");
  EXPECT_EQ(
      translate_text("does not fit: needs 31.4 GiB per GPU, vllm takes 22.2 GiB of GeForce "
                     "RTX 4090 24GB's 23.6 GiB usable (gpu_memory_utilization 0.90)",
                     Lang::kZh),
      "显存放不下：每块 GPU 需要 31.4 GiB，vllm 占用 GeForce RTX 4090 24GB 可用 23.6 GiB 中的 "
      "22.2 GiB（gpu_memory_utilization 0.90）");
  // English stays English, byte for byte.
  const std::string en = "does not fit: needs 1 GiB per GPU, X has 2 GiB usable";
  EXPECT_EQ(translate_text(en, Lang::kEn), en);
  // A text no template covers comes back unchanged.
  EXPECT_EQ(translate_text("zzz qqq", Lang::kZh), "zzz qqq");
}

TEST(Lang, ReordersHolesAndTranslatesNestedParts) {
  // "{} KV cache on {} is stored only; ..." puts the GPU first in Chinese.
  EXPECT_EQ(translate_text("fp8 KV cache on A100 SXM4 80GB is stored only; attention upcasts it",
                           Lang::kZh),
            "A100 SXM4 80GB 上的 fp8 KV 缓存只用于存储；注意力计算时会升精度");
  // A rejection: the task is a {t} hole (translated), the layout a list split at ", ", and the
  // clauses after "; " translated one by one.
  EXPECT_EQ(translate_text("A10 24GB: inference of Llama-2-70B needs 19.7 GB per GPU at best "
                           "(8 GPUs, PP=8); 21 GB usable; no NVLink for a 8-way split",
                           Lang::kZh),
            "A10 24GB：Llama-2-70B 的推理每块 GPU 至少需要 19.7 GB（8 块 GPU，PP=8）；可用 21 "
            "GB；8 路切分没有 NVLink");
}

TEST(Lang, ErrorCarriesFieldSuggestionsAndTranslatedMessage) {
  const auto e = error_json("unknown_name",
                            "gpu: unknown GPU 'h1000'; did you mean t4-16gb, a10-24gb, h20-96gb?",
                            "gpu", Lang::kZh)["error"];
  EXPECT_EQ(e["code"], "unknown_name");
  EXPECT_EQ(e["field"], "gpu");
  EXPECT_EQ(e["suggestions"], nlohmann::json({"t4-16gb", "a10-24gb", "h20-96gb"}));
  EXPECT_EQ(e["message"], "gpu：未知的GPU 'h1000'；你是否想用 t4-16gb, a10-24gb, h20-96gb？");
  const auto en = error_json("bad_input", "batch: must be between 1 and 10000000, not -1", "batch",
                             Lang::kEn)["error"];
  EXPECT_EQ(en["message"], "batch: must be between 1 and 10000000, not -1");
  EXPECT_FALSE(en.contains("suggestions"));
}

TEST(Lang, LocalizeChangesTextsOnlyNeverKeysIdsOrNumbers) {
  nlohmann::json request = nlohmann::json::object();
  request["model"] = "llama-2-70b";
  request["gpu"] = "h100";
  const nlohmann::json en = estimate_json(request, Catalog::builtin());
  nlohmann::json zh = en;
  localize(zh, Lang::kZh);
  EXPECT_EQ(zh["scenario"], en["scenario"]);
  EXPECT_EQ(zh["memory"]["total_bytes"], en["memory"]["total_bytes"]);
  EXPECT_EQ(zh["changes"].size(), en["changes"].size());
  EXPECT_EQ(zh["changes"][0]["patch"], en["changes"][0]["patch"]);
  EXPECT_NE(zh["warnings"][0], en["warnings"][0]);
  // Same keys everywhere: flatten() lists every path.
  std::vector<std::string> a, b;
  const nlohmann::json en_flat = en.flatten(), zh_flat = zh.flatten();
  for (const auto& [k, v] : en_flat.items()) a.push_back(k);
  for (const auto& [k, v] : zh_flat.items()) b.push_back(k);
  EXPECT_EQ(a, b);
}

TEST(Lang, TheEstimateTableSpeaksTheLanguageToo) {
  nlohmann::json request = nlohmann::json::object();
  request["model"] = "llama-2-70b";
  request["gpu"] = "h100";
  nlohmann::json e = estimate_json(request, Catalog::builtin());
  const std::string en = render_estimate_table(e);
  localize(e, Lang::kZh);
  const std::string zh = render_estimate_table(e, Lang::kZh);
  EXPECT_NE(en.find("Memory per GPU (GiB = 2^30 bytes)"), std::string::npos);
  EXPECT_NE(zh.find("每卡显存（GiB = 2^30 字节）"), std::string::npos) << zh;
  EXPECT_NE(zh.find("放不下"), std::string::npos) << zh;  // 70B in bf16 on one H100
  EXPECT_EQ(zh.find("Memory per GPU"), std::string::npos) << zh;
  EXPECT_EQ(zh.find("Warnings"), std::string::npos) << zh;
}

}  // namespace
}  // namespace gpusizer
