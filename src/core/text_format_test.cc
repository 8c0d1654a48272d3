// format_text writes what fmt::format writes: the specs the basis strings use, by hand from
// printf's rules (C17 7.21.6.1; fmt documents "f" and "g" as printf's), and against fmt's own
// formatter for double on many values of every magnitude.
#include "core/text_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

namespace gpusizer {
namespace {

TEST(TextFormat, SpecsOfTheBasisStrings) {
  EXPECT_EQ(format_text(FMT_COMPILE("{:g} W"), 450.0), "450 W");
  EXPECT_EQ(format_text(FMT_COMPILE("{:g}"), 1e-7), "1e-07");  // exponent form: fmt's own path
  EXPECT_EQ(format_text(FMT_COMPILE("{:g}"), 1e21), "1e+21");
  EXPECT_EQ(format_text(FMT_COMPILE("{:g}"), 0.1 + 0.2), "0.3");
  EXPECT_EQ(format_text(FMT_COMPILE("{:g}"), -0.0), "-0");
  EXPECT_EQ(format_text(FMT_COMPILE("{:.2f} GiB"), 12.551234), "12.55 GiB");
  EXPECT_EQ(format_text(FMT_COMPILE("{:.0f}"), 2.5), "2");  // a tie, to even (fmt's path)
  EXPECT_EQ(format_text(FMT_COMPILE("{:.0f}"), 3.5), "4");
  EXPECT_EQ(format_text(FMT_COMPILE("{:.2f}"), 1.005), "1.00");
  EXPECT_EQ(format_text(FMT_COMPILE("{:.2f}"), 1e21), "1000000000000000000000.00");
  EXPECT_EQ(format_text(FMT_COMPILE("{:.3g}"), 0.72184), "0.722");
  EXPECT_EQ(format_text(FMT_COMPILE("{:.3g}"), 1234.0), "1.23e+03");
  EXPECT_EQ(format_text(FMT_COMPILE("{:+.0f}%"), 31.6), "+32%");
  EXPECT_EQ(format_text(FMT_COMPILE("{:+.0f}%"), -27.5), "-28%");  // tie, to even: 28
  EXPECT_EQ(format_text(FMT_COMPILE("{:+.0f}"), 0.0), "+0");
  EXPECT_EQ(format_text(FMT_COMPILE("{:+.1f}"), -0.0), "-0.0");
  EXPECT_EQ(format_text(FMT_COMPILE("{:>8.1f}|"), 2.25), "     2.2|");  // width: fmt's path
  EXPECT_EQ(format_text(FMT_COMPILE("{} x {:g}, {}"), 8, 0.9, "bf16"), "8 x 0.9, bf16");
  std::string out = "a ";
  format_text_to(out, FMT_COMPILE("{:.1f} kW"), 7.25);  // 72.5 tenths: a tie, to even
  EXPECT_EQ(out, "a 7.2 kW");
}

// A double's text is appended whole to what the output appends to: fmt's buffer with room, the
// same buffer when it must grow (its 500 bytes on the stack full: the text crosses the end),
// and a std::string.
TEST(TextFormat, ADoubleAppendedAcrossTheBufferEnd) {
  for (const size_t before : {size_t{0}, size_t{495}, size_t{498}, size_t{500}}) {
    fmt::memory_buffer out;
    const std::string filler(before, 'x');
    out.append(filler.data(), filler.data() + filler.size());
    // 12345.678 to two decimals: 12345.68 (the third decimal 8 rounds the second up).
    format_text_to(out, FMT_COMPILE("{:.2f} GiB"), 12345.678);
    EXPECT_EQ(std::string(out.data(), out.size()), filler + "12345.68 GiB") << before;
  }
  std::string text = "pool ";
  format_text_to(text, FMT_COMPILE("{:g} x {:+.0f}%"), 0.9, 31.6);  // 31.6 -> +32
  EXPECT_EQ(text, "pool 0.9 x +32%");
}

// Doubles of every magnitude and of few digits (the figures' kind: 0.5, 21.75, 1e-4 x k),
// some of them ties.
double sample(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> kind(0, 2), exponent(-12, 20);
  switch (kind(rng)) {
    case 0: {  // any bit pattern of a finite double
      uint64_t bits = rng();
      double v;
      std::memcpy(&v, &bits, sizeof v);
      return std::isfinite(v) ? v : 1.5;
    }
    case 1:
      return std::uniform_real_distribution<double>(-1, 1)(rng) * std::pow(10.0, exponent(rng));
    default:  // k / 2^n and k / 10^n: ties and decimal half-way points
      return static_cast<double>(rng() % 100000) /
             (rng() % 2 ? std::ldexp(1.0, static_cast<int>(rng() % 12))
                        : std::pow(10.0, static_cast<double>(rng() % 8)));
  }
}

TEST(TextFormat, SameTextAsFmtOnManyValues) {
  std::mt19937_64 rng(18);
  for (int i = 0; i < 20000; ++i) {
    const double v = sample(rng);
    ASSERT_EQ(format_text(FMT_COMPILE("{:g}"), v), fmt::format("{:g}", v)) << v;
    ASSERT_EQ(format_text(FMT_COMPILE("{:.3g}"), v), fmt::format("{:.3g}", v)) << v;
    ASSERT_EQ(format_text(FMT_COMPILE("{:.0f}"), v), fmt::format("{:.0f}", v)) << v;
    ASSERT_EQ(format_text(FMT_COMPILE("{:.1f}"), v), fmt::format("{:.1f}", v)) << v;
    ASSERT_EQ(format_text(FMT_COMPILE("{:.2f}"), v), fmt::format("{:.2f}", v)) << v;
    ASSERT_EQ(format_text(FMT_COMPILE("{:+.0f}"), v), fmt::format("{:+.0f}", v)) << v;
  }
}

}  // namespace
}  // namespace gpusizer
