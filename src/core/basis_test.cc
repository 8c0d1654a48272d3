// Basis (gpusizer/basis.h) behaves as the std::map<std::string, std::string> it replaced: a key
// written again keeps the last value, iteration is in ascending byte order of the keys, and a
// value appended to after others were written keeps its own text.
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

// "Z" (0x5A) < "_" (0x5F) < "a" (0x61): byte order, as std::map<std::string> sorts.
TEST(Basis, IteratesInByteOrderOfTheKeys) {
  Basis b;
  b.set("usd_total", "u");
  b.set("a_b", "ab");
  b.set("aZ", "aZ");
  b.set("a", "a");
  b.set("ab", "ab2");
  const std::vector<std::pair<std::string, std::string>> want = {
      {"a", "a"}, {"aZ", "aZ"}, {"a_b", "ab"}, {"ab", "ab2"}, {"usd_total", "u"}};
  EXPECT_EQ(entries(b), want);
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

// Keys that share their first eight bytes (BasisKey::order) are ordered by the rest: "kv_cach"
// (7 bytes) < "kv_cache" (8) < "kv_cache_bytes" < "kv_cache_bytes_per_token" <
// "kv_cache_capacity_tokens" ('b' 0x62 < 'c' 0x63 at the tenth byte).
TEST(Basis, KeysSharingTheirFirstEightBytes) {
  Basis b;
  b.set("kv_cache_capacity_tokens", "4");
  b.set("kv_cache_bytes", "2");
  b.set("kv_cache", "1");
  b.set("kv_cache_bytes_per_token", "3");
  b.set("kv_cach", "0");
  b.set("kv_cache_bytes", "2b");  // replaced, not added
  const std::vector<std::pair<std::string, std::string>> want = {{"kv_cach", "0"},
                                                                 {"kv_cache", "1"},
                                                                 {"kv_cache_bytes", "2b"},
                                                                 {"kv_cache_bytes_per_token", "3"},
                                                                 {"kv_cache_capacity_tokens", "4"}};
  EXPECT_EQ(entries(b), want);
  EXPECT_EQ(b.at("kv_cache"), "1");
  EXPECT_EQ(b.at("kv_cache_bytes_per_token"), "3");
  EXPECT_FALSE(b.contains("kv_cache_"));
  EXPECT_FALSE(b.contains("kv_cac"));
  EXPECT_FALSE(b.contains("kv_cache_bytes_per"));
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
}

}  // namespace
}  // namespace gpusizer
