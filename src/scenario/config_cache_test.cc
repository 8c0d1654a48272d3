// The inline-config cache gives what the importer gives, tells 4096 from 4096.0 apart, finds each
// of many configs, and keeps no failure; its order on JSON values.
#include "scenario/config_cache.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

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
    const auto cached = import_hf_config_cached(config, "model.hf_config");
    EXPECT_EQ(cached->model.num_layers, 32);
    EXPECT_EQ(cached->model.hidden_size, 4096);
    EXPECT_EQ(cached->model.intermediate_size, 11008);
    EXPECT_EQ(cached->model.vocab_size, 32000);
    EXPECT_EQ(count_params(cached->model).total, count_params(direct.model).total);
    EXPECT_EQ(cached->warnings, direct.warnings);
  }
  // A hit is the cache's own entry, shared, not a copy.
  EXPECT_EQ(import_hf_config_cached(config, "model.hf_config").get(),
            import_hf_config_cached(config, "model.hf_config").get());
  // Another config is another entry: 8 layers instead of 32.
  nlohmann::json smaller = config;
  smaller["num_hidden_layers"] = 8;
  EXPECT_EQ(import_hf_config_cached(smaller, "model.hf_config")->model.num_layers, 8);
  EXPECT_EQ(import_hf_config_cached(config, "model.hf_config")->model.num_layers, 32);
}

TEST(ConfigCache, NumbersOfAnotherTypeAreAnotherConfig) {
  // nlohmann's operator< holds 32 and 32.0 equivalent; the cache keeps them apart.
  nlohmann::json as_whole_float = llama_2_7b();
  as_whole_float["num_hidden_layers"] = 32.0;
  const ImportedModel whole = *import_hf_config_cached(llama_2_7b(), "model.hf_config");
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

TEST(ConfigCache, ComparesByTypeThenValue) {
  using nlohmann::json;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // In the order compare_json keeps, checked by hand: types by value_t (null, object, array,
  // string, boolean, signed, unsigned, float); objects and arrays shorter first, then by the first
  // key or value that differs; strings as std::string compares them; a NaN after every number.
  const std::vector<json> ordered = {
      nullptr,
      json::object(),
      {{"a", 1}},
      {{"a", 2}},
      {{"b", 0}},
      {{"a", 1}, {"b", 2}},
      {{"a", 1}, {"c", 0}},
      json::array(),
      json::array({1, 2}),
      json::array({1, 3}),
      json::array({1, 2, 3}),
      "bf16",
      "fp16",
      false,
      true,
      json(-1),
      json(32),
      json(4096u),
      json(32.0),
      json(4096.0),
      json(nan),
  };
  for (size_t i = 0; i < ordered.size(); ++i)
    for (size_t j = 0; j < ordered.size(); ++j) {
      const int order = compare_json(ordered[i], ordered[j]);
      EXPECT_EQ(order < 0, i < j) << ordered[i] << " vs " << ordered[j];
      EXPECT_EQ(order > 0, i > j) << ordered[i] << " vs " << ordered[j];
    }
  EXPECT_EQ(compare_json(json(nan), json(nan)), 0);
  EXPECT_EQ(compare_json(llama_2_7b(), llama_2_7b()), 0);
}

TEST(ConfigCache, EachOfManyConfigsFindsItsOwnEntry) {
  // Stored out of order and found again in another: each config keeps its own layers.
  const std::vector<int> layers = {5, 1, 9, 3, 7, 2, 8, 4, 6};
  auto config_of = [](int n) {
    nlohmann::json c = llama_2_7b();
    c["num_hidden_layers"] = n;
    return c;
  };
  for (int n : layers)
    EXPECT_EQ(import_hf_config_cached(config_of(n), "model.hf_config")->model.num_layers, n);
  for (auto n = layers.rbegin(); n != layers.rend(); ++n)
    EXPECT_EQ(import_hf_config_cached(config_of(*n), "model.hf_config")->model.num_layers, *n);
  // The same config under another name for its field is another entry, the same model.
  EXPECT_EQ(import_hf_config_cached(config_of(3), "line 7: model.hf_config")->model.num_layers, 3);
}

TEST(ConfigCache, FailuresAreNotKept) {
  nlohmann::json broken = llama_2_7b();
  broken.erase("num_attention_heads");
  for (int i = 0; i < 2; ++i)
    EXPECT_THROW(import_hf_config_cached(broken, "model.hf_config"), InputError);
}

}  // namespace
}  // namespace gpusizer
