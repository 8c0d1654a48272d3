#include "catalog/csv.h"

#include <gtest/gtest.h>

#include "gpusizer/error.h"

namespace gpusizer {
namespace {

TEST(Csv, QuotedFieldsKeepCommasQuotesAndNewlines) {
  const auto rows = parse_csv("a,b,c\r\n1,\"x, \"\"y\"\"\nz\",\n", "t.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][0], "1");
  EXPECT_EQ(rows[1][1], "x, \"y\"\nz");
  EXPECT_EQ(rows[1][2], "");
}

TEST(Csv, LastLineWithoutNewlineAndBlankLines) {
  const auto rows = parse_csv("a\n\nb", "t.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][0], "b");
}

TEST(Csv, UnterminatedQuoteNamesFileAndLine) {
  try {
    parse_csv("a\n\"open\n", "gpus.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "gpus.csv");
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpusizer
