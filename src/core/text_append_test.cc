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

// append_text writes its pieces into a buffer on the stack; a number float_text declines, or a
// text past the buffer, takes the append per piece: the same text either way.
TEST(TextAppend, OneCallPastItsBufferAndFmtsNumbers) {
  // "%g" of 1e300 is "1e+300" and "%.2f" of 1e21 has 22 digits before the point: fmt's path.
  std::string out = "[";
  append_text(out, "g=", General{1e300}, ", f=", Fixed{1e21, 2}, ", s=", std::string_view(), ']');
  EXPECT_EQ(out, "[g=1e+300, f=1000000000000000000000.00, s=]");
  // 600 bytes of a string and a literal: longer than the buffer's 512.
  const std::string long_name(600, 'x');
  std::string text;
  append_text(text, "name ", long_name, " (", int64_t{-7}, ')');
  EXPECT_EQ(text, "name " + long_name + " (-7)");
  // The text goes after what `out` holds, a view of a buffer up to what it holds.
  char buffer[16] = "abc";
  std::string after = "head:";
  append_text(after, std::string_view(buffer, 3), '-', Fixed{-0.5, 1, true});
  EXPECT_EQ(after, "head:abc--0.5");
}

}  // namespace
}  // namespace gpusizer
