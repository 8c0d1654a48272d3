// parse_plain_json must build exactly nlohmann's tree (values and number types) for what it
// accepts, and decline whatever nlohmann rejects, so that parse_json_input's errors stay
// nlohmann's.
#include "scenario/plain_json.h"

#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <string>
#include <vector>

namespace gpusizer {
namespace {

using nlohmann::json;

// Same type at every node (nlohmann's == holds 1, 1u and 1.0 equal), same value, a double's bits.
bool same(const json& a, const json& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case json::value_t::object: {
      if (a.size() != b.size()) return false;
      for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
        if (i.key() != j.key() || !same(*i, *j)) return false;
      return true;
    }
    case json::value_t::array:
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (!same(a[i], b[i])) return false;
      return true;
    case json::value_t::number_float:
      return std::bit_cast<uint64_t>(a.get<double>()) == std::bit_cast<uint64_t>(b.get<double>());
    default:
      return a == b;
  }
}

// What nlohmann makes of `text`, or nullopt where it throws.
std::optional<json> nlohmann_tree(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

// Accepted: nlohmann's tree. Declined: allowed whatever nlohmann does (it then decides).
void expect_agrees(const std::string& text) {
  const std::optional<json> ours = parse_plain_json(text);
  const std::optional<json> theirs = nlohmann_tree(text);
  if (!theirs) {
    EXPECT_FALSE(ours) << text;
    return;
  }
  if (ours) {
    EXPECT_TRUE(same(*ours, *theirs)) << text;
  }
}

TEST(PlainJson, ReadsAScenarioLine) {
  const auto v = parse_plain_json(
      R"({"model": "llama-2-7b", "gpu": "rtx-4090-24gb", "batch": 4, "training": {"zero_stage": 3}})");
  ASSERT_TRUE(v);
  EXPECT_EQ((*v)["model"].get<std::string>(), "llama-2-7b");
  EXPECT_TRUE((*v)["batch"].is_number_unsigned());
  EXPECT_EQ((*v)["batch"].get<uint64_t>(), 4u);
  EXPECT_TRUE((*v)["training"]["zero_stage"].is_number_unsigned());
  EXPECT_EQ(v->size(), 4u);
}

TEST(PlainJson, NumberTypesAsNlohmannStoresThem) {
  const auto v = parse_plain_json("[-1, 0, -0, 2.5, 1e3, -1.5E-2, 123456789012345678]");
  ASSERT_TRUE(v);
  EXPECT_TRUE((*v)[0].is_number_integer() && !(*v)[0].is_number_unsigned());
  EXPECT_EQ((*v)[0].get<int64_t>(), -1);
  EXPECT_TRUE((*v)[1].is_number_unsigned());
  EXPECT_TRUE((*v)[2].is_number_integer() && !(*v)[2].is_number_unsigned());
  EXPECT_EQ((*v)[2].get<int64_t>(), 0);
  EXPECT_TRUE((*v)[3].is_number_float());
  EXPECT_EQ((*v)[3].get<double>(), 2.5);
  EXPECT_EQ((*v)[4].get<double>(), 1000.0);
  EXPECT_EQ((*v)[5].get<double>(), -0.015);
  EXPECT_EQ((*v)[6].get<uint64_t>(), 123456789012345678u);
}

TEST(PlainJson, LiteralsWhitespaceAndEmptyContainers) {
  const auto v =
      parse_plain_json(" \t\r\n{ \"a\" :\ttrue , \"b\":false,\"c\":null,\"d\":{},\"e\":[ ]}\n");
  ASSERT_TRUE(v);
  EXPECT_EQ((*v)["a"], true);
  EXPECT_EQ((*v)["b"], false);
  EXPECT_TRUE((*v)["c"].is_null());
  EXPECT_TRUE((*v)["d"].is_object() && (*v)["d"].empty());
  EXPECT_TRUE((*v)["e"].is_array() && (*v)["e"].empty());
}

// Outside the subset, or not JSON: declined, for nlohmann to read or to report.
TEST(PlainJson, DeclinesWhatItDoesNotRead) {
  const std::vector<std::string> declined = {
      "",
      "   ",
      R"({"a": "quote \" inside"})",
      "{\"a\": \"caf\xc3\xa9\"}",
      R"({"a": 1, "a": 2})",
      R"({"b": 1, "a": 2, "c": 3, "b": 4})",  // repeated after a key placed before it
      R"({"a": 1, "b": {"x": 1, "x": 2}})",
      R"({"a": 1234567890123456789})",
      R"({"a": 1e400})",
      R"({"a": 01})",
      R"({"a": 1,})",
      R"([1,])",
      "\xef\xbb\xbf{}",
      R"({"a": 1} x)",
      R"({'a': 1})",
      R"({"a": NaN})",
      R"({"a": .5})",
      R"({"a": 5.})",
      R"({"a": +1})",
      R"({"a": tru})",
      R"({"a" 1})",
      R"({"a": 1 /* c */})",
      "{\"a\": \"tab\tinside\"}",
      R"({"a": 1)",
      std::string(33, '[') + std::string(33, ']'),
  };
  for (const std::string& text : declined) {
    EXPECT_FALSE(parse_plain_json(text)) << text;
    expect_agrees(text);
  }
  EXPECT_TRUE(parse_plain_json(std::string(32, '[') + std::string(32, ']')));
}

