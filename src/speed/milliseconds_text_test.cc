// Times as the speed texts write them, worked by hand.
#include "speed/milliseconds_text.h"

#include <gtest/gtest.h>

#include <limits>

#include "core/text_append.h"

namespace gpusizer {
namespace {

std::string ms(double seconds) {
  std::string out;
  append_milliseconds(out, seconds);
  return out;
}

TEST(MillisecondsText, BelowASecondAsPrintfsThreeDigits) {
  EXPECT_EQ(ms(0.0123456), "12.3 ms");
  EXPECT_EQ(ms(0.000675), "0.675 ms");
  EXPECT_EQ(ms(9.63e-8), "9.63e-05 ms");  // 9.63e-05 ms: "%.3g" keeps its exponent form here
  EXPECT_EQ(ms(0), "0 ms");
  EXPECT_EQ(ms(0.9994), "999 ms");
}

TEST(MillisecondsText, FromASecondInWholeMilliseconds) {
  EXPECT_EQ(ms(3.3204), "3320 ms");    // "%.3g": 3.32e+03 ms
  EXPECT_EQ(ms(1.0), "1000 ms");       // 1e+03 ms
  EXPECT_EQ(ms(0.9996), "1000 ms");    // 999.6 rounds up into the next power of ten
  EXPECT_EQ(ms(12.3456), "12300 ms");  // 1.23e+04 ms
  EXPECT_EQ(ms(12.3556), "12400 ms");
  EXPECT_EQ(ms(99.96), "100000 ms");  // 99,960 to three digits: 1.00e+05
  EXPECT_EQ(ms(1234.5), "1230000 ms");
}

// The times as pieces of one append_text: each written as append_milliseconds writes it.
TEST(MillisecondsText, AsPiecesOfOneText) {
  std::string out;
  append_text(out, "compute ", Milliseconds{3.3204}, ", TP ", Milliseconds{0}, ", DP ",
              Milliseconds{0.0956}, ", side ", Milliseconds{9.63e-8});
  EXPECT_EQ(out, "compute 3320 ms, TP 0 ms, DP 95.6 ms, side 9.63e-05 ms");
}

// A time float_text declines (not finite) takes printf's "%.3g": the pieces are then appended
// one by one, the literals around it kept.
TEST(MillisecondsText, APieceFloatTextDeclines) {
  std::string out;
  append_text(out, "step ", Milliseconds{std::numeric_limits<double>::infinity()}, ", DP ",
              Milliseconds{0.0956});
  EXPECT_EQ(out, "step inf ms, DP 95.6 ms");
}

}  // namespace
}  // namespace gpusizer
