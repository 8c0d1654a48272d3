// A scenario's number formats are the catalog's rows, shared (FormatRef, Catalog::format_ref): a
// parsed, copied or edited scenario reads the rows it was resolved to, also after the catalog
// that resolved it is gone (a --data-dir catalog read for one request). The bits are those of
// data/formats.csv: int8 8 (one byte a value), fp8 8, bf16 16.
#include <gtest/gtest.h>

#include <optional>

#include "gpusizer/catalog.h"
#include "gpusizer/json/scenario.h"
#include "gpusizer/scenario_edit.h"

namespace gpusizer {
namespace {

const nlohmann::json kInput = {{"model", "llama-3.1-8b"},
                               {"gpu", "a100-sxm4-80gb"},
                               {"weights", "int8"},
                               {"kv_cache", "fp8"},
                               {"batch", 4},
                               {"seq_len", 4096}};

TEST(FormatRows, AParsedScenarioHoldsTheCatalogsOwnRows) {
  const Catalog& cat = Catalog::builtin();
  const Scenario s = parse_scenario(kInput, cat);
  EXPECT_EQ(s.weights.get(), &cat.format("int8", "weights", "weights"));
  EXPECT_EQ(s.kv_cache.get(), &cat.format("fp8", "kv", "kv_cache"));
  const Scenario copy = s;  // a copy shares the rows, it does not copy them
  EXPECT_EQ(copy.weights.get(), s.weights.get());
  EXPECT_EQ(copy.kv_cache.get(), s.kv_cache.get());
}

// A FormatRef never set reads one default row (no id, NumberFormat's 16 bits), the same for every
// such ref and its copies: the row a default-made Scenario's formats hold until they are resolved.
TEST(FormatRows, AnUnsetRefReadsTheOneEmptyRow) {
  const FormatRef a, b;
  EXPECT_EQ(a.get(), b.get());
  EXPECT_TRUE(a->id.empty());
  EXPECT_EQ(a->bits_per_value, 16);
  const FormatRef copy = a;
  EXPECT_EQ(copy.get(), a.get());
  const Scenario s;
  EXPECT_EQ(s.weights.get(), a.get());
  EXPECT_EQ(s.kv_cache.get(), a.get());
}

TEST(FormatRows, TheRowsOutliveTheCatalogThatResolvedThem) {
  std::optional<Scenario> parsed, edited_copy;
  {
    const Catalog cat = Catalog::embedded();  // dies at the end of this block
    parsed = parse_scenario(kInput, cat);
    ScenarioGiven given;
    const Scenario base = parse_scenario(kInput, cat, given);
    ScenarioEditor editor(base, given, cat);
    editor.edit({.weights = "fp8"});
    editor.edit({.weights = "bf16", .kv_cache = "bf16"});
    edited_copy = std::move(editor).take();
  }
  const Scenario copy = *parsed;  // copied after the catalog died
  EXPECT_EQ(copy.weights->id, "int8");
  EXPECT_EQ(copy.weights->bits_per_value, 8);
  EXPECT_EQ(copy.weights->bytes_per_value(), 1);  // 8 bits / 8
  EXPECT_EQ(copy.kv_cache->id, "fp8");
  EXPECT_EQ(copy.kv_cache->bits_per_value, 8);
  EXPECT_EQ(edited_copy->weights->id, "bf16");
  EXPECT_EQ(edited_copy->weights->bits_per_value, 16);
  EXPECT_EQ(edited_copy->kv_cache->id, "bf16");
}

TEST(FormatRows, EditsSetTheRowsAndPutTheBasesBack) {
  const Catalog& cat = Catalog::builtin();
  ScenarioGiven given;
  const Scenario base = parse_scenario(kInput, cat, given);
  ScenarioEditor editor(base, given, cat);
  const Scenario& fp8 = editor.edit({.weights = "fp8"});
  EXPECT_EQ(fp8.weights.get(), &cat.format("fp8", "weights", "weights"));
  EXPECT_EQ(fp8.kv_cache.get(), base.kv_cache.get());  // the KV format given stays
  const Scenario& back = editor.edit({.batch = 2});
  EXPECT_EQ(back.weights.get(), base.weights.get());
  EXPECT_EQ(back.weights->id, "int8");
  EXPECT_EQ(back.kv_cache->id, "fp8");
  // The base is untouched by its editor's edits.
  EXPECT_EQ(base.weights->id, "int8");
  EXPECT_EQ(base.kv_cache->id, "fp8");
}

TEST(FormatRows, AFormatBuiltByHandIsItsOwn) {
  NumberFormat f;
  f.id = "custom";
  f.bits_per_value = 6;
  Scenario s;
  EXPECT_EQ(s.weights->id, "");  // never set: NumberFormat{}, 16 bits
  EXPECT_EQ(s.weights->bits_per_value, 16);
  s.weights = f;  // copied once
  f.bits_per_value = 3;
  EXPECT_EQ(s.weights->bits_per_value, 6);
  EXPECT_EQ(s.weights->bytes_per_value(), 0.75);  // 6 / 8
}

}  // namespace
}  // namespace gpusizer
