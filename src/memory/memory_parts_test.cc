// The memory texts' pieces (memory_parts.h), values worked by hand as printf's "%.3g" writes them.
#include "memory/memory_parts.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace gpusizer::memory {
namespace {

std::string significant(double v, int digits) {
  std::string out;
  append_text(out, "x ", Significant{v, digits}, " B");
  return out;
}

TEST(MemoryParts, SignificantDigitsAsPrintf) {
  EXPECT_EQ(significant(5e8, 3), "x 5e+08 B");        // ZeRO-3's reduce bucket: "%.3g"
  EXPECT_EQ(significant(8, 3), "x 8 B");              // whole: no point
  EXPECT_EQ(significant(1.0 / 3.0, 3), "x 0.333 B");  // three digits, not %g's six
  EXPECT_EQ(significant(12.25, 3), "x 12.2 B");       // a tie, exact in binary: to even
  EXPECT_EQ(significant(2.5, 1), "x 2 B");
}

// A value float_text declines: fmt's "{:.3g}", the text's other pieces kept.
TEST(MemoryParts, SignificantNotFinite) {
  EXPECT_EQ(significant(std::numeric_limits<double>::infinity(), 3), "x inf B");
}

// append_pieces appends to the figure's text; without a sink it writes nothing.
TEST(MemoryParts, AppendPieces) {
  Explanations why;
  why.basis.set("gradients_bytes", "trainable params x 4 B");
  append_pieces(&why, "gradients_bytes", "; all ", Fixed{0.3875, 2}, " GiB at the end");
  EXPECT_EQ(why.basis.at("gradients_bytes"), "trainable params x 4 B; all 0.39 GiB at the end");
  append_pieces(nullptr, "gradients_bytes", "; more");
}

}  // namespace
}  // namespace gpusizer::memory
