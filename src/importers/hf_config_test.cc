// Real config.json files (tests/fixtures/hf_configs, sources in SOURCES.md) must give the
// catalog's exact parameter counts and the same KV-cache-relevant fields as the catalog Model.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gpusizer/catalog.h"
#include "gpusizer/error.h"
#include "gpusizer/importers.h"
#include "gpusizer/json/importers.h"

namespace gpusizer {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(GPUSIZER_SOURCE_DIR) + "/tests/fixtures/hf_configs/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Case {
  const char* file;
  const char* catalog_id;
  const char* weights_format;
};

class HfConfigFixture : public ::testing::TestWithParam<Case> {};

TEST_P(HfConfigFixture, MatchesCatalog) {
  const Case& c = GetParam();
  const std::string text = fixture(c.file);
  ASSERT_FALSE(text.empty()) << c.file;
  const ImportedModel im = import_hf_config_text(text, c.file);
  const Model& want = Catalog::builtin().model(c.catalog_id);
  const Model& got = im.model;
  const ParamCounts pw = count_params(want), pg = count_params(got);
  EXPECT_EQ(pg.total, pw.total);
  EXPECT_EQ(pg.active, pw.active);
  EXPECT_EQ(got.num_layers, want.num_layers);
  EXPECT_EQ(got.num_heads, want.num_heads);
  EXPECT_EQ(got.num_kv_heads, want.num_kv_heads);
  EXPECT_EQ(got.head_dim, want.head_dim);
  EXPECT_EQ(got.sliding_window, want.sliding_window);
  EXPECT_EQ(got.num_window_layers, want.num_window_layers);
  EXPECT_EQ(got.mla.has_value(), want.mla.has_value());
  if (got.mla && want.mla) {
    EXPECT_EQ(got.mla->kv_lora_rank, want.mla->kv_lora_rank);
    EXPECT_EQ(got.mla->qk_rope_head_dim, want.mla->qk_rope_head_dim);
    EXPECT_EQ(got.mla->q_lora_rank, want.mla->q_lora_rank);
  }
  EXPECT_EQ(got.num_experts, want.num_experts);
  EXPECT_EQ(got.experts_per_token, want.experts_per_token);
  EXPECT_EQ(im.weights_format, c.weights_format);
}

