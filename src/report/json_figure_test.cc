// A figure is written with six significant digits (its whole part never rounded), and its text
// is the one nlohmann's dump() writes for the rounded double, so the text writer and the tree
// writer agree byte for byte.
#include "report/json_figure.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "report/json_text_parts.h"

namespace gpusizer {
namespace {

std::string figure(double v) {
  char buffer[kJsonFloatChars];
  return std::string(buffer, write_json_figure(buffer, v));
}

// nlohmann's text of a double (its Grisu2 and format_buffer).
std::string dumped(double v) {
  return nlohmann::json(v).dump();
}

// Texts rounded by hand to six significant digits or, from 10^6, to the nearest whole number
// (ties to even), laid out as nlohmann lays out a double:
// fixed notation from 10^-4 below 10^15, ".0" after a whole number, a signed two-digit exponent
// outside. The first ones are figures from answers of session 34 (the long texts they had).
TEST(JsonFigure, HandRoundedTexts) {
  EXPECT_EQ(figure(0.6985073613760101), "0.698507");  // a change's speed factor
  EXPECT_EQ(figure(459.90000000000003), "459.9");     // a maintenance cost a year
  EXPECT_EQ(figure(0.46799999999999997), "0.468");    // energy, dollars an hour
  EXPECT_EQ(figure(8189.1359999999995), "8189.14");   // BTU an hour
  EXPECT_EQ(figure(38918.95417074453), "38919.0");    // prefill tokens a second
  EXPECT_EQ(figure(7.142473573784107), "7.14247");    // TPOT, ms
  EXPECT_EQ(figure(1.0069444444444444), "1.00694");   // UPS kVA
  EXPECT_EQ(figure(7.56), "7.56");
  EXPECT_EQ(figure(906.25), "906.25");
  EXPECT_EQ(figure(3.0), "3.0");
  EXPECT_EQ(figure(1234567.0), "1234567.0");
  EXPECT_EQ(figure(1234567.4), "1234567.0");
  EXPECT_EQ(figure(2345678.5), "2345678.0");
  EXPECT_EQ(figure(-2345679.5), "-2345680.0");
  EXPECT_EQ(figure(648000.0), "648000.0");
  EXPECT_EQ(figure(999999.4), "999999.0");
  EXPECT_EQ(figure(999999.6), "1000000.0");
  EXPECT_EQ(figure(-2.5), "-2.5");
  EXPECT_EQ(figure(0.0001234567), "0.000123457");
  EXPECT_EQ(figure(0.0001), "0.0001");
  EXPECT_EQ(figure(123456789012.0), "123456789012.0");
  EXPECT_EQ(figure(0.0), "0.0");
  EXPECT_EQ(figure(-0.0), "-0.0");
  EXPECT_EQ(figure(1.23456789e-5), "1.23457e-05");
  EXPECT_EQ(figure(999999999999999.9), "1e+15");
  EXPECT_EQ(figure(123456789012345678.0), "1.2345678901234568e+17");
  // The double nearest 0.117694 lies at the very end of Grisu2's interval, which then writes
  // more digits: the exact way keeps the text the tree writer's.
  EXPECT_EQ(figure(-0.117694), "-0.11769399999999999");
  EXPECT_EQ(figure(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(figure(std::numeric_limits<double>::quiet_NaN()), "null");
}

TEST(JsonFigure, ValueIsTheRoundedDouble) {
  EXPECT_EQ(json_figure_value(0.6985073613760101), 0.698507);
  EXPECT_EQ(json_figure_value(-459.90000000000003), -459.9);
  EXPECT_EQ(json_figure_value(1234567.0), 1234567.0);
  EXPECT_EQ(json_figure_value(1234567.6), 1234568.0);
  EXPECT_EQ(json_figure_value(1.23456789e-5), 1.23457e-5);
  EXPECT_EQ(json_figure_value(0.0), 0.0);
  EXPECT_TRUE(std::isnan(json_figure_value(std::numeric_limits<double>::quiet_NaN())));
}

// Over doubles of every scale an answer has (and beyond, both signs): the text is nlohmann's
// for the rounded double; the rounded double is within half a unit of the sixth digit, or of
// the units from 10^6; and below 10^6 all but the few whose decimal sits at the very end of
// Grisu2's interval read as six digits or fewer.
TEST(JsonFigure, TextIsNlohmannsTextOfTheRoundedValue) {
  std::mt19937_64 random(20261207);
  std::uniform_real_distribution<double> decade(-7.0, 18.0);
  int long_texts = 0;
  constexpr int kDraws = 200000;
  for (int i = 0; i < kDraws; ++i) {
    double v = std::pow(10.0, decade(random));
    if (i % 3 == 0) v = -v;
    if (i % 7 == 0 && v > 1) v = std::round(v);  // whole numbers, as prices and watts are
    const double rounded = json_figure_value(v);
    ASSERT_EQ(figure(v), dumped(rounded)) << std::bit_cast<uint64_t>(v);
    ASSERT_LE(std::fabs(rounded - v), std::max(5.0000001e-6 * std::fabs(v), 0.5)) << v;
    if (std::fabs(v) >= 1e6) continue;
    const std::string text = dumped(rounded);
    size_t digits = 0;
    for (size_t k = 0; k < text.size() && text[k] != 'e'; ++k)
      if (text[k] >= '1' && text[k] <= '9') digits = k + 1;  // last nonzero digit's end
    const size_t first = text.find_first_of("123456789");
    const std::string significant = text.substr(first, digits - first);
    size_t count = 0;
    for (char c : significant) count += c >= '0' && c <= '9' ? 1 : 0;
    if (count > kFigureDigits) ++long_texts;
  }
  EXPECT_LT(long_texts, kDraws / 500);
}

}  // namespace
}  // namespace gpusizer
