#include "catalog/exact_names.h"

#include <gtest/gtest.h>

#include <string>

#include "catalog/csv.h"
#include "embed/embedded.h"
#include "gpusizer/catalog.h"

namespace gpusizer {
namespace {

TEST(ExactNames, FindsOnlyTheSpellingAddedAndKeepsItsFirstRow) {
  ExactNames names;
  EXPECT_FALSE(names.find("h100"));  // empty
  EXPECT_TRUE(names.add("h100", 20));
  EXPECT_FALSE(names.add("h100", 7));  // the first row keeps the spelling
  EXPECT_TRUE(names.add("rtx-4090-24gb", 50));
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names.find("h100"), 20u);
  EXPECT_EQ(names.find(std::string("rtx-4090-24gb")), 50u);
  // Byte for byte: another case, a prefix, a longer name or separators are misses.
  EXPECT_FALSE(names.find("H100"));
  EXPECT_FALSE(names.find("h10"));
  EXPECT_FALSE(names.find("h100-80g"));
  EXPECT_FALSE(names.find("rtx 4090 24gb"));
  EXPECT_FALSE(names.find(""));
}

// The aliases of data/aliases.csv and the rows of data/gpus.csv, read by hand.
TEST(ExactNames, CatalogGpusByTheirUsualSpellings) {
  const Catalog& c = Catalog::builtin();
  EXPECT_EQ(c.gpu("h100").id, "h100-sxm5-80gb");
  EXPECT_EQ(c.gpu("a100-80g").id, "a100-sxm4-80gb");
  EXPECT_EQ(c.gpu("rtx-4090-24gb").name, "GeForce RTX 4090 24GB");
  EXPECT_EQ(c.gpu("4080").id, "rtx-4080-16gb");
  EXPECT_EQ(c.gpu("H100 SXM5 80GB").id, "h100-sxm5-80gb");  // a row's name, the normalised way
  EXPECT_TRUE(c.names_exactly("h100", c.gpu("h100")));
  EXPECT_TRUE(c.names_exactly("a100-80g", c.gpu("a100-80g")));
  // Spelt otherwise, a name still goes the normalised way.
  EXPECT_EQ(c.gpu("H-100").id, "h100-sxm5-80gb");
  EXPECT_TRUE(c.names_exactly("H-100", c.gpu("H-100")));
}

// Every id, name and alias the data files spell (names not indexed) finds the row that the same
// name spelt otherwise (leading spaces, which the data never has and normalising drops) finds.
TEST(ExactNames, EverySpellingOfTheDataFindsTheNormalisedRow) {
  const Catalog& c = Catalog::builtin();
  std::vector<std::string> spellings;
  for (const Gpu& g : c.gpus()) {
    spellings.push_back(g.id);
    spellings.push_back(g.name);
  }
  const auto rows = parse_csv(embedded::find("aliases.csv"), "aliases.csv");
  for (size_t i = 1; i < rows.size(); ++i)
    if (rows[i].size() >= 3 && rows[i][1] == "gpu") spellings.push_back(rows[i][0]);
  ASSERT_GT(spellings.size(), 100u);
  for (const std::string& s : spellings) {
    SCOPED_TRACE(s);
    const Gpu& exact = c.gpu(s);
    EXPECT_EQ(&exact, &c.gpu("  " + s));
    EXPECT_EQ(c.names_exactly(s, exact), c.names_exactly("  " + s, exact));
  }
}

}  // namespace
}  // namespace gpusizer