INSTANTIATE_TEST_SUITE_P(
    Catalog, HfConfigFixture,
    ::testing::Values(
        Case{"llama-2-7b.json", "llama-2-7b", ""}, Case{"llama-3.1-8b.json", "llama-3.1-8b", ""},
        Case{"mixtral-8x7b-v0.1.json", "mixtral-8x7b-v0.1", ""},
        Case{"qwen2.5-7b.json", "qwen2.5-7b", ""}, Case{"qwen3-30b-a3b.json", "qwen3-30b-a3b", ""},
        Case{"deepseek-v3.json", "deepseek-v3", "fp8"}, Case{"gemma-3-4b.json", "gemma-3-4b", ""},
        Case{"gpt-oss-20b.json", "gpt-oss-20b", "mxfp4"}, Case{"falcon-7b.json", "falcon-7b", ""},
        Case{"gpt-2.json", "gpt-2", ""},
        Case{"phi-3-mini-4k-instruct.json", "phi-3-mini-4k-instruct", ""},
        Case{"glm-4-9b.json", "glm-4-9b", ""},
        Case{"llama-4-scout.json", "llama-4-scout-17b-16e", ""}),
    [](const ::testing::TestParamInfo<Case>& param_info) {
      std::string n = param_info.param.catalog_id;
      for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

TEST(HfConfig, ExactPublishedCounts) {
  // Hand-checked counts (docs/models-catalog-notes.md sec. 3), independent of the catalog.
  EXPECT_EQ(count_params(import_hf_config_text(fixture("llama-3.1-8b.json"), "c").model).total,
            8030261248);
  EXPECT_EQ(count_params(import_hf_config_text(fixture("gpt-2.json"), "c").model).total, 124439808);
  EXPECT_EQ(count_params(import_hf_config_text(fixture("deepseek-v3.json"), "c").model).total,
            671026419200);
}

TEST(HfConfig, Gemma3DefaultsAreNamed) {
  const ImportedModel im = import_hf_config_text(fixture("gemma-3-4b.json"), "c");
  ASSERT_FALSE(im.warnings.empty());
  EXPECT_NE(im.warnings[0].find("vocab_size=262208"), std::string::npos);
}

TEST(HfConfig, QuantizationConfigSetsFormat) {
  auto fmt_of = [](const nlohmann::json& q) {
    nlohmann::json c = nlohmann::json::parse(fixture("llama-2-7b.json"));
    c["quantization_config"] = q;
    return import_hf_config(c, "c").weights_format;
  };
  EXPECT_EQ(fmt_of({{"quant_method", "gptq"}, {"bits", 4}}), "gptq-int4");
  EXPECT_EQ(fmt_of({{"quant_method", "gptq"}, {"bits", 8}}), "gptq-int8");
  EXPECT_EQ(fmt_of({{"quant_method", "awq"}, {"bits", 4}}), "awq-int4");
  EXPECT_EQ(fmt_of({{"quant_method", "fp8"}}), "fp8");
  EXPECT_EQ(fmt_of({{"quant_method", "bitsandbytes"}, {"load_in_4bit", true}}), "nf4");
  EXPECT_EQ(fmt_of({{"quant_method", "bitsandbytes"}, {"load_in_8bit", true}}), "int8");
  EXPECT_EQ(fmt_of({{"quant_method", "mxfp4"}}), "mxfp4");
}

TEST(HfConfig, UnknownModelTypeWarnsAndCounts) {
  nlohmann::json c = nlohmann::json::parse(fixture("llama-2-7b.json"));
  c["model_type"] = "brand_new_lm";
  const ImportedModel im = import_hf_config(c, "c");
  EXPECT_EQ(count_params(im.model).total, 6738415616);
  ASSERT_EQ(im.warnings.size(), 1u);
  EXPECT_NE(im.warnings[0].find("brand_new_lm"), std::string::npos);
  EXPECT_NE(im.warnings[0].find("intermediate_size"), std::string::npos);
}

TEST(HfConfig, MissingOrWrongFieldsNameThePath) {
  nlohmann::json c = nlohmann::json::parse(fixture("llama-2-7b.json"));
  c.erase("hidden_size");
  try {
    import_hf_config(c, "config.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "config.json.hidden_size");
    EXPECT_EQ(e.code(), "bad_input");
  }
  c = nlohmann::json::parse(fixture("llama-2-7b.json"));
  c["num_hidden_layers"] = "32";
  EXPECT_THROW(import_hf_config(c, "c"), InputError);
  c["num_hidden_layers"] = -1;
  EXPECT_THROW(import_hf_config(c, "c"), InputError);
  c["num_hidden_layers"] = 1e300;
  EXPECT_THROW(import_hf_config(c, "c"), InputError);
  EXPECT_THROW(import_hf_config(nlohmann::json::array(), "c"), InputError);
  EXPECT_THROW(import_hf_config_text("{\"a\": ", "c"), InputError);
  EXPECT_THROW(import_hf_config_text(std::string(100000, '['), "c"), InputError);
}

TEST(HfConfig, ImplausibleSizesAreRefused) {
  nlohmann::json c = nlohmann::json::parse(fixture("llama-2-7b.json"));
  c["hidden_size"] = 2000000000;
  c["intermediate_size"] = 2000000000;
  EXPECT_THROW(import_hf_config(c, "c"), InputError);
}

TEST(HfConfig, QwenV1HalvesIntermediateSize) {
  // Qwen-7B (QWenLMHeadModel, modeling_qwen.py): by hand, 2*151936*4096 embeddings + 32 x
  // (4*4096^2 + 3*4096 c_attn bias + 3*4096*11008 MLP + 2*4096 norms) + 4096 = 7,721,324,544
  // (the model card says 7.7B).
  const nlohmann::json c = {{"architectures", {"QWenLMHeadModel"}},
                            {"model_type", "qwen"},
                            {"hidden_size", 4096},
                            {"num_hidden_layers", 32},
                            {"num_attention_heads", 32},
                            {"intermediate_size", 22016},
                            {"kv_channels", 128},
                            {"vocab_size", 151936},
                            {"max_position_embeddings", 8192}};
  const Model m = import_hf_config(c, "c").model;
  EXPECT_EQ(m.intermediate_size, 11008);
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_EQ(count_params(m).total, 7721324544);
}

}  // namespace
}  // namespace gpusizer
