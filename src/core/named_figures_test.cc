// NamedFigures: names kept in ascending byte order whatever order they are set in, a name set
// again replaces its value, lookups, copies, and the capacity.
#include "gpusizer/named_figures.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace gpusizer {
namespace {

std::vector<std::string> names(const NamedFigures<double, 4>& f) {
  std::vector<std::string> out;
  for (const auto& [name, value] : f) out.emplace_back(name);
  return out;
}

TEST(NamedFigures, KeepsNamesInByteOrder) {
  NamedFigures<double, 4> f;
  EXPECT_TRUE(f.empty());
  f.set("tp_comm", 3);
  f.set("compute", 1);
  f.set("offload", 2);
  f.set("pp_bubble", 4);  // between offload and tp_comm
  EXPECT_EQ(names(f), (std::vector<std::string>{"compute", "offload", "pp_bubble", "tp_comm"}));
  EXPECT_EQ(f.size(), 4u);
  EXPECT_EQ(f.at("pp_bubble"), 4);
  EXPECT_EQ(f.at("compute"), 1);
  EXPECT_EQ(f.find("dp_comm"), nullptr);
  EXPECT_FALSE(f.contains("dp_comm"));
  EXPECT_THROW((void)f.at("dp_comm"), std::out_of_range);
}

TEST(NamedFigures, SettingANameAgainReplacesItsValue) {
  NamedFigures<double, 4> f;
  f.set("b", 1);
  f.set("a", 2);
  f.set("b", 5);  // not the last name: found by the search
  f.set("a", 7);
  EXPECT_EQ(names(f), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(f.at("a"), 7);
  EXPECT_EQ(f.at("b"), 5);
}

TEST(NamedFigures, ThrowsPastItsCapacity) {
  NamedFigures<double, 4> f;
  f.set("a", 1);
  f.set("b", 2);
  f.set("c", 3);
  f.set("d", 4);
  f.set("b", 9);  // replacing needs no room
  EXPECT_THROW(f.set("e", 5), std::length_error);
  EXPECT_THROW(f.set("0", 5), std::length_error);
  EXPECT_EQ(names(f), (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(NamedFigures, CopiesCompareEqual) {
  NamedFigures<std::pair<double, double>, 3> f;
  f.set("usd_per_run", {1.5, 2.5});
  f.set("usd_per_million_tokens", {0.25, 0.75});
  const NamedFigures<std::pair<double, double>, 3> copy = f;
  EXPECT_TRUE(copy == f);
  NamedFigures<std::pair<double, double>, 3> assigned;
  assigned.set("usd_per_million_requests", {1, 2});
  assigned = f;
  EXPECT_TRUE(assigned == f);
  EXPECT_EQ(assigned.begin()->name, "usd_per_million_tokens");
  EXPECT_EQ(assigned.at("usd_per_run").second, 2.5);
  assigned.set("usd_per_run", {1.5, 3});
  EXPECT_FALSE(assigned == f);
  assigned.clear();
  EXPECT_TRUE(assigned.empty());
}

}  // namespace
}  // namespace gpusizer
