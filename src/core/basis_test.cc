// Basis (gpusizer/basis.h) behaves as the std::map<std::string, std::string> it replaced: a key
// written again keeps the last value, iteration is in ascending byte order of the keys, and a
// value appended to after others were written keeps its own text. Its keys are those of the list
// in gpusizer/basis_keys.h.
#include "gpusizer/basis.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpusizer {
namespace {

std::vector<std::pair<std::string, std::string>> entries(const Basis& b) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value] : b) out.emplace_back(key, value);
  return out;
}

TEST(Basis, RewritingAKeyReplacesItsValue) {
  Basis b;
  b.set("weights_bytes", "params x 16 bits");
  b.set("kv_cache_bytes", "no KV cache");
  b.set("weights_bytes", "params x 4 bits");
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(b.at("weights_bytes"), "params x 4 bits");
  EXPECT_EQ(b.at("kv_cache_bytes"), "no KV cache");
}

// Written in any order, iterated in ascending byte order of the keys, as std::map<std::string>
// sorts: "gpu_watts" < "kv_cache_bytes" ('g' < 'k'), "kv_cache_bytes" < its extension
// "kv_cache_bytes_per_token", which is < "kv_cache_capacity_tokens" ('b' < 'c' at the tenth byte).
TEST(Basis, IteratesInByteOrderOfTheKeys) {
  Basis b;
  b.set("usd_total", "u");
  b.set("kv_cache_capacity_tokens", "4");
  b.set("activations_bytes", "a");
  b.set("kv_cache_bytes_per_token", "3");
  b.set("gpu_watts", "g");
  b.set("kv_cache_bytes", "2");
  const std::vector<std::pair<std::string, std::string>> want = {
      {"activations_bytes", "a"},        {"gpu_watts", "g"},
      {"kv_cache_bytes", "2"},           {"kv_cache_bytes_per_token", "3"},
      {"kv_cache_capacity_tokens", "4"}, {"usd_total", "u"}};
  EXPECT_EQ(entries(b), want);
}

// for_each visits what iteration visits, in the same order, with the last value of a key written
// again and a value appended to after others: the first and the last key of the list too.
TEST(Basis, ForEachVisitsTheEntriesInTheirOrder) {
  Basis b;
  b.set("weights_bytes", "w");
  b.set("kv_cache_bytes", "old");
  b.set("activations_bytes", "a");
  b.append("weights_bytes", "+more");
  b.set("kv_cache_bytes", "2");
  std::vector<std::pair<std::string, std::string>> visited;
  b.for_each(
      [&](std::string_view key, std::string_view value) { visited.emplace_back(key, value); });
  const std::vector<std::pair<std::string, std::string>> want = {
      {"activations_bytes", "a"}, {"kv_cache_bytes", "2"}, {"weights_bytes", "w+more"}};
  EXPECT_EQ(visited, want);
  EXPECT_EQ(entries(b), want);
  size_t n = 0;
  Basis().for_each([&](std::string_view, std::string_view) { ++n; });
  EXPECT_EQ(n, 0u);
}

// The list of keys is in std::string's order, so a basis iterates as the map did.
TEST(Basis, TheListOfKeysIsInByteOrder) {
  for (size_t i = 1; i < kBasisKeyCount; ++i)
    EXPECT_LT(std::string(kBasisKeys[i - 1]), std::string(kBasisKeys[i])) << i;
  for (size_t i = 0; i < kBasisKeyCount; ++i) EXPECT_EQ(basis_key_index(kBasisKeys[i]), i);
  EXPECT_EQ(basis_key_index("kv_cache"), kBasisKeyCount);  // a prefix of a key is not one
  EXPECT_EQ(BasisKey("weights_bytes").text(), "weights_bytes");
}

