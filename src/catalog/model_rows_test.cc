#include "catalog/model_rows.h"

#include <gtest/gtest.h>

#include <cctype>
#include <optional>
#include <thread>

#include "embed/embedded.h"
#include "gpusizer/catalog.h"
#include "gpusizer/error.h"

namespace gpusizer {
namespace {

// Two rows: the first whole, the second with its names readable and a broken value after them.
constexpr std::string_view kRows =
    R"({"name": "Tiny-1B", "hf_id": "org/tiny-1b", "hidden_size": 2048, "intermediate_size": 5632, "num_layers": 22, "num_attention_heads": 32, "num_key_value_heads": 4, "vocab_size": 32000})"
    "\n\n"
    R"({"name": "Broken-2B", "hf_id": "org/broken", "hidden_size": oops})"
    "\n";

// A deferred row's names are there at once, its error only when the row is asked for; parsing
// now (a user's --data-dir) reports the same error at load.
TEST(ModelRows, DeferredRowsParseWhenAskedFor) {
  const auto rows = ModelRows::deferred(kRows);
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ(rows->names()[0].id, "tiny-1b");
  EXPECT_EQ(rows->names()[1].name, "Broken-2B");
  EXPECT_EQ(rows->names()[1].hf_id, "org/broken");
  EXPECT_EQ(rows->at(0).num_layers, 22);
  EXPECT_EQ(rows->at(0).hidden_size, 2048);
  try {
    rows->at(1);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.field()).rfind("models.jsonl line 3", 0), 0u);
  }
  EXPECT_THROW(ModelRows::parsed(kRows), InputError);
}

// A row whose names do not come first is still named (read whole at load).
TEST(ModelRows, NamesAnywhereInTheRow) {
  const auto rows = ModelRows::deferred(
      R"({"hidden_size": 2048, "intermediate_size": 5632, "num_layers": 2, "num_attention_heads": 16, "vocab_size": 1000, "name": "Late-Name"})");
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->names()[0].id, "late-name");
  EXPECT_EQ(rows->names()[0].hf_id, "");
}

// The built-in file: every row read later is the row read at once (names and shapes), and
// threads asking for the same rows together get one parse each.
TEST(ModelRows, BuiltInRowsAreTheParsedRows) {
  const std::string_view text = embedded::find("models.jsonl");
  const auto now = ModelRows::parsed(text);
  const auto later = ModelRows::deferred(text);
  ASSERT_EQ(now->size(), later->size());
  ASSERT_GT(now->size(), 50u);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (size_t i = 0; i < later->size(); ++i) later->at(later->size() - 1 - i);
    });
  for (auto& th : threads) th.join();
  for (size_t i = 0; i < now->size(); ++i) {
    const Model &a = now->all()[i], &b = later->all()[i];
    EXPECT_EQ(now->names()[i].id, later->names()[i].id);
    EXPECT_EQ(now->names()[i].hf_id, later->names()[i].hf_id);
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.hf_id, b.hf_id);
    EXPECT_EQ(a.num_layers, b.num_layers);
    EXPECT_EQ(a.hidden_size, b.hidden_size);
    EXPECT_EQ(a.num_experts, b.num_experts);
  }
  // The catalog finds a model by its Hugging Face id through the deferred rows.
  EXPECT_EQ(Catalog::embedded().model("meta-llama/Llama-2-7b-hf").id, "llama-2-7b");
}

// An id found byte for byte is the row the normalized index keeps for it: "tiny-15b" and
// "tiny-1.5b" both normalize to "tiny15b", whose row is the first, so the second's exact spelling
// is left to the normalized lookup (which answers the first row), in either kind of rows.
TEST(ModelRows, ExactIdsAreTheFirstRowOfTheirNormalizedId) {
  constexpr std::string_view kTwins =
      R"({"name": "Tiny-1.5B", "hidden_size": 2048, "intermediate_size": 5632, "num_layers": 22, "num_attention_heads": 32, "vocab_size": 32000})"
      "\n"
      R"({"name": "Tiny-15B", "hidden_size": 4096, "intermediate_size": 11008, "num_layers": 40, "num_attention_heads": 32, "vocab_size": 32000})"
      "\n";
  for (const auto& rows : {ModelRows::parsed(kTwins), ModelRows::deferred(kTwins)}) {
    ASSERT_EQ(rows->size(), 2u);
    EXPECT_EQ(rows->exact_id("tiny-1.5b"), std::optional<size_t>(0));
    EXPECT_EQ(rows->exact_id("tiny-15b"), std::nullopt);
    EXPECT_EQ(rows->exact_id("Tiny-1.5B"), std::nullopt);  // a name, not the id
    EXPECT_EQ(rows->exact_id("tiny"), std::nullopt);
  }
}

// Every built-in model found by its id (the exact index) is the row found by the same id
// spelled in capitals (the normalized index), the same object.
TEST(ModelRows, BuiltInIdsFindTheNormalizedIndexRow) {
  const Catalog& catalog = Catalog::builtin();
  for (const Model& m : catalog.models()) {
    std::string shouted = m.id;
    for (char& c : shouted) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(&catalog.model(m.id), &catalog.model(shouted)) << m.id;
    EXPECT_EQ(catalog.model(m.id).id, m.id);
  }
}

}  // namespace
}  // namespace gpusizer
