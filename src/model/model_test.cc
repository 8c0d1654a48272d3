// Parameter counts against the exact counts in the catalog (computed by the catalog's
// independent Python counter and checked against published HF counts, models-catalog-notes.md).
#include "gpusizer/model.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "gpusizer/catalog.h"

namespace gpusizer {
namespace {

// ModelRef copies on write: a row it made and shares with no one is changed in place, a shared
// one is copied first and the sharers keep the row as it was.
TEST(ModelRef, CopiesOnWrite) {
  const ModelRef unset;
  EXPECT_EQ(unset.get(), ModelRef().get());  // one Model{} shared by every unset ref
  EXPECT_EQ(unset->num_layers, 0);
  Model given;
  given.num_layers = 32;
  ModelRef a(given);  // its own row, a copy of `given`
  const Model* own = a.get();
  a.edit().num_layers = 16;
  EXPECT_EQ(a.get(), own);
  EXPECT_EQ(given.num_layers, 32);
  const ModelRef b = a;
  a.edit().num_layers = 8;
  EXPECT_NE(a.get(), own);
  EXPECT_EQ(b.get(), own);
  EXPECT_EQ(b->num_layers, 16);
  EXPECT_EQ(a->num_layers, 8);
  ModelRef c = unset;
  c.edit().num_layers = 4;
  EXPECT_EQ(unset->num_layers, 0);
  EXPECT_EQ(ModelRef()->num_layers, 0);
}

TEST(CountParams, EveryCatalogModelMatchesItsExactCount) {
  std::ifstream in(std::string(GPUSIZER_SOURCE_DIR) + "/data/models.jsonl");
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    const auto record = nlohmann::json::parse(line);
    const Model& m = Catalog::builtin().model(record["name"].get<std::string>());
    const ParamCounts c = count_params(m);
    SCOPED_TRACE(m.name);
    if (record.contains("total_params_computed") && record["total_params_computed"].is_number()) {
      EXPECT_EQ(c.total, record["total_params_computed"].get<int64_t>());
      if (record.contains("active_params_computed") &&
          record["active_params_computed"].is_number()) {
        EXPECT_EQ(c.active, record["active_params_computed"].get<int64_t>());
      }
      if (record.contains("active_params_computed_excl_input_embedding") &&
          record["active_params_computed_excl_input_embedding"].is_number()) {
        EXPECT_EQ(c.active_compute,
                  record["active_params_computed_excl_input_embedding"].get<int64_t>());
      }
      ++checked;
    } else {
      EXPECT_FALSE(c.computed);
      EXPECT_GT(c.total, 0);
    }
  }
  EXPECT_EQ(checked, 59);  // 60 LLMs, less MiniMax-M1 whose lightning blocks are not countable
}

TEST(CountParams, GivenCountSplitsOutWhatTheFieldsCount) {
  // MiniMax-M1-80k: 456,000,000,000 given. Counted from its config: routed experts 80 MoE layers
  // x 32 experts x 3 x 6144 x 9216 = 434,865,438,720; untied embedding and head 200,064 x 6144 =
  // 1,229,193,216 each. The rest: 456e9 - 2 x 1,229,193,216 - 434,865,438,720 = 18,676,174,848.
  const ParamCounts c = count_params(Catalog::builtin().model("minimax-m1-80k"));
  EXPECT_FALSE(c.computed);
  EXPECT_EQ(c.total, 456000000000);
  EXPECT_EQ(c.routed_experts, 434865438720);
  EXPECT_EQ(c.embedding, 1229193216);
  EXPECT_EQ(c.lm_head, 1229193216);
  EXPECT_EQ(c.other, 18676174848);
  // Without experts and with a tied head, the fields count nothing apart: the count stays whole
  // beside the embedding.
  Model dense = Catalog::builtin().model("minimax-m1-80k");
  dense.num_experts = 0;
  dense.tied_embeddings = true;
  const ParamCounts d = count_params(dense);
  EXPECT_EQ(d.routed_experts, 0);
  EXPECT_EQ(d.lm_head, 0);
  EXPECT_EQ(d.other, 456000000000 - 1229193216);
  // Fields that do not fit the given count split nothing.
  Model small = Catalog::builtin().model("minimax-m1-80k");
  small.given_params = 100000000000;
  const ParamCounts s = count_params(small);
  EXPECT_EQ(s.routed_experts, 0);
  EXPECT_EQ(s.other, 100000000000 - 1229193216);
}

TEST(CountParams, Llama31_8BWorkedExample) {
  // docs/models-catalog-notes.md: per layer 218,112,000; embeddings 1,050,673,152; final norm 4096.
  const ParamCounts c = count_params(Catalog::builtin().model("llama-3.1-8b"));
  EXPECT_EQ(c.attention + c.dense_mlp, 32LL * (41943040 + 176160768));
  EXPECT_EQ(c.embedding + c.lm_head, 1050673152);
  EXPECT_EQ(c.total, 8030261248);
}

TEST(CountParams, Mistral7Bv01HandCount) {
  // HF mistralai/Mistral-7B-v0.1 config.json: hidden 4096, 32 heads of 128, 8 KV heads,
  // intermediate 14336, 32 layers, vocab 32000, untied. By hand, per layer: q and o
  // 4096 x 4096 = 16,777,216 each, k and v 4096 x 1024 = 4,194,304 each, gate/up/down
  // 4096 x 14336 = 58,720,256 each, two RMSNorms 4096 each: 218,112,000. Embedding and head
  // 2 x 32000 x 4096 = 262,144,000; final norm 4096. Total 7,241,732,096, the figure a
  // transformers count of Mistral-7B-Instruct-v0.1 (same shapes) prints.
  const Model& m = Catalog::builtin().model("mistralai/Mistral-7B-v0.1");
  EXPECT_EQ(m.id, "mistral-7b-v0.1");
  const ParamCounts c = count_params(m);
  EXPECT_EQ(c.attention + c.dense_mlp, 32LL * (2 * 16777216 + 2 * 4194304 + 3 * 58720256));
  EXPECT_EQ(c.embedding + c.lm_head, 262144000);
  EXPECT_EQ(c.total, 7241732096);
  // sliding_window 4096 on every layer (MistralConfig applies it to all layers).
  EXPECT_EQ(m.sliding_window, 4096);
  const LayerSpans spans = layer_spans(m);
  EXPECT_EQ(spans.window, 32);
  EXPECT_EQ(spans.full, 0);
}

TEST(CountParams, DeepSeekV3ActiveIsAbout37B) {
  const ParamCounts c = count_params(Catalog::builtin().model("deepseek-v3"));
  EXPECT_EQ(c.total, 671026419200);
  EXPECT_NEAR(static_cast<double>(c.active) / 1e9, 37.55, 0.01);
}

TEST(LinearModules, LlamaHasSevenMatricesPerLayer) {
  const auto mods = linear_modules(Catalog::builtin().model("llama-2-7b"));
  ASSERT_EQ(mods.size(), 7u);
  EXPECT_EQ(mods[0].name, "q_proj");
  EXPECT_EQ(mods[0].in * mods[0].out, 4096 * 4096);
  EXPECT_EQ(mods[6].name, "down_proj");
  EXPECT_EQ(mods[6].in, 11008);
}

TEST(LayerSpan, SpreadsWindowLayers) {
  const Model& gemma = Catalog::builtin().model("gemma-3-4b");  // 29 local of 34
  int window = 0;
  for (int64_t i = 0; i < gemma.num_layers; ++i)
    window += layer_span(gemma, i) == AttentionSpan::kWindow;
  EXPECT_EQ(window, 29);
}

TEST(LayerSpans, CountsWhatLayerSpanSpreads) {
  // Gemma 3 4B: 29 sliding-window layers of 34 (5:1 local:global), 5 global.
  const LayerSpans gemma = layer_spans(Catalog::builtin().model("gemma-3-4b"));
  EXPECT_EQ(gemma.window, 29);
  EXPECT_EQ(gemma.full, 5);
  EXPECT_EQ(gemma.linear, 0);
  // More special layers than layers: every layer is special, as layer_span marks them.
  Model m;
  m.num_layers = 4;
  m.num_linear_layers = 6;
  m.num_window_layers = 2;  // ignored beside linear layers, as in layer_span
  const LayerSpans all = layer_spans(m);
  EXPECT_EQ(all.linear, 4);
  EXPECT_EQ(all.window, 0);
  EXPECT_EQ(all.full, 0);
  for (int64_t i = 0; i < m.num_layers; ++i) EXPECT_EQ(layer_span(m, i), AttentionSpan::kLinear);
}

}  // namespace
}  // namespace gpusizer
