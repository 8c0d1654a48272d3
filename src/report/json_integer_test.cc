// json_integer_text must write std::to_chars's bytes (nlohmann's dump() writes the same digits)
// and stay inside its 20 bytes of room.
#include "report/json_integer.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

namespace gpusizer {
namespace {

template <typename T>
std::string ours(T v) {
  char buffer[kJsonIntegerRoom];
  return std::string(buffer, json_integer_text(buffer, v));
}

template <typename T>
std::string reference(T v) {
  char buffer[24];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, v).ptr);
}

TEST(JsonInteger, HandCheckedTexts) {
  EXPECT_EQ(ours(uint64_t{0}), "0");
  EXPECT_EQ(ours(uint64_t{7}), "7");
  EXPECT_EQ(ours(uint64_t{10}), "10");
  EXPECT_EQ(ours(uint64_t{100}), "100");
  EXPECT_EQ(ours(uint64_t{99999999}), "99999999");
  EXPECT_EQ(ours(uint64_t{100000000}), "100000000");
  EXPECT_EQ(ours(uint64_t{100000001}), "100000001");
  EXPECT_EQ(ours(uint64_t{16060162048}), "16060162048");  // an 8B model's weights in bytes
  EXPECT_EQ(ours(uint64_t{9999999999999999}), "9999999999999999");
  EXPECT_EQ(ours(uint64_t{10000000000000000}), "10000000000000000");
  EXPECT_EQ(ours(std::numeric_limits<uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(ours(int64_t{0}), "0");
  EXPECT_EQ(ours(int64_t{-1}), "-1");
  EXPECT_EQ(ours(int64_t{-120}), "-120");
  EXPECT_EQ(ours(std::numeric_limits<int64_t>::max()), "9223372036854775807");
  EXPECT_EQ(ours(std::numeric_limits<int64_t>::min()), "-9223372036854775808");
}

// Every number below 10^7, and each power of ten with its neighbours (where the digit count and
// the eight-digit groups change).
TEST(JsonInteger, SmallNumbersAndPowersOfTenAsToChars) {
  for (uint64_t v = 0; v < 10000000; ++v) ASSERT_EQ(ours(v), reference(v)) << v;
  for (uint64_t p = 1; p <= 10000000000000000000ULL; p *= 10) {
    for (uint64_t v : {p - 1, p, p + 1, 2 * p - 1, 9 * p}) {
      ASSERT_EQ(ours(v), reference(v)) << v;
      const auto s = static_cast<int64_t>(v);
      ASSERT_EQ(ours(s), reference(s)) << s;
      ASSERT_EQ(ours(-s), reference(-s)) << -s;
    }
    if (p > std::numeric_limits<uint64_t>::max() / 10) break;
  }
}

// Numbers of 9 to 20 digits are written sixteen digits at a time, in four-digit quarters: every
// four-digit value in every quarter of both eight-digit halves, with and without leading zeros.
TEST(JsonInteger, EveryQuarterAsToChars) {
  constexpr uint64_t k4 = 10000, k8 = k4 * k4;
  for (uint64_t y = 0; y < k4; ++y) {
    for (uint64_t v : {y * k8 + y + k8, (y * k4 + y) * k8 + y * k4 + y, (y + 1) * k8 * k4 + y,
                       (y % 1844) * k8 * k8 + (y * k4 + y) * k8 + y, ~uint64_t{0} - y * k8}) {
      ASSERT_EQ(ours(v), reference(v)) << v;
    }
  }
}

// Random numbers of every length: uniform bit patterns are mostly 19-20 digits, so the width is
// drawn first.
TEST(JsonInteger, RandomNumbersAsToChars) {
  std::mt19937_64 rng(18);
  for (int i = 0; i < 2000000; ++i) {
    const uint64_t v = rng() >> (rng() % 64);
    ASSERT_EQ(ours(v), reference(v)) << v;
    const auto s = static_cast<int64_t>(v);
    ASSERT_EQ(ours(s), reference(s)) << s;
  }
}

// The text and its whole-word stores stay inside the room: bytes past 20 are never touched.
TEST(JsonInteger, WritesWithinItsRoom) {
  for (uint64_t v : {uint64_t{5}, uint64_t{12345678}, uint64_t{123456789012345},
                     std::numeric_limits<uint64_t>::max()}) {
    char buffer[kJsonIntegerRoom + 8];
    std::memset(buffer, '#', sizeof buffer);
    json_integer_text(buffer, v);
    for (size_t i = kJsonIntegerRoom; i < sizeof buffer; ++i) EXPECT_EQ(buffer[i], '#') << v;
  }
  char buffer[kJsonIntegerRoom + 8];
  std::memset(buffer, '#', sizeof buffer);
  json_integer_text(buffer, std::numeric_limits<int64_t>::min());
  for (size_t i = kJsonIntegerRoom; i < sizeof buffer; ++i) EXPECT_EQ(buffer[i], '#');
}

}  // namespace
}  // namespace gpusizer
