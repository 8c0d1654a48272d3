// The one-pass member reads (KeyIndex, Members) and the reads of a member already found, which
// must answer and fail as the reads by key do.
#include "core/json_fields.h"

#include <gtest/gtest.h>

#include "gpusizer/error.h"

namespace gpusizer {
namespace {

TEST(KeyIndex, FindsEachKeyByItsBytes) {
  const KeyIndex index({"tp", "pp", "dp", "ep", "sequence_parallel", "cp", ""});
  EXPECT_EQ(index.find("tp"), 0);
  EXPECT_EQ(index.find("dp"), 2);
  EXPECT_EQ(index.find("cp"), 5);
  EXPECT_EQ(index.find("sequence_parallel"), 4);
  EXPECT_EQ(index.find(""), 6);
  EXPECT_EQ(index.find("t"), -1);
  EXPECT_EQ(index.find("tpp"), -1);
  EXPECT_EQ(index.find("tq"), -1);  // the first byte a key's, the rest not
  EXPECT_EQ(index.find("pd"), -1);
  EXPECT_EQ(index.find("TP"), -1);  // keys are exact, as nlohmann's find is
  EXPECT_EQ(index.find("sequence_paralle1"), -1);
  EXPECT_EQ(index.find(std::string(100, 'x')), -1);
}

TEST(KeyIndex, RefusesAKeyTooLongToIndex) {
  EXPECT_THROW(KeyIndex({std::string(40, 'k')}), std::logic_error);
}

TEST(Members, SlotsKnownKeysAndListsTheOthersInTheObjectsOrder) {
  const KeyIndex index({"a", "bb", "c"});
  const nlohmann::json object = {{"zz", 1}, {"c", nullptr}, {"a", 2}, {"b", 3}};
  Members<3> m;
  read_members(object, index, m);
  ASSERT_NE(m.at[0], nullptr);
  EXPECT_EQ(*m.at[0], 2);
  EXPECT_EQ(m.at[1], nullptr);
  EXPECT_TRUE(m.has(2));           // a null value is there, as contains says
  EXPECT_EQ(m.given(2), nullptr);  // and reads as absent
  EXPECT_EQ(m.given(1), nullptr);
  ASSERT_EQ(m.unknown.size(), 2u);  // nlohmann's objects iterate by key
  EXPECT_EQ(*m.unknown[0], "b");
  EXPECT_EQ(*m.unknown[1], "zz");
}

// The message of the InputError `read` throws, with its field.
template <typename Read>
std::string failure(Read read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.field() + " | " + e.what() + " | " + e.code();
  }
  return "no error";
}

TEST(ReadValue, FailsAsTheReadByKey) {
  const nlohmann::json values[] = {nullptr,
                                   true,
                                   4,
                                   -3,
                                   2.5,
                                   1e30,
                                   "x",
                                   "Full",
                                   nlohmann::json::array(),
                                   nlohmann::json::object()};
  const std::vector<std::string> allowed = {"full", "none"};
  for (const nlohmann::json& v : values) {
    const nlohmann::json obj = {{"k", v}};
    const nlohmann::json* p = &obj["k"];
    EXPECT_EQ(failure([&] { read_int(obj, "k", "o", 1, 100); }),
              failure([&] { read_int_value(p, "k", "o", 1, 100); }))
        << v;
    EXPECT_EQ(failure([&] { read_number(obj, "k", "", 0.5, 3); }),
              failure([&] { read_number_value(p, "k", "", 0.5, 3); }))
        << v;
    EXPECT_EQ(failure([&] { read_bool(obj, "k", "o"); }),
              failure([&] { read_bool_value(p, "k", "o"); }))
        << v;
    EXPECT_EQ(failure([&] { read_string(obj, "k", "o"); }),
              failure([&] { read_string_value(p, "k", "o"); }))
        << v;
    EXPECT_EQ(failure([&] { read_enum(obj, "k", "o", allowed); }),
              failure([&] { read_enum_index(p, "k", "o", allowed); }))
        << v;
  }
}

TEST(ReadValue, ReadsWhatTheReadByKeyReads) {
  const nlohmann::json obj = {{"i", 1e3}, {"s", "text"}, {"e", "NONE"}, {"n", nullptr}};
  EXPECT_EQ(read_int_value(&obj["i"], "i", "", 1, 5000), 1000);
  EXPECT_EQ(read_string_value(&obj["s"], "s", ""), "text");
  EXPECT_EQ(read_enum_index(&obj["e"], "e", "", {"full", "none"}), 1u);  // case-insensitive
  EXPECT_EQ(read_enum(obj, "e", "", {"full", "none"}), "none");
  EXPECT_EQ(read_int_value(&obj["n"], "n", "", 1, 5), std::nullopt);
  EXPECT_EQ(read_int_value(nullptr, "x", "", 1, 5), std::nullopt);
  EXPECT_EQ(read_bool_value(nullptr, "x", ""), std::nullopt);
}

TEST(ReadValue, AnEnumIgnoresTheCaseOfAsciiLettersOnly) {
  const std::vector<std::string> tasks = {"inference", "lora", "qlora", "full"};
  auto index = [&](const char* text) {
    const nlohmann::json v = text;
    return read_enum_index(&v, "task", "", tasks);
  };
  EXPECT_EQ(index("qlora"), 2u);
  EXPECT_EQ(index("QLoRA"), 2u);
  EXPECT_EQ(index("FULL"), 3u);
  EXPECT_EQ(index("Inference"), 0u);
  EXPECT_THROW(index("lor"), InputError);
  // Bytes that are no ASCII capital stay themselves: '@' is one below 'A' and '[' one above 'Z',
  // and either lowered by 0x20 would read as '`' or '{'.
  const std::vector<std::string> odd = {"a`b", "x{y"};
  const nlohmann::json at = "a@b", bracket = "x[y", grave = "a`b";
  EXPECT_THROW(read_enum_index(&at, "k", "", odd), InputError);
  EXPECT_THROW(read_enum_index(&bracket, "k", "", odd), InputError);
  EXPECT_EQ(read_enum_index(&grave, "k", "", odd), 0u);
}

TEST(ReadValue, TheFieldInTheErrorJoinsPathAndKey) {
  const nlohmann::json zero = 0;
  try {
    read_int_value(&zero, "tp", "parallel", 1, 8);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "parallel.tp");
    EXPECT_STREQ(e.what(), "parallel.tp: must be between 1 and 8, not 0");
  }
  try {
    read_enum_index(&zero, "task", "", {"a"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "task");
  }
}

}  // namespace
}  // namespace gpusizer
