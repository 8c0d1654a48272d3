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

// A quote inside an unquoted field opens a quoted run of the same field (RFC 4180 readers that
// are lenient, as this one was before it scanned by spans); carriage returns inside quotes stay.
TEST(Csv, QuotesInsideAFieldAndCarriageReturns) {
  const auto rows = parse_csv("a,b\r\nx\"y,z\"w,\"r\r\"\r\n", "t.csv");
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(rows[1].size(), 2u);
  EXPECT_EQ(rows[1][0], "xy,zw");
  EXPECT_EQ(rows[1][1], "r\r");
}

// Records find columns by name through the header; a short row reads empty past its end, a name
// the header lacks reads empty, a repeated header name reads its last column.
TEST(Csv, RecordsByName) {
  const auto records = parse_csv_records("id,x,x,note\ng1,1,2,\"a, b\"\ng2,3\n", "t.csv");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].line, 2u);
  EXPECT_EQ(records[0]["id"], "g1");
  EXPECT_EQ(records[0]["x"], "2");
  EXPECT_EQ(records[0]["note"], "a, b");
  EXPECT_EQ(records[0]["absent"], "");
  EXPECT_EQ(records[1]["x"], "");
  EXPECT_EQ(records[1]["note"], "");
  ASSERT_EQ(records[1].columns.size(), 4u);
  EXPECT_EQ(records[1].columns[1].first, "x");
  EXPECT_EQ(records[1].columns[1].second, "3");
}

}  // namespace
}  // namespace gpusizer
