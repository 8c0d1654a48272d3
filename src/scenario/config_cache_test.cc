// The inline-config cache gives what the importer gives, tells 4096 from 4096.0 apart, and keeps
// no failure.
#include "scenario/config_cache.h"

#include <gtest/gtest.h>

#include "gpusizer/error.h"
#include "gpusizer/json/importers.h"

namespace gpusizer {
namespace {

// Llama-2-7B's config.json (tests/fixtures/hf_configs/llama-2-7b.json), the fields that matter.
nlohmann::json llama_2_7b() {
  return {{"architectures", {"LlamaForCausalLM"}},
          {"model_type", "llama"},
          {"hidden_size", 4096},
          {"intermediate_size", 11008},
          {"max_position_embeddings", 4096},
          {"num_attention_heads", 32},
          {"num_hidden_layers", 32},
          {"num_key_value_heads", 32},
          {"vocab_size", 32000},
          {"torch_dtype", "float16"}};
}

TEST(ConfigCache, SameModelAsTheImporterEveryTime) {
  const nlohmann::json config = llama_2_7b();
  const ImportedModel direct = import_hf_config(config, "model.hf_config");
  for (int i = 0; i < 3; ++i) {
    const ImportedModel cached = import_hf_config_cached(config, "model.hf_config");
    EXPECT_EQ(cached.model.num_layers, 32);
    EXPECT_EQ(cached.model.hidden_size, 4096);
    EXPECT_EQ(cached.model.intermediate_size, 11008);
    EXPECT_EQ(cached.model.vocab_size, 32000);
    EXPECT_EQ(count_params(cached.model).total, count_params(direct.model).total);
    EXPECT_EQ(cached.warnings, direct.warnings);
  }
  // Another config is another entry: 8 layers instead of 32.
  nlohmann::json smaller = config;
  smaller["num_hidden_layers"] = 8;
  EXPECT_EQ(import_hf_config_cached(smaller, "model.hf_config").model.num_layers, 8);
  EXPECT_EQ(import_hf_config_cached(config, "model.hf_config").model.num_layers, 32);
}

TEST(ConfigCache, NumbersOfAnotherTypeAreAnotherConfig) {
  // nlohmann's operator< holds 32 and 32.0 equivalent; the cache keeps them apart.
  nlohmann::json as_whole_float = llama_2_7b();
  as_whole_float["num_hidden_layers"] = 32.0;
  const ImportedModel whole = import_hf_config_cached(llama_2_7b(), "model.hf_config");
  EXPECT_EQ(whole.model.num_layers, 32);
  // Whatever the importer makes of 32.0 (accepts or refuses), the cache gives the same.
  bool refused_direct = false, refused_cached = false;
  try {
    (void)import_hf_config(as_whole_float, "model.hf_config");
  } catch (const InputError&) {
    refused_direct = true;
  }
  try {
    (void)import_hf_config_cached(as_whole_float, "model.hf_config");
  } catch (const InputError&) {
    refused_cached = true;
  }
  EXPECT_EQ(refused_cached, refused_direct);
}

TEST(ConfigCache, FailuresAreNotKept) {
  nlohmann::json broken = llama_2_7b();
  broken.erase("num_attention_heads");
  for (int i = 0; i < 2; ++i)
    EXPECT_THROW(import_hf_config_cached(broken, "model.hf_config"), InputError);
}

}  // namespace
}  // namespace gpusizer
