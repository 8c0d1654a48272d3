// The two backends of report/json_writer.h: TextWriter must write the bytes nlohmann's dump()
// writes for the tree TreeWriter builds from the same tokens (numbers above all), and the whole
// estimate answer streamed must equal the tree's text.
#include "report/json_writer.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gpusizer/basis.h"
#include "gpusizer/catalog.h"
#include "gpusizer/error.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/json_text.h"
#include "report/json_text_parts.h"

namespace gpusizer {
namespace {

// The tokens of {"a": [v], "b": {"c": v}} written to `w`.
template <typename T>
void write_sample(JsonWriter& w, const T& v) {
  w.begin_object();
  w.key("a");
  w.begin_array();
  w.value(v);
  w.end_array();
  w.key("b");
  w.begin_object();
  w.field("c", v);
  w.end_object();
  w.end_object();
}

template <typename T>
std::string streamed(const T& v) {
  std::string out;
  TextWriter w(out, true);
  w.value(v);
  return out;
}

template <typename T>
void expect_same_both_ways(const T& v) {
  TreeWriter tree;
  write_sample(tree, v);
  std::string text;
  TextWriter stream(text, true);
  write_sample(stream, v);
  const nlohmann::json built = tree.take();
  EXPECT_EQ(text, built.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  EXPECT_EQ(text, json_text(built));
}

// nlohmann's number rules (its serializer and dtoa): integers as digits; floats in the shortest
// form that reads back the same, ".0" on whole numbers, plain notation for decimal exponents
// from -4 to 15 and e+NN / e-NN (two digits at least) outside; -0.0 keeps its sign; NaN and
// infinities are written as null. A float is a figure, rounded first to six significant digits
// or, from 10^6, to a whole number (report/json_figure.h).
TEST(JsonWriter, NumbersAsNlohmannWritesThem) {
  const std::vector<std::pair<double, std::string>> floats = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.0, "1.0"},
      {-2.0, "-2.0"},
      {2.5, "2.5"},
      {0.1, "0.1"},
      {1.0 / 3.0, "0.333333"},
      {12345.678, "12345.7"},
      {0.0001, "0.0001"},
      {0.00001, "1e-05"},
      {1.5e-7, "1.5e-07"},
      {123456789012345.0, "123456789012345.0"},
      {1e15, "1e+15"},
      {1e21, "1e+21"},
      {1e100, "1e+100"},
      {DBL_MAX, "1.7976931348623157e+308"},
      {5e-324, "5e-324"},
      {std::nan(""), "null"},
      {std::numeric_limits<double>::infinity(), "null"},
      {-std::numeric_limits<double>::infinity(), "null"},
  };
  for (const auto& [v, text] : floats) {
    EXPECT_EQ(streamed(v), text) << v;
    expect_same_both_ways(v);
  }
  EXPECT_EQ(streamed(int64_t{0}), "0");
  EXPECT_EQ(streamed(-7), "-7");
  EXPECT_EQ(streamed(std::numeric_limits<int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(streamed(std::numeric_limits<uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(streamed(size_t{42}), "42");
  // An integer-valued int is not a float: 8, never 8.0.
  EXPECT_EQ(streamed(8), "8");
  for (int64_t v : {int64_t{0}, int64_t{-7}, std::numeric_limits<int64_t>::max()})
    expect_same_both_ways(v);
  expect_same_both_ways(std::numeric_limits<uint64_t>::max());
  expect_same_both_ways(true);
  expect_same_both_ways(std::string("quote \" tab \t caf\xc3\xa9 bad \xff"));
}

TEST(JsonWriter, ContainersNullsAndTrees) {
  const nlohmann::json patch = {{"weights", "int4"}, {"parallel", {{"tp", 2}}}};
  auto write = [&](JsonWriter& w) {
    w.begin_object();
    w.key("empty_array");
    w.begin_array();
    w.end_array();
    w.key("empty_object");
    w.begin_object();
    w.end_object();
    w.field("none", std::optional<double>());
    w.key("null");
    w.null();
    w.key("patch");
    w.tree(patch);
    w.strings("texts", {"a", "b"});
    w.end_object();
  };
  TreeWriter tree;
  write(tree);
  std::string text;
  TextWriter stream(text, true);
  write(stream);
  EXPECT_EQ(text,
            "{\"empty_array\":[],\"empty_object\":{},\"null\":null,"
            "\"patch\":{\"parallel\":{\"tp\":2},\"weights\":\"int4\"},\"texts\":[\"a\",\"b\"]}");
  EXPECT_EQ(json_text(tree.take()), text);
}

// A string written as parts joined: in place when short and plain, else through the joined
// string (escaped, or past the 512-byte short path); the tree holds the joined string. Texts by
// hand.
// Each member is followed by its comma and a closing takes the last one back, also when the last
// member went to the string itself (a long or escaped string, a tree: the buffer is then
// empty), in nested and empty containers, and a top-level value has none.
TEST(JsonWriter, LastMembersWrittenToTheString) {
  const std::string long_text(700, 'l');
  const nlohmann::json patch = {{"tp", 2}};
  auto write = [&](JsonWriter& w) {
    w.begin_array();
    w.begin_object();
    w.field("long", long_text);
    w.end_object();
    w.begin_object();
    w.field("escaped", std::string("a\tb\"c"));
    w.end_object();
    w.begin_array();
    w.tree(patch);
    w.end_array();
    w.begin_array();
    w.begin_object();
    w.end_object();
    w.end_array();
    w.string(long_text);
    w.end_array();
  };
  TreeWriter tree;
  write(tree);
  std::string text = "x";  // what the string held before is kept
  {
    TextWriter stream(text, true);
    write(stream);
  }
  EXPECT_EQ(text, "x" + json_text(tree.take()));
  for (bool checked : {false, true}) {
    std::string scalar;
    {
      TextWriter stream(scalar, checked);
      stream.value(long_text);
    }
    EXPECT_EQ(scalar, "\"" + long_text + "\"");
    std::string number;
    {
      TextWriter stream(number, checked);
      stream.value(2.5);
    }
    EXPECT_EQ(number, "2.5");
  }
}

TEST(JsonWriter, JoinedPartsAreOneString) {
  const std::string long_part(600, 'z');
  const std::string_view plain[] = {"fp8 weights", "TP=2 (2 GPUs)"};
  const std::string_view quoted[] = {"a\"b", "c"};
  const std::string_view one[] = {"alone"};
  const std::string_view long_parts[] = {long_part, "end"};
  // Parts of 16 bytes and more (tested as copied 16 bytes at a time), the quote in the last.
  const std::string_view longer[] = {"ZeRO-3 over 8 GPUs", "a part past 16 bytes \"quoted\""};
  const std::string_view two[] = {"x", "y"};
  auto write = [&](JsonWriter& w) {
    w.begin_array();
    w.joined(plain, " + ");
    w.joined(quoted, "; ");
    w.joined(one, " + ");
    w.joined({}, " + ");
    w.joined(long_parts, "/");
    w.joined(longer, " + ");
    w.joined({longer, 1}, " + ");
    w.joined(two, "\t");  // a separator to escape
    w.end_array();
  };
  TreeWriter tree;
  write(tree);
  std::string text;
  {
    TextWriter stream(text, true);
    write(stream);
  }
  EXPECT_EQ(text, "[\"fp8 weights + TP=2 (2 GPUs)\",\"a\\\"b; c\",\"alone\",\"\",\"" + long_part +
                      "/end\",\"ZeRO-3 over 8 GPUs + a part past 16 bytes \\\"quoted\\\"\","
                      "\"ZeRO-3 over 8 GPUs\",\"x\\ty\"]");
  EXPECT_EQ(json_text(tree.take()), text);
}

// TextWriter buffers its short tokens (2,048 bytes) and appends them when the buffer fills and
// when a top-level value is complete. Documents of every length around the buffer's size and
// its multiples, with keys, short and long strings (past the 512-byte short path), escapes and
// numbers falling across each boundary, give dump()'s bytes; a top-level scalar is in the
// string as soon as it is written ("1.5", "true", by hand).
TEST(JsonWriter, BufferedTextAcrossTheBufferBoundaries) {
  for (int pad = 0; pad < 70; ++pad) {
    TreeWriter tree;
    std::string text;
    {
      TextWriter stream(text, true);
      for (JsonWriter* w : {static_cast<JsonWriter*>(&tree), static_cast<JsonWriter*>(&stream)}) {
        w->begin_array();
        w->string(std::string(static_cast<size_t>(pad), 'x'));
        for (int i = 0; i < 150; ++i) {
          w->begin_object();
          w->field("id", i);
          w->field("long", std::string(static_cast<size_t>(100 + i % 40 * 12), 'y'));
          w->field("quote", i % 7 == 0 ? "a\"b" : "ab");
          w->field("x", 0.1 * i);
          w->end_object();
        }
        w->end_array();
      }
      EXPECT_EQ(text, tree.take().dump()) << "pad " << pad;
    }
  }
  std::string out;
  TextWriter w(out);
  w.value(1.5);
  EXPECT_EQ(out, "1.5");
  std::string flag;
  TextWriter b(flag);
  b.value(true);
  EXPECT_EQ(flag, "true");
}

// A literal key with a signed integer, a float or a string is written in one call
// (literal_integer, literal_number, literal_string) by the writer that does not check its keys: the
// tree's bytes for every kind of field, with the fields falling at every offset around the buffer's
// boundary, and the first field of an object without a comma.
TEST(JsonWriter, FieldsInOneCallAsTheTreeWritesThem) {
  for (int pad = 0; pad < 80; ++pad) {
    TreeWriter tree;
    std::string text;
    {
      TextWriter stream(text);
      for (JsonWriter* w : {static_cast<JsonWriter*>(&tree), static_cast<JsonWriter*>(&stream)}) {
        w->begin_array();
        w->string(std::string(static_cast<size_t>(1900 + pad), 'x'));
        for (int i = 0; i < 12; ++i) {
          w->begin_object();
          w->field("a", -1234567890123LL * i);
          w->field("b", i % 2 == 0);
          w->field("c", 0.1 * i);
          w->field("d", i % 3 == 0 ? std::optional<double>() : std::optional<double>(1e20 / 3));
          w->field("e", std::optional<int64_t>(i));
          w->field("f", static_cast<uint64_t>(i) << 60);
          w->field("g_a_key_of_thirty_two_bytes_long", std::numeric_limits<double>::infinity());
          w->field("h", static_cast<float>(i) / 3);
          w->field("i", std::string(static_cast<size_t>(i * 50), 'i'));  // past 512 at 11
          w->field("j", i % 2 == 0 ? "a \"quoted\" text" : "plain");
          w->field("k", std::optional<std::string>("\xc3\x97"));
          char number[kJsonFloatChars];
          const double l = 0.07 * i - 0.3;
          w->literal_number_text("l", l, {number, write_json_figure(number, l)});
          w->end_object();
        }
        w->end_array();
      }
    }
    EXPECT_EQ(text, tree.take().dump()) << "pad " << pad;
  }
}

// A number with its text (a figure written answer after answer): the text writer copies the text
// it is given, the tree holds the number.
TEST(JsonWriter, NumberWithItsTextWritesTheText) {
  std::string text;
  {
    TextWriter stream(text, true);
    stream.begin_object();
    stream.literal_number_text("pue", 1.5, "1.5");
    stream.literal_number_text("x", 0.1, "0.1");
    stream.end_object();
  }
  EXPECT_EQ(text, R"({"pue":1.5,"x":0.1})");
  TreeWriter tree;
  tree.begin_object();
  tree.literal_number_text("pue", 1.5, "ignored");
  tree.end_object();
  EXPECT_EQ(tree.take().dump(), R"({"pue":1.5})");
}

// The basis texts written in one step each (TextWriter::texts): the tree's bytes for texts empty,
// short, of 16 and 33 bytes, past the 512-byte short path and past the buffer, with a quote, a
// control character and UTF-8 (escaped or checked on the general path), each placed at every
// offset around the buffer's boundary by the padding before them.
TEST(JsonWriter, BasisTextsAsTheTreeWritesThem) {
  Basis basis;
  basis.set("activations_bytes", "");
  basis.set("bands", "p50 of 12 runs");
  basis.set("engine", std::string(16, 'e'));
  basis.set("gpu_watts", std::string(33, 'g'));
  basis.set("kv_cache_bytes", "2 x layers \"x\" heads");
  basis.set("mfu", "line\none");
  basis.set("node_watts", "8 \xc3\x97 700 W");
  basis.set("params", std::string(600, 'p'));
  basis.set("usd_total", std::string(2100, 'u'));
  basis.set("weights_bytes", std::string(200, 'w'));
  for (int pad = 0; pad < 300; pad += 7) {
    TreeWriter tree;
    std::string text;
    {
      TextWriter stream(text);
      for (JsonWriter* w : {static_cast<JsonWriter*>(&tree), static_cast<JsonWriter*>(&stream)}) {
        w->begin_array();
        w->string(std::string(static_cast<size_t>(1800 + pad), 'x'));
        w->texts(basis);
        w->texts(Basis());
        w->end_array();
      }
    }
    EXPECT_EQ(text, tree.take().dump()) << "pad " << pad;
  }
}

// String fields and strings (TextWriter::literal_string and string test a text of 16 bytes or
// more as they copy it, 64, 32 and 16 bytes a step): the tree's bytes for texts of 0 to 130
// bytes, plain or with a quote, a backslash, a control character or UTF-8 as their first, last
// or a byte a quarter, half or three quarters in, each placed at offsets around the buffer's
// boundary by the padding before them.
TEST(JsonWriter, StringsAsTheTreeWritesThem) {
  std::vector<std::string> texts;
  for (size_t n : {0, 1, 5, 15, 16, 17, 31, 32, 33, 40, 63, 64, 65, 100, 130}) {
    texts.emplace_back(n, 'a');
    for (const char* odd : {"\"", "\\", "\n", "\xc3\x97"}) {
      for (size_t at : {size_t{0}, n / 4, n / 2, 3 * n / 4, n > 0 ? n - 1 : 0}) {
        if (n == 0) continue;
        std::string t(n, 'b');
        t.replace(at, 1, odd);
        texts.push_back(t);
      }
    }
  }
  for (int pad = 0; pad < 120; pad += 5) {
    TreeWriter tree;
    std::string text;
    {
      TextWriter stream(text);
      for (JsonWriter* w : {static_cast<JsonWriter*>(&tree), static_cast<JsonWriter*>(&stream)}) {
        w->begin_array();
        w->string(std::string(static_cast<size_t>(1950 + pad), 'x'));
        for (const std::string& t : texts) {
          w->begin_object();
          w->field("name", t);
          w->end_object();
          w->string(t);
        }
        w->end_array();
      }
    }
    EXPECT_EQ(text, tree.take().dump()) << "pad " << pad;
  }
}

// A describer that writes keys out of nlohmann's order would stream different text than the
// tree (which sorts them): the checking writer refuses it, and a repeated key.
TEST(JsonWriter, CheckingWriterRefusesKeysOutOfOrder) {
  std::string out;
  TextWriter w(out, true);
  w.begin_object();
  w.field("b", 1);
  EXPECT_THROW(w.field("a", 2), std::logic_error);
  EXPECT_THROW(w.field("b", 2), std::logic_error);
  w.field("c", 3);
  w.key("d");
  w.begin_object();
  w.field("a", 1);  // a nested object starts its own order
  w.end_object();
  w.end_object();
}

// Every shipped validation scenario's answer, streamed and through the tree: the same bytes.
TEST(JsonWriter, ValidationAnswersStreamAsTheTreeWrites) {
  const Catalog& catalog = Catalog::builtin();
  int answers = 0;
  for (const std::string* cases : {&catalog.memory_cases(), &catalog.throughput_cases()}) {
    std::istringstream lines(*cases);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      const nlohmann::json scenario = nlohmann::json::parse(line).at("scenario");
      nlohmann::json tree;
      try {
        tree = estimate_json(scenario, catalog);
      } catch (const InputError&) {
        // A case the validator reports as an error (an hf_config it cannot read): no answer.
        std::string text;
        EXPECT_THROW(append_estimate_json(text, scenario, catalog), InputError);
        continue;
      }
      std::string text;
      append_estimate_json(text, scenario, catalog);
      EXPECT_EQ(text, json_text(tree)) << scenario.dump();
      ++answers;
    }
  }
  EXPECT_GT(answers, 500);
}

// The plain paths (texts the caller knows need no escaping) write what the tested paths write:
// short texts in the buffer, and past its short size (512 bytes) through the string; the
// separators and parts of a joined text in order.
TEST(TextWriter, PlainPathsAsTheTestedOnes) {
  const std::string long_text(600, 'a'), half(300, 'b');
  const std::string_view parts[] = {"ZeRO-3 over 2 GPUs", "shorter context (1024 tokens)"};
  const std::string_view long_parts[] = {half, half};
  std::string text;
  {
    TextWriter w(text);
    w.begin_object();
    w.literal_plain_string("a", "gradient checkpointing");
    w.literal_plain_string("b", long_text);
    w.key("c");
    w.joined_plain(parts, " + ");
    w.key("d");
    w.joined_plain(long_parts, "; ");
    w.key("e");
    w.begin_array();
    w.plain_string("x");
    w.plain_string(long_text);
    w.plain_string("");
    w.end_array();
    w.end_object();
  }
  const std::string expected = R"j({"a":"gradient checkpointing","b":")j" + long_text +
                               R"j(","c":"ZeRO-3 over 2 GPUs + shorter context (1024 tokens)",)j"
                               R"j("d":")j" +
                               half + "; " + half + R"j(","e":["x",")j" + long_text + R"j(",""]})j";
  EXPECT_EQ(text, expected);
}

}  // namespace
}  // namespace gpusizer