TEST(Basis, AppendsKeepEachValueWhole) {
  Basis b;
  b.append("weights_bytes", "params x 16 bits");
  b.set("gpu_watts", "8 x 400 W board power (TDP)");
  // Appending to a value that is no longer the last one written.
  b.append("weights_bytes", "; ZeRO-3: sharded over dp");
  b.append("gpu_watts", " + host");
  b.set_with("mfu", [](std::string& out) { out.append("model FLOPs 6N").append(" / peak"); });
  b.add_empty("kv_cache_bytes");
  b.add_empty("mfu");  // has a value: stays
  EXPECT_EQ(b.at("weights_bytes"), "params x 16 bits; ZeRO-3: sharded over dp");
  EXPECT_EQ(b.at("gpu_watts"), "8 x 400 W board power (TDP) + host");
  EXPECT_EQ(b.at("mfu"), "model FLOPs 6N / peak");
  EXPECT_EQ(b.at("kv_cache_bytes"), "");
  EXPECT_EQ(b.size(), 4u);
}

TEST(Basis, ValuesWithEmbeddedTextAndQuotes) {
  Basis b;
  const std::string text = std::string("a \"quoted\" | bar\nnew line and a NUL ") + '\0' + " end";
  b.set("bands", text);
  b.set("engine", "vllm 0.8.5: given");
  EXPECT_EQ(b.at("bands"), text);
  EXPECT_EQ(b.at("bands").size(), 41u);  // 36 characters, the NUL, " end"
  EXPECT_EQ(b.at("engine"), "vllm 0.8.5: given");
}

TEST(Basis, LookupsCopiesAndEquality) {
  Basis b;
  EXPECT_TRUE(b.empty());
  EXPECT_FALSE(b.contains("mfu"));
  EXPECT_TRUE(b.find("mfu") == b.end());
  EXPECT_THROW(static_cast<void>(b.at("mfu")), std::out_of_range);
  b.set("mfu", "x");
  b.set("mfu", "y");  // the replaced "x" stays in the arena, unseen
  Basis c;
  c.set("mfu", "y");
  EXPECT_TRUE(b == c);  // same entries, different arenas
  Basis copy = b;
  b.set("mfu", "z");
  EXPECT_EQ(copy.at("mfu"), "y");
  EXPECT_FALSE(copy == b);
  b.clear();
  EXPECT_TRUE(b.empty());
}

// Keys that are prefixes of others, or share their first bytes, are told apart: a lookup of a
// name that is no key, or no key of this basis, finds nothing.
TEST(Basis, KeysSharingTheirFirstBytes) {
  Basis b;
  b.set("kv_cache_capacity_tokens", "4");
  b.set("kv_cache_bytes", "2");
  b.set("kv_cache_bytes", "2b");  // replaced, not added
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(b.at("kv_cache_bytes"), "2b");
  EXPECT_EQ(b.at("kv_cache_capacity_tokens"), "4");
  EXPECT_FALSE(b.contains("kv_cache_bytes_per_token"));
  EXPECT_FALSE(b.contains("kv_cache_"));
  EXPECT_FALSE(b.contains("kv_cac"));
  EXPECT_FALSE(b.contains(""));
}

// A finished basis leaves its storage to the thread's next one, which starts empty.
TEST(Basis, TheNextBasisStartsEmpty) {
  {
    Basis first;
    first.set("mfu", "model FLOPs / peak");
    first.set("weights_bytes", "params x 16 bits");
  }
  Basis next;
  next.set("gpu_watts", "8 x 400 W");
  const std::vector<std::pair<std::string, std::string>> want = {{"gpu_watts", "8 x 400 W"}};
  EXPECT_EQ(entries(next), want);
  Basis moved = std::move(next);
  moved.append("gpu_watts", " board power");
  EXPECT_EQ(moved.at("gpu_watts"), "8 x 400 W board power");
  EXPECT_TRUE(next.empty());  // NOLINT(bugprone-use-after-move): a moved-from basis is empty
  EXPECT_EQ(next.size(), 0u);
  next = std::move(moved);
  EXPECT_EQ(next.at("gpu_watts"), "8 x 400 W board power");
  EXPECT_TRUE(moved.empty());  // NOLINT(bugprone-use-after-move)
  next.clear();
  EXPECT_TRUE(next.empty());
  next.set("mfu", "m");
  EXPECT_EQ(entries(next), (std::vector<std::pair<std::string, std::string>>{{"mfu", "m"}}));
}

}  // namespace
}  // namespace gpusizer
