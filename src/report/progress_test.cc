// The progress line's text from given counts and times (no clock in the test).
#include "gpusizer/progress.h"

#include <gtest/gtest.h>

namespace gpusizer {
namespace {

TEST(Progress, CountsRateAndTimeLeft) {
  // 1,200 of 100,000 in 3.43 s: 349.9/s -> "350/s"; 98,800 left / 349.85 = 282.4 s -> 4m 43s.
  EXPECT_EQ(format_progress(1200, 100000, 3.43, "lines"),
            "1,200/100,000 lines  350/s  4m 43s left");
  // 50 of 60 in 10 s: 5/s; 10 left -> 2 s.
  EXPECT_EQ(format_progress(50, 60, 10.0, "lines"), "50/60 lines  5.0/s  2s left");
  // 1,000 of 1,000,000 in 100 s: 10/s; 999,000 left / 10 = 99,900 s = 27 h 45 m.
  EXPECT_EQ(format_progress(1000, 1000000, 100.0, "lines"),
            "1,000/1,000,000 lines  10/s  27h 45m left");
  // Done: no time left; nothing measured yet: counts only.
  EXPECT_EQ(format_progress(60, 60, 2.0, "lines"), "60/60 lines  30/s");
  EXPECT_EQ(format_progress(0, 60, 0.0, "lines"), "0/60 lines");
}

TEST(Progress, HiddenLineNeverDraws) {
  testing::internal::CaptureStderr();
  {
    ProgressLine line(10, "lines", false);
    for (size_t i = 0; i <= 10; ++i) line.update(i);
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace gpusizer
