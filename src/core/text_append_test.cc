// text_append's pieces write what format_text writes for "{}" and "{:g}" (printf's "%g": six
// significant digits, trailing zeros dropped, exponent form below 1e-4 and from 1e6).
#include "core/text_append.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace gpusizer {
namespace {

TEST(TextAppend, Integers) {
  std::string out = "n=";
  append_integer(out, 0);
  out += ' ';
  append_integer(out, -42);
  out += ' ';
  append_integer(out, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(out, "n=0 -42 -9223372036854775808");
}

TEST(TextAppend, GeneralDoubles) {
  const auto g = [](double v) {
    std::string out = "<";
    append_general(out, v);
    return out + ">";
  };
  EXPECT_EQ(g(450.0), "<450>");
  EXPECT_EQ(g(0.9), "<0.9>");
  EXPECT_EQ(g(1.3), "<1.3>");
  EXPECT_EQ(g(0.1 + 0.2), "<0.3>");          // 0.30000000000000004 to six digits
  EXPECT_EQ(g(123456.7), "<123457>");        // six digits, the seventh (7) rounds up
  EXPECT_EQ(g(1234567.0), "<1.23457e+06>");  // 10^6 and above: exponent form (fmt's path)
  EXPECT_EQ(g(0.0001), "<0.0001>");
  EXPECT_EQ(g(0.00001), "<1e-05>");  // below 10^-4: exponent form
  EXPECT_EQ(g(-0.0), "<-0>");
  EXPECT_EQ(g(std::numeric_limits<double>::infinity()), "<inf>");
}

TEST(TextAppend, FixedDoubles) {
  const auto f = [](double v, int precision, bool plus) {
    std::string out;
    append_fixed(out, v, precision, plus);
    return out;
  };
  EXPECT_EQ(f(12.551234, 2, false), "12.55");
  EXPECT_EQ(f(1234.5678, 0, false), "1235");  // .5678 rounds up
  EXPECT_EQ(f(2.5, 0, false), "2");           // an exact tie, to even (fmt's path)
  EXPECT_EQ(f(3.5, 0, false), "4");
  EXPECT_EQ(f(1.005, 2, false), "1.00");  // 1.005 is 1.00499999999999989... in binary
  EXPECT_EQ(f(31.6, 0, true), "+32");
  EXPECT_EQ(f(-27.5, 0, true), "-28");  // a tie, to even
  EXPECT_EQ(f(0.0, 0, true), "+0");
  EXPECT_EQ(f(-0.0, 1, true), "-0.0");
  EXPECT_EQ(f(1e21, 2, false), "1000000000000000000000.00");  // past 2^53: fmt's path
}

TEST(TextAppend, OneCallReadsAsItsTemplate) {
  // "{} x {} ({} GPUs, {:g}/h, {:.2f} kW, {:+.0f}%)" of 2, "p5.48xlarge", 8, 98.32, 10.2049, 31.6
  std::string out = "cloud: ";
  const std::string name = "p5.48xlarge";
  append_text(out, int64_t{2}, " x ", name, ' ', '(', 8, " GPUs, ", General{98.32}, "/h, ",
              Fixed{10.2049, 2}, " kW, ", Fixed{31.6, 0, true}, "%)");
  EXPECT_EQ(out, "cloud: 2 x p5.48xlarge (8 GPUs, 98.32/h, 10.20 kW, +32%)");
}

}  // namespace
}  // namespace gpusizer
