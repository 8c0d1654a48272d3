// Strict JSON input: what nlohmann accepts silently (a trailing NUL, duplicate keys) or throws as
// an internal error (a number past the double range) is bad input naming where.
#include "gpusizer/json/json_input.h"

#include <gtest/gtest.h>

#include "gpusizer/error.h"

namespace gpusizer {
namespace {

InputError error_of(std::string_view text) {
  try {
    parse_json_input(text, "line 3");
  } catch (const InputError& e) {
    return e;
  }
  return InputError("", "no error", "none");
}

TEST(JsonInput, ParsesOrdinaryJson) {
  const auto j = parse_json_input(R"({"model": "llama-2-7b", "batch": 4, "x": [1, {"a": 2}]})", "");
  EXPECT_EQ(j["batch"], 4);
  EXPECT_EQ(j["x"][1]["a"], 2);
}

TEST(JsonInput, ATrailingNulIsMalformed) {
  // nlohmann stops at the NUL and returns {"model": ...} as if the text ended there.
  const InputError e = error_of(std::string("{\"model\": \"llama-2-7b\"}\0", 24));
  EXPECT_EQ(e.code(), "bad_json");
  EXPECT_STREQ(e.what(), "line 3: malformed JSON: a NUL byte at byte 23");
}

TEST(JsonInput, DuplicateKeysAreBadInputNamingTheKey) {
  InputError e = error_of(R"({"batch": 1, "batch": 64})");
  EXPECT_EQ(e.code(), "bad_input");
  EXPECT_STREQ(e.what(), "line 3: batch: the key appears twice in one object");
  e = error_of(R"({"training": {"optimizer": "adamw", "optimizer": "sgd"}})");
  EXPECT_STREQ(e.what(), "line 3: training.optimizer: the key appears twice in one object");
  // The same key in two different objects is fine.
  EXPECT_NO_THROW(
      parse_json_input(R"({"a": {"k": 1}, "b": {"k": 2}, "k": [{"k": 1}, {"k": 2}]})", ""));
}

TEST(JsonInput, ANumberPastTheDoubleRangeNamesItsField) {
  // DBL_MAX is about 1.8e308, so 1e400 overflows (IEEE 754 binary64).
  InputError e = error_of(R"({"model": "llama-2-7b", "batch": 1e400})");
  EXPECT_EQ(e.code(), "out_of_range");
  EXPECT_EQ(e.field(), "batch");
  EXPECT_STREQ(e.what(), "batch: must be a finite number that a double can hold, not 1e400");
  e = error_of(R"({"training": {"tokens": -1e999}})");
  EXPECT_EQ(e.field(), "training.tokens");
  e = error_of(R"({"x": [1, 2, 1e400]})");
  EXPECT_EQ(e.field(), "x[2]");
  // 1e308 is a finite double: parsed, the scenario's range check judges it.
  EXPECT_NO_THROW(parse_json_input(R"({"batch": 1e308})", ""));
}

TEST(JsonInput, MalformedTextIsBadJson) {
  EXPECT_EQ(error_of(R"({"model": )").code(), "bad_json");
  EXPECT_EQ(error_of("").code(), "bad_json");
}

}  // namespace
}  // namespace gpusizer