// Strings are scanned sixteen bytes at a time where sixteen remain: a string of each length up
// to 40 is read whole wherever it ends, and a byte that stops a plain string (a quote
// escaped, a backslash, a tab, a control byte, a byte above 0x7f, DEL is plain) at each of its
// positions is declined or read as nlohmann reads it, inside a block or in the bytes after.
TEST(PlainJson, StringsOfEveryLengthAndEveryStoppingPosition) {
  for (size_t n = 0; n <= 40; ++n) {
    std::string text(n, 'a');
    for (size_t i = 0; i < n; ++i) text[i] = static_cast<char>('a' + i % 26);
    const auto v = parse_plain_json("[\"" + text + "\"]");
    ASSERT_TRUE(v) << n;
    EXPECT_EQ((*v)[0].get<std::string>(), text);
    const auto tail = parse_plain_json("{\"k\": \"" + text + "\", \"" + text + "x\": 1}");
    ASSERT_TRUE(tail) << n;
    EXPECT_EQ((*tail)["k"].get<std::string>(), text);
    EXPECT_EQ((*tail)[text + "x"].get<int>(), 1);
    for (size_t at = 0; at <= n; ++at)
      for (const char* stop : {"\\\"", "\\n", "\t", "\x01", "\x7f", "\xc3\xa9"}) {
        const std::string edited = "[\"" + text.substr(0, at) + stop + text.substr(at) + "\"]";
        const auto ours = parse_plain_json(edited);
        if (std::string_view(stop) == "\x7f") {
          ASSERT_TRUE(ours) << edited;  // DEL is printable for JSON
          EXPECT_EQ((*ours)[0].get<std::string>().size(), n + 1);
          expect_agrees(edited);
        } else {
          EXPECT_FALSE(ours) << n << " " << at;
          // The same as an object's value, which is made in its node from the text.
          EXPECT_FALSE(
              parse_plain_json("{\"k\": \"" + text.substr(0, at) + stop + text.substr(at) + "\"}"))
              << n << " " << at;
        }
      }
  }
}

// Byte edits of scenario lines, each checked against nlohmann: what is accepted is its tree.
TEST(PlainJson, MutatedLinesAgreeWithNlohmann) {
  const std::vector<std::string> lines = {
      R"({"model": "llama-2-7b", "gpu": "rtx-4090-24gb", "batch": 4})",
      R"({"model": "qwen3-32b", "task": "full", "gpu": "h100", "gpu_count": 8, "training": {"zero_stage": 3}})",
      R"({"price": -2.5e-3, "list": [1, -0, 0.25, true, false, null, {"k": []}], "x": 18446744073709551615})",
  };
  const std::string alphabet = "{}[]\":,-+.eE0123456789 tfnaul\\\n\x01\x7f\xc3";
  std::mt19937 rng(18);
  int accepted = 0;
  for (int i = 0; i < 60000; ++i) {
    std::string text = lines[rng() % lines.size()];
    for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) {
      const size_t at = rng() % (text.size() + 1);
      const char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0:
          if (at < text.size()) text[at] = c;
          break;
        case 1:
          text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        default:
          if (at < text.size()) text.erase(at, 1);
      }
    }
    if (parse_plain_json(text)) ++accepted;
    expect_agrees(text);
  }
  EXPECT_GT(accepted, 1000);  // the edits leave many texts valid: the subset is exercised
}

