// The fast printf conversions: texts derived by hand from C17 7.21.6.1 ("%f": the value rounded
// to the precision's decimals; "%g": "%e" below 1e-4 or at 10^precision and above, else "%f"
// with precision - 1 - X decimals and trailing zeros removed), and the cases left to the exact
// path.
#include "core/float_text.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

namespace gpusizer {
namespace {

// The text, or "declined" when the fast path leaves the value to the exact formatter.
std::string fixed(double v, int precision) {
  char buf[kFloatTextChars];
  char* end = fixed_text(buf, v, precision);
  return end ? std::string(buf, end) : "declined";
}

std::string general(double v, int precision) {
  char buf[kFloatTextChars];
  char* end = general_text(buf, v, precision);
  return end ? std::string(buf, end) : "declined";
}

TEST(FloatText, FixedZerosAndSigns) {
  EXPECT_EQ(fixed(0.0, 0), "0");
  EXPECT_EQ(fixed(0.0, 2), "0.00");
  EXPECT_EQ(fixed(-0.0, 0), "-0");  // printf keeps the sign of negative zero
  EXPECT_EQ(fixed(-0.0, 1), "-0.0");
  EXPECT_EQ(fixed(-0.001, 2), "-0.00");  // a negative value that rounds to zero keeps its sign
  EXPECT_EQ(fixed(-21.76, 1), "-21.8");  // 21.760000000000001563...
}

TEST(FloatText, FixedRoundsTheExactBinaryValue) {
  // 0.1 + 0.2 = 0.3000000000000000444089209850062616169452667236328125.
  EXPECT_EQ(fixed(0.1 + 0.2, 2), "0.30");
  EXPECT_EQ(fixed(0.1 + 0.2, 15), "0.300000000000000");
  // 1.005 is 1.00499999999999989341858963598497211933135986328125: down, not up.
  EXPECT_EQ(fixed(1.005, 2), "1.00");
  // 2.675 is 2.67499999999999982236431605997495353221893310546875.
  EXPECT_EQ(fixed(2.675, 2), "2.67");
  // 0.7 is 0.6999999999999999555910790149937383830547332763671875.
  EXPECT_EQ(fixed(0.7, 0), "1");
  EXPECT_EQ(fixed(1e-7, 2), "0.00");
  // 1e-7 is 9.99999999999999954748111825886258685613938723690807819366e-08.
  EXPECT_EQ(fixed(1e-7, 15), "0.000000100000000");
  EXPECT_EQ(fixed(13476831232.0 / 1073741824.0, 2), "12.55");   // 12.5512...: Llama-2-7B bf16 GiB
  EXPECT_EQ(fixed(9007199254740991.0, 0), "9007199254740991");  // 2^53 - 1
}

TEST(FloatText, FixedDeclinesTiesAndWhatItCannotHold) {
  EXPECT_EQ(fixed(2.5, 0), "declined");    // printf: "2", to even
  EXPECT_EQ(fixed(0.125, 2), "declined");  // exact binary: 12.5 hundredths
  EXPECT_EQ(fixed(1e21, 2), "declined");   // past 2^53
  EXPECT_EQ(fixed(9007199254740992.0, 0), "declined");
  EXPECT_EQ(fixed(std::numeric_limits<double>::infinity(), 2), "declined");
  EXPECT_EQ(fixed(std::nan(""), 2), "declined");
  EXPECT_EQ(fixed(1.0, 16), "declined");
  EXPECT_EQ(fixed(1e-300, 2), "declined");
}

TEST(FloatText, General) {
  EXPECT_EQ(general(0.0, 6), "0");
  EXPECT_EQ(general(-0.0, 6), "-0");
  EXPECT_EQ(general(0.1 + 0.2, 6), "0.3");    // 0.300000, zeros removed
  EXPECT_EQ(general(450.0, 6), "450");        // the point left bare is removed
  EXPECT_EQ(general(1.0, 6), "1");            // a power of ten: X = 0 exactly
  EXPECT_EQ(general(100000.0, 6), "100000");  // X = 5 < 6
  EXPECT_EQ(general(123456.0, 6), "123456");
  EXPECT_EQ(general(0.0001, 6), "0.0001");  // X = -4: still "%f"; the literal is above 10^-4
  EXPECT_EQ(general(0.722, 3), "0.722");
  EXPECT_EQ(general(21.7049, 3), "21.7");
  EXPECT_EQ(general(-3.14159, 3), "-3.14");
  EXPECT_EQ(general(1.0069444444444444, 6), "1.00694");
  // 0.9999996 to six digits carries to 1.00000: X becomes 0 and the text "1"; left to the exact
  // path, which knows the carry.
  EXPECT_EQ(general(0.9999996, 6), "declined");
}

// Whole numbers below 10^8 take the whole-number path (the word's digits, or "0"); 10^8 and up and
// values with a fraction take the rest. The texts by hand: "%f" writes the digits and
// `precision` zeros after the point, "%g" the digits alone while they are at most `precision`;
// both keep the sign of negative zero.
TEST(FloatText, WholeNumbersBelowTenToTheEightAndAround) {
  EXPECT_EQ(fixed(-0.0, 3), "-0.000");
  EXPECT_EQ(general(-0.0, 3), "-0");
  EXPECT_EQ(general(0.0, 1), "0");
  EXPECT_EQ(fixed(1599.0, 0), "1599");
  EXPECT_EQ(fixed(3.0, 2), "3.00");
  EXPECT_EQ(fixed(-8760.0, 15), "-8760.000000000000000");
  EXPECT_EQ(fixed(1.0, 0), "1");
  EXPECT_EQ(fixed(99999999.0, 0), "99999999");      // the whole-number path's largest
  EXPECT_EQ(fixed(100000000.0, 1), "100000000.0");  // past it: the rest
  EXPECT_EQ(fixed(0.5, 0), "declined");             // a tie, to even in printf
  EXPECT_EQ(general(450.0, 3), "450");
  EXPECT_EQ(general(-12.0, 6), "-12");
  EXPECT_EQ(general(7.0, 1), "7");
  EXPECT_EQ(general(99999999.0, 8), "99999999");
  EXPECT_EQ(general(4500.0, 3), "4.5e+03");         // four digits past three: "%e"
  EXPECT_EQ(general(99999999.0, 7), "1e+08");       // rounded to seven digits it carries
  EXPECT_EQ(general(100000000.0, 9), "100000000");  // past the whole-number path: the rest
}

// Digits below 10^8 with at most seven decimals are laid out from one word: the point among
// them, zeros before them when the value is below one. The texts by hand.
TEST(FloatText, ScaledDigitsFromTheWord) {
  EXPECT_EQ(general(16.5234, 3), "16.5");     // 165, one decimal
  EXPECT_EQ(general(0.00128, 3), "0.00128");  // 128 with five decimals: "0." and two zeros
  EXPECT_EQ(general(-0.675, 3), "-0.675");
  EXPECT_EQ(fixed(0.5, 7), "0.5000000");        // eight characters of the word
  EXPECT_EQ(fixed(1234567.5, 1), "1234567.5");  // eight digits
  EXPECT_EQ(fixed(0.1234567, 7), "0.1234567");
  // Nine digits (12345678.3 is within 2^-30 of it): the pairs' path.
  EXPECT_EQ(fixed(12345678.3, 1), "12345678.3");
}

TEST(FloatText, GeneralDeclinesTheSmallAndHugeExponentForms) {
  EXPECT_EQ(general(1e-30, 6), "declined");    // printf: "1e-30", 10^35 past the exact powers
  EXPECT_EQ(general(9.5e-20, 6), "declined");  // 10^24 past the exact powers
  EXPECT_EQ(general(1e21, 6), "declined");     // printf: "1e+21"
  EXPECT_EQ(general(1e15, 3), "declined");     // printf: "1e+15", past the fast path's 1e15
  EXPECT_EQ(general(0.5, 0), "declined");      // precision 0 means 1: left to fmt
}

// The exponent form from 10^precision up to 1e15, as printf writes it (C17 7.21.6.1: the
// digits of the value rounded to `precision`, the fraction's trailing zeros removed, then 'e', a
// sign and at least two digits): the texts by hand, a carry into the next power, exact ties left
// to the slow path (printf rounds them to even).
TEST(FloatText, GeneralExponentForm) {
  EXPECT_EQ(general(1234567.0, 6), "1.23457e+06");
  EXPECT_EQ(general(1000.0, 3), "1e+03");
  EXPECT_EQ(general(1234.5678, 3), "1.23e+03");
  EXPECT_EQ(general(-1200.0, 3), "-1.2e+03");
  EXPECT_EQ(general(2346.0, 3), "2.35e+03");
  EXPECT_EQ(general(9996.0, 3), "1e+04");  // rounded up into the next power of ten
  EXPECT_EQ(general(99999999999999.9, 3), "1e+14");
  EXPECT_EQ(general(123456789012345.0, 15), "123456789012345");  // 15 digits: not the e form
  EXPECT_EQ(general(123456789012346.0, 14), "1.2345678901235e+14");
  EXPECT_EQ(general(123456789012345.0, 14), "declined");  // an exact tie at 14 digits
  EXPECT_EQ(general(1250.0, 2), "declined");              // an exact tie: printf's "1.2e+03"
  EXPECT_EQ(general(1350.0, 2), "declined");              // an exact tie: printf's "1.4e+03"
  EXPECT_EQ(general(1250.0000000000002, 2), "1.3e+03");
  EXPECT_EQ(general(1249.9999999999998, 2), "1.2e+03");
  EXPECT_EQ(general(5e14, 1), "5e+14");
}

// The exponent form below 10^-4 (C17 7.21.6.1: "%e" when the exponent X of the value rounded to
// the precision is below -4): the texts by hand, the exponent found at the binary exponent's
// guess and one above it (9.9e-6 and 1e-5 share 2^-17, guessed -6), a carry to 10^-4 ("%f"
// form) and an exact tie (2^-17 = 7.62939453125e-06 at 11 digits: printf's "7.6293945312e-06")
// declined.
TEST(FloatText, GeneralSmallExponentForm) {
  EXPECT_EQ(general(9.63e-5, 3), "9.63e-05");
  EXPECT_EQ(general(9.6349e-5, 3), "9.63e-05");
  EXPECT_EQ(general(-9.635001e-5, 3), "-9.64e-05");
  EXPECT_EQ(general(1e-7, 6), "1e-07");
  EXPECT_EQ(general(1.5e-7, 3), "1.5e-07");
  EXPECT_EQ(general(1e-5, 3), "1e-05");
  EXPECT_EQ(general(9.9e-6, 3), "9.9e-06");
  EXPECT_EQ(general(9.9996e-6, 3), "1e-05");               // rounded up into the next power of ten
  EXPECT_EQ(general(1.2345678901234e-20, 3), "1.23e-20");  // 10^22: the last exact power
  EXPECT_EQ(general(-9.9996e-20, 3), "-1e-19");            // 10^22, then the carry
  EXPECT_EQ(general(9.99999e-21, 3), "declined");          // 10^23: printf's "1e-20"
  EXPECT_EQ(general(9.9996e-5, 3), "declined");            // rounds to 10^-4: printf's "0.0001"
  EXPECT_EQ(general(7.62939453125e-06, 11), "declined");
  EXPECT_EQ(general(7.62939453125e-06, 10), "7.629394531e-06");
  EXPECT_EQ(general(7.62939453125e-06, 12), "7.62939453125e-06");
}

// Every exponent-form text below 10^-4 the fast path answers is fmt's: 500,000 values from 1e-24
// to 1e-4 at every precision, half of them a few ulps from a tie at that precision.
TEST(FloatText, SmallExponentFormSameTextsAsFmt) {
  std::mt19937_64 rng(28);
  std::uniform_real_distribution<double> exponent(-24.0, -4.0);
  size_t checked = 0;
  for (int i = 0; i < 500000; ++i) {
    double v = std::pow(10.0, exponent(rng));
    const int p = 1 + static_cast<int>(rng() % 15);
    if (i % 2 == 1) {  // near (n + 1/2) x 10^k: the rounding's hardest cases
      const int x = static_cast<int>(std::floor(std::log10(v)));
      const double scale = std::pow(10.0, x - p + 1);
      v = (std::floor(v / scale) + 0.5) * scale;
      for (int ulps = static_cast<int>(rng() % 5) - 2; ulps != 0; ulps += ulps > 0 ? -1 : 1)
        v = std::nextafter(v, ulps > 0 ? 1.0 : 0.0);
    }
    if (rng() % 4 == 0) v = -v;
    char buf[kFloatTextChars];
    if (char* end = general_text(buf, v, p)) {
      ASSERT_EQ(std::string(buf, end), fmt::format("{:.{}g}", v, p)) << v << " " << p;
      ++checked;
    }
  }
  EXPECT_GT(checked, 200000u);
}

// Every exponent-form text the fast path answers is fmt's: 1,000,000 values from 1 to 1e15 at
// every precision below their digit count, half of them a few ulps from a tie at that precision.
TEST(FloatText, ExponentFormSameTextsAsFmt) {
  std::mt19937_64 rng(25);
  std::uniform_real_distribution<double> exponent(0.0, 15.0);
  size_t checked = 0;
  for (int i = 0; i < 1000000; ++i) {
    double v = std::pow(10.0, exponent(rng));
    const int p = 1 + static_cast<int>(rng() % 15);
    if (i % 2 == 1) {  // near (n + 1/2) x 10^k: the rounding's hardest cases
      const int x = static_cast<int>(std::floor(std::log10(v)));
      if (x < p) continue;
      const double scale = std::pow(10.0, x - p + 1);
      v = (std::floor(v / scale) + 0.5) * scale;
      for (int ulps = static_cast<int>(rng() % 5) - 2; ulps != 0; ulps += ulps > 0 ? -1 : 1)
        v = std::nextafter(v, ulps > 0 ? 2e15 : 0.0);
    }
    if (rng() % 4 == 0) v = -v;
    char buf[kFloatTextChars];
    if (char* end = general_text(buf, v, p)) {
      ASSERT_EQ(std::string(buf, end), fmt::format("{:.{}g}", v, p)) << v << " " << p;
      ++checked;
    }
  }
  EXPECT_GT(checked, 500000u);
}

// Every text the fast path answers is fmt's ("{:.Nf}", "{:.Ng}", the formatter of format_text):
// 300,000 random values from 1e-6 to 1e16 and short decimals (n / 10^k), both signs, every
// precision; the digits of the fraction and of the integral part in every count, odd and even.
TEST(FloatText, SameTextsAsFmt) {
  std::mt19937_64 rng(18);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  size_t fixed_checked = 0, general_checked = 0;
  for (int i = 0; i < 300000; ++i) {
    const int scale = static_cast<int>(rng() % 23) - 6;
    double v = i % 2 == 0 ? mantissa(rng) * std::pow(10.0, scale)
                          : static_cast<double>(rng() % 100000000) / std::pow(10.0, rng() % 9);
    if (rng() % 4 == 0) v = -v;
    const int fp = static_cast<int>(rng() % 16), gp = 1 + static_cast<int>(rng() % 15);
    char buf[kFloatTextChars];
    if (char* end = fixed_text(buf, v, fp)) {
      ASSERT_EQ(std::string(buf, end), fmt::format("{:.{}f}", v, fp)) << v;
      ++fixed_checked;
    }
    if (char* end = general_text(buf, v, gp)) {
      ASSERT_EQ(std::string(buf, end), fmt::format("{:.{}g}", v, gp)) << v;
      ++general_checked;
    }
  }
  EXPECT_GT(fixed_checked, 200000u);    // the rest past 2^53 or exact ties
  EXPECT_GT(general_checked, 100000u);  // the rest in exponent form
}

// The decimal exponent is the digit count of the integral part (from 1 on), a whole number is
// written as its digits without a product to round, and the fraction's trailing zeros are removed
// from the number before it is written: around every power of ten (just below it, at it, just
// above it), whole numbers, hundreds, hundredths and eighths, both signs, at every precision, the
// fast path's text is fmt's whenever it answers.
TEST(FloatText, AroundPowersOfTenWholeNumbersAndTrailingZeros) {
  size_t checked = 0, fixed_checked = 0;
  const auto check = [&checked, &fixed_checked](double magnitude) {
    for (const double v : {magnitude, -magnitude}) {
      for (int p = 0; p <= 15; ++p) {
        char buf[kFloatTextChars];
        if (char* end = p > 0 ? general_text(buf, v, p) : nullptr) {
          ASSERT_EQ(std::string(buf, end), fmt::format("{:.{}g}", v, p)) << v << " " << p;
          ++checked;
        }
        if (char* end = fixed_text(buf, v, p)) {
          ASSERT_EQ(std::string(buf, end), fmt::format("{:.{}f}", v, p)) << v << " " << p;
          ++fixed_checked;
        }
      }
    }
  };
  for (int k = -5; k <= 15; ++k) {
    const double p = std::pow(10.0, k);
    for (const double v : {p, std::nextafter(p, 0.0), std::nextafter(p, 1e300), p * 0.5, p * 1.5,
                           p - 0.5, p + 0.25, p * 9.9999995})
      check(v);
  }
  for (int n = 1; n <= 20000; n += 7) {
    check(n);
    check(n * 100.0);
    check(n / 100.0);
    check(n / 8.0);
  }
  EXPECT_GT(checked, 200000u);
  EXPECT_GT(fixed_checked, 200000u);
}

// Short decimals n / 10^k (k = 1..3) below 1e12, the fast path's own, and the doubles a few ulps
// around them (not short: the general path), both signs, every precision: fmt's texts.
TEST(FloatText, ShortDecimalsAndNeighboursLikeFmt) {
  std::mt19937_64 rng(20261205);
  size_t checked = 0;
  for (int i = 0; i < 400000; ++i) {
    const int k = 1 + static_cast<int>(rng() % 3);
    const uint64_t n = (rng() >> (rng() % 64)) % 1000000000000000;
    double v = static_cast<double>(n) / std::pow(10.0, k);
    if (rng() % 4 == 0) v = -v;
    const int p = 1 + static_cast<int>(rng() % 15);
    double up = v, down = v;
    for (int step = 0; step < 3; ++step) {
      for (const double x : {v, up, down}) {
        char buf[kFloatTextChars];
        if (char* end = general_text(buf, x, p)) {
          ASSERT_EQ(std::string(buf, end), fmt::format("{:.{}g}", x, p)) << x << " " << p;
          ++checked;
        }
      }
      up = std::nextafter(up, 1e300);
      down = std::nextafter(down, -1e300);
    }
  }
  EXPECT_GT(checked, 1000000u);
  // Worked by hand: "%g" (six digits) of short decimals is their own digits.
  char buf[kFloatTextChars];
  EXPECT_EQ(std::string(buf, general_text(buf, 0.9, 6)), "0.9");
  EXPECT_EQ(std::string(buf, general_text(buf, -7.56, 6)), "-7.56");
  EXPECT_EQ(std::string(buf, general_text(buf, 0.125, 6)), "0.125");
  EXPECT_EQ(std::string(buf, general_text(buf, 18921.6, 6)), "18921.6");
  EXPECT_EQ(std::string(buf, general_text(buf, 0.001, 6)), "0.001");
}

}  // namespace
}  // namespace gpusizer
