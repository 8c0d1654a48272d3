// json_text must write exactly what nlohmann's dump() writes (compact and pretty, with invalid
// UTF-8 replaced): nlohmann's serializer is the reference.
#include "gpusizer/json/json_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "gpusizer/json/api.h"
#include "report/json_text_parts.h"

namespace gpusizer {
namespace {

std::string reference(const nlohmann::json& v, int indent) {
  return v.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

TEST(JsonText, EscapesLikeNlohmann) {
  const std::vector<std::string> strings = {"",
                                            "plain",
                                            "quote \" and \\ backslash",
                                            "\b\f\n\r\t",
                                            std::string("nul \0 byte", 10),
                                            "\x01\x1f\x7f",
                                            "caf\xc3\xa9 \xe6\x98\xbe\xe5\xad\x98 \xf0\x9f\x9a\x80",
                                            "bad \xff byte",
                                            "cut \xe6\x98",
                                            "overlong \xc0\xaf",
                                            "surrogate \xed\xa0\x80",
                                            "past max \xf4\x90\x80\x80",
                                            "\xc3"};
  for (const auto& s : strings) {
    const nlohmann::json v = {{"k", s}, {s, {1, s}}};
    EXPECT_EQ(json_text(v), reference(v, -1)) << s;
    EXPECT_EQ(json_text(v, 2), reference(v, 2)) << s;
  }
}

// The plain-string test reads 16-byte blocks, overlapping words at the end and three bytes of a
// short string: a byte to escape (or a non-ASCII one) at every position of every length up to 40
// must still be escaped as nlohmann escapes it, and the plain strings copied as they are.
TEST(JsonText, EscapesAtEveryPositionAndLength) {
  for (const char bad : {'"', '\\', '\n', '\x01', '\x1f', '\x80', '\xc3', '\xff'}) {
    for (size_t n = 0; n <= 40; ++n) {
      const std::string clean(n, 'a');
      EXPECT_EQ(json_text(clean), reference(clean, -1)) << n;
      for (size_t i = 0; i < n; ++i) {
        std::string s = clean;
        s[i] = bad;
        EXPECT_EQ(json_text(s), reference(s, -1)) << n << " " << i;
      }
    }
  }
}

// json_plain reads 32 bytes a step, then 16, then the last block: every byte value at every
// position of every length up to 80 decides it as the byte's own test does (plain: 0x20 to 0x7F
// except '"' and '\\').
TEST(JsonText, PlainTestsEveryByteAtEveryPosition) {
  for (int b = 0; b < 256; ++b) {
    const bool byte_plain = b >= 0x20 && b < 0x80 && b != '"' && b != '\\';
    for (size_t n = 1; n <= 80; ++n) {
      for (size_t i = 0; i < n; ++i) {
        std::string s(n, 'a');
        s[i] = static_cast<char>(b);
        ASSERT_EQ(json_plain(s), byte_plain) << b << " " << n << " " << i;
      }
    }
  }
}

// copy_json_plain copies and tests in one pass (SSE2: 64 bytes a step, then 32, then 16, then
// the block ending at the end; with AVX2 from 32 bytes on: 64, then 32, then the 32 ending at the
// end; both bodies tested): the same answer as json_plain for every byte value at every position of
// every length up to 80, and for the bytes at the edges of the plain range (and a plain one) at
// every position up to 200 ('"' is 0x22, '\\' 0x5C), the bytes copied when plain, and nothing
// written past the text's end.
TEST(JsonText, CopyPlainTestsAndCopiesEveryByteAtEveryPosition) {
  char out[224];
  std::string s;
  const auto check_with = [&](char* (*copy)(char*, std::string_view), int b, size_t n, size_t i) {
    const bool byte_plain = b >= 0x20 && b < 0x80 && b != '"' && b != '\\';
    s.resize(n);
    for (size_t k = 0; k < n; ++k) s[k] = static_cast<char>('A' + k % 26);
    s[i] = static_cast<char>(b);
    std::memset(out, '#', sizeof out);
    const char* end = copy(out, s);
    ASSERT_EQ(end != nullptr, byte_plain) << b << " " << n << " " << i;
    ASSERT_EQ(out[n], '#') << b << " " << n << " " << i;
    if (end) {
      ASSERT_EQ(end, out + n);
      ASSERT_EQ(std::string(out, n), s);
    }
  };
  const auto check = [&](int b, size_t n, size_t i) {
    ASSERT_NO_FATAL_FAILURE(check_with(copy_json_plain, b, n, i));
    ASSERT_NO_FATAL_FAILURE(check_with(copy_json_plain_sse2, b, n, i));
  };
  for (int b = 0; b < 256; ++b)
    for (size_t n = 1; n <= 80; ++n)
      for (size_t i = 0; i < n; ++i) ASSERT_NO_FATAL_FAILURE(check(b, n, i));
  for (const int b : {0x00, 0x1F, 0x20, 0x21, 0x22, 0x5C, 0x7F, 0x80, 0xFF})
    for (size_t n = 81; n <= 200; ++n)
      for (size_t i = 0; i < n; ++i) ASSERT_NO_FATAL_FAILURE(check(b, n, i));
  EXPECT_EQ(copy_json_plain(out, ""), out);
  EXPECT_EQ(copy_json_plain_sse2(out, ""), out);
}

TEST(JsonText, NumbersLikeNlohmann) {
  const nlohmann::json v = {0,
                            -1,
                            int64_t{-9223372036854775807} - 1,
                            uint64_t{18446744073709551615u},
                            0.0,
                            -0.0,
                            5.0,
                            0.1,
                            1e21,
                            1e-7,
                            123456789.125,
                            1.7976931348623157e308,
                            5e-324,
                            std::nan(""),
                            std::numeric_limits<double>::infinity()};
  EXPECT_EQ(json_text(v), reference(v, -1));
}

// Whole numbers take a shortcut past Grisu2: their digits and ".0", as dump() writes them, up to
// 10^15 - 1 (15 digits); from 10^15 on, dump()'s exponent form.
TEST(JsonText, WholeNumbersLikeNlohmann) {
  EXPECT_EQ(json_text(nlohmann::json(450.0)), "450.0");
  EXPECT_EQ(json_text(nlohmann::json(-3000.0)), "-3000.0");
  EXPECT_EQ(json_text(nlohmann::json(-0.0)), "-0.0");
  EXPECT_EQ(json_text(nlohmann::json(999999999999999.0)), "999999999999999.0");
  EXPECT_EQ(json_text(nlohmann::json(1e15)), "1e+15");
  nlohmann::json v = nlohmann::json::array();
  std::mt19937_64 rng(18);
  for (int i = 0; i < 20000; ++i) {
    const double limit = std::pow(10.0, static_cast<double>(rng() % 16));
    const double whole = std::floor(std::uniform_real_distribution<double>(0, limit)(rng));
    v.push_back(rng() % 2 ? whole : -whole);
  }
  for (double p = 1; p < 2e15; p *= 2) v.push_back(p);
  for (double p = 1; p < 2e15; p *= 10) v.push_back(p);
  EXPECT_EQ(json_text(v), reference(v, -1));
}

// Whether a number is whole is asked by converting its magnitude to an integer and back: the
// neighbours of whole numbers (one ulp either way), halves and the last non-whole doubles below
// 10^15 are not whole and take Grisu2, as dump() writes them.
TEST(JsonText, NearlyWholeNumbersLikeNlohmann) {
  nlohmann::json v = nlohmann::json::array();
  for (double whole : {1.0, 2.0, 3.0, 1e6, 4503599627370495.0, 999999999999999.0, 1e15}) {
    for (double n :
         {std::nextafter(whole, 0.0), std::nextafter(whole, 2e15), whole - 0.5, whole + 0.5}) {
      v.push_back(n);
      v.push_back(-n);
    }
  }
  v.push_back(0.5);
  v.push_back(-0.5);
  v.push_back(5e-324);
  EXPECT_EQ(json_text(v), reference(v, -1));
  EXPECT_EQ(json_text(nlohmann::json(999999999999999.5)), "999999999999999.5");
  EXPECT_EQ(json_text(nlohmann::json(-2.5)), "-2.5");
}

nlohmann::json random_value(std::mt19937& rng, int depth) {
  std::uniform_int_distribution<int> kind(0, depth > 3 ? 4 : 6);
  switch (kind(rng)) {
    case 0:
      return nullptr;
    case 1:
      return rng() % 2 == 0;
    case 2:
      return static_cast<int64_t>(rng()) - (1LL << 31);
    case 3:
      return std::ldexp(static_cast<double>(rng()), static_cast<int>(rng() % 80) - 40);
    case 4: {
      std::string s;
      for (auto i = rng() % 12; i > 0; --i) s += static_cast<char>(rng() % 256);
      return s;
    }
    case 5: {
      nlohmann::json a = nlohmann::json::array();
      for (auto i = rng() % 4; i > 0; --i) a.push_back(random_value(rng, depth + 1));
      return a;
    }
    default: {
      nlohmann::json o = nlohmann::json::object();
      for (auto i = rng() % 4; i > 0; --i)
        o[std::string(1, static_cast<char>('a' + rng() % 26))] = random_value(rng, depth + 1);
      return o;
    }
  }
}

TEST(JsonText, RandomDocumentsLikeNlohmann) {
  std::mt19937 rng(20261130);
  for (int i = 0; i < 3000; ++i) {
    const nlohmann::json v = random_value(rng, 0);
    ASSERT_EQ(json_text(v), reference(v, -1));
    ASSERT_EQ(json_text(v, 2), reference(v, 2));
    ASSERT_EQ(json_text(v, 0), reference(v, 0));
  }
}

TEST(JsonText, EstimateOutputLikeNlohmann) {
  for (const char* line :
       {R"({"model": "llama-3.1-70b", "task": "qlora", "gpu": "a100-80g"})",
        R"({"model": "deepseek-v3", "gpu": "h100", "gpu_count": 8, "engine": "vllm"})"}) {
    const nlohmann::json out = estimate_json(nlohmann::json::parse(line));
    EXPECT_EQ(json_text(out), reference(out, -1));
    EXPECT_EQ(json_text(out, 2), reference(out, 2));
  }
}

}  // namespace
}  // namespace gpusizer