// A sink that takes every key once into an object of its own (a repeated key declines), so that
// read_plain_object's members can be compared with parse_plain_json's tree.
struct ObjectSink final : MemberSink {
  json object = json(json::value_t::object);
  json* value_for(std::string_view key) override {
    const auto [slot, added] = object.get_ref<json::object_t&>().emplace(std::string(key), json());
    return added ? &slot->second : nullptr;
  }
};

// read_plain_object reads what parse_plain_json reads when it is an object, the same values.
void expect_members_agree(const std::string& text) {
  const std::optional<json> tree = parse_plain_json(text);
  ObjectSink sink;
  const bool read = read_plain_object(text, sink);
  EXPECT_EQ(read, tree && tree->is_object()) << text;
  if (read && tree) {
    EXPECT_TRUE(same(sink.object, *tree)) << text;
  }
}

TEST(PlainJson, AnObjectReadMemberByMember) {
  ObjectSink sink;
  ASSERT_TRUE(read_plain_object(
      R"( {"model": "llama-2-7b", "batch": 4, "training": {"zero_stage": 3}, "x": [1.5, null]} )",
      sink));
  EXPECT_EQ(sink.object.size(), 4u);
  EXPECT_EQ(sink.object["model"], "llama-2-7b");
  EXPECT_TRUE(sink.object["batch"].is_number_unsigned());
  EXPECT_EQ(sink.object["training"]["zero_stage"], 3);
  EXPECT_EQ(sink.object["x"][0].get<double>(), 1.5);
  const std::vector<std::string> declined = {
      R"({"a": 1, "a": 2})",
      "[1]",
      "\"text\"",
      "{\"a\": 1} x",
      "",
      R"({"a": 1,})",
      "{\"a\": " + std::string(32, '[') + std::string(32, ']') + "}"};  // 33 levels
  for (const std::string& text : declined) {
    ObjectSink other;
    EXPECT_FALSE(read_plain_object(text, other)) << text;
  }
  // The object counts as the first of the 32 levels, as parse_plain_json counts it.
  ObjectSink deep;
  EXPECT_TRUE(
      read_plain_object("{\"a\": " + std::string(31, '[') + std::string(31, ']') + "}", deep));
}

// Byte edits of scenario lines: read member by member exactly when parse_plain_json reads an
// object, with its values.
TEST(PlainJson, MutatedObjectsReadMemberByMemberAsParsed) {
  const std::vector<std::string> lines = {
      R"({"model": "llama-2-7b", "gpu": "rtx-4090-24gb", "batch": 4})",
      R"({"model": "qwen3-32b", "task": "full", "gpu": "h100", "gpu_count": 8, "training": {"zero_stage": 3}})",
      R"({"price": -2.5e-3, "list": [1, -0, 0.25, true, false, null, {"k": []}], "x": 18446744073709551615})",
  };
  const std::string alphabet = "{}[]\":,-+.eE0123456789 tfnaul\\\n\x01\x7f\xc3";
  std::mt19937 rng(30);
  int read = 0;
  for (int i = 0; i < 60000; ++i) {
    std::string text = lines[rng() % lines.size()];
    for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) {
      const size_t at = rng() % (text.size() + 1);
      const char c = alphabet[rng() % alphabet.size()];
      if (rng() % 2 && at < text.size())
        text[at] = c;
      else
        text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
    }
    ObjectSink sink;
    if (read_plain_object(text, sink)) ++read;
    expect_members_agree(text);
  }
  EXPECT_GT(read, 1000);
}

// Numbers of every shape: integers near the 18-digit limit, decimals with exponents.
TEST(PlainJson, NumbersAgreeWithNlohmann) {
  std::mt19937_64 rng(2026);
  for (int i = 0; i < 100000; ++i) {
    std::string n = rng() % 2 ? "-" : "";
    const int digits = 1 + static_cast<int>(rng() % 20);
    for (int d = 0; d < digits; ++d) n += static_cast<char>('0' + rng() % 10);
    if (rng() % 2) {
      n += '.';
      for (int d = 1 + static_cast<int>(rng() % 18); d > 0; --d)
        n += static_cast<char>('0' + rng() % 10);
    }
    if (rng() % 3 == 0) n += "e" + std::to_string(static_cast<int>(rng() % 700) - 350);
    expect_agrees(n);
    expect_agrees("[" + n + "]");
  }
}

}  // namespace
}  // namespace gpusizer
