#include "core/same_text.h"

#include <gtest/gtest.h>

#include <string>

namespace gpusizer {
namespace {

TEST(SameText, EqualOnlyWhenEveryByteAndTheLengthAgree) {
  EXPECT_TRUE(same_text("", ""));
  EXPECT_TRUE(same_text(std::string("bf16"), "bf16"));
  EXPECT_FALSE(same_text("bf16", "fp16"));  // the first byte differs
  EXPECT_FALSE(same_text("bf16", "bf32"));  // a later byte differs
  EXPECT_FALSE(same_text("bf16", "bf1"));   // a prefix
  EXPECT_FALSE(same_text("", "x"));
  EXPECT_TRUE(same_text(std::string_view("a\0b", 3), std::string_view("a\0b", 3)));
  EXPECT_FALSE(same_text(std::string_view("a\0b", 3), std::string_view("a\0c", 3)));
}

}  // namespace
}  // namespace gpusizer
