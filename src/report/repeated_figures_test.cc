// A figure written under several keys (report/repeated_figures.h): its text made once and copied,
// the same bytes nlohmann writes for each key (a figure: six significant digits).
#include "report/repeated_figures.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "gpusizer/json/json_text.h"

namespace gpusizer {
namespace {

// The last four figures' texts are kept: a figure met again returns the kept text (the same
// bytes in the same place), a fifth takes the oldest's place, and -0.0 is not 0.0.
TEST(RepeatedFigures, KeepsTheTextsOfTheLastFourFigures) {
  RepeatedFigures r;
  const std::string_view first = r.text(7.56);
  EXPECT_EQ(first, "7.56");
  EXPECT_EQ(r.text(7.56).data(), first.data());      // kept, not made again
  EXPECT_EQ(r.text(222.02667789176033), "222.027");  // a figure: six digits
  EXPECT_EQ(r.text(0.0), "0.0");
  EXPECT_EQ(r.text(-0.0), "-0.0");  // equal to 0.0, other bits, its own text
  EXPECT_EQ(r.text(7.56).data(), first.data());
  EXPECT_EQ(r.text(1562.5), "1562.5");  // a fifth figure: in the oldest's (7.56's) place
  EXPECT_EQ(r.text(1562.5).data(), first.data());
  EXPECT_EQ(r.text(7.56), "7.56");  // made again, in the next oldest's place
  EXPECT_NE(r.text(7.56).data(), first.data());
}

// Through either writer: the text of each key's number, an absent optional left out.
TEST(RepeatedFigures, WritesTheNumbersEitherWriterWrites) {
  const auto write = [](auto& w) {
    RepeatedFigures r;
    w.begin_object();
    r.field(w, "a", 7.56);
    r.field(w, "b", 0.4336458552573444);
    r.field(w, "c", std::optional<double>());
    r.field(w, "d", std::optional<double>(7.56));
    r.field(w, "e", 3000.0);
    r.field(w, "f", 1e300);
    w.end_object();
  };
  const std::string expected = R"({"a":7.56,"b":0.433646,"d":7.56,"e":3000.0,"f":1e+300})";
  std::string text;
  {
    TextWriter w(text);
    write(w);
  }
  EXPECT_EQ(text, expected);
  TreeWriter tree;
  write(tree);
  EXPECT_EQ(json_text(tree.take()), expected);
}

}  // namespace
}  // namespace gpusizer
