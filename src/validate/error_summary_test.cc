// The error summary that memory and speed validation share, on hand-made errors.
#include "gpusizer/error_summary.h"

#include <gtest/gtest.h>

namespace gpusizer {
namespace {

// |e| sorted = 0.01 0.02 0.03 0.05 0.10; numpy's linear quantile puts the median at rank 2 (0.03)
// and p90 at rank 3.6: 0.05 + 0.6 x (0.10 - 0.05) = 0.08; the signed errors sorted = -0.05 -0.02
// 0.01 0.03 0.10, so the bias (signed median) is 0.01.
TEST(ErrorSummary, QuantilesAndSummary) {
  const ErrorSummary s = summarize("g", {0.10, -0.02, 0.03, -0.05, 0.01});
  EXPECT_EQ(s.group, "g");
  EXPECT_EQ(s.n, 5u);
  EXPECT_NEAR(s.median, 0.03, 1e-12);
  EXPECT_NEAR(s.p90, 0.08, 1e-12);
  EXPECT_NEAR(s.max, 0.10, 1e-12);
  EXPECT_NEAR(s.bias, 0.01, 1e-12);
}

// numpy.quantile([1, 2, 3, 4], 0.25) = 1.75 (rank 0.75 between 1 and 2); no values give 0 and an
// empty summary.
TEST(ErrorSummary, LinearQuantileAndNoValues) {
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(quantile({}, 0.5), 0.0);
  const ErrorSummary none = summarize("all", {});
  EXPECT_EQ(none.n, 0u);
  EXPECT_EQ(none.max, 0.0);
}

}  // namespace
}  // namespace gpusizer
