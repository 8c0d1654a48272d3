#include "gpusizer/speed_bands_fit.h"

#include <gtest/gtest.h>

#include "gpusizer/estimate.h"

namespace gpusizer {
namespace {

// The shipped data/speed_bands.json is what the shipped measurements give now (rerun
// scripts/update_speed_bands.sh after changing a speed figure).
TEST(SpeedBandsFit, ShippedBandsAreCurrent) {
  const Catalog& catalog = Catalog::builtin();
  const SpeedBands derived = derive_shipped_speed_bands(catalog, "today");
  const auto& shipped = catalog.speed_bands().bands();
  ASSERT_EQ(derived.bands().size(), shipped.size()) << "run scripts/update_speed_bands.sh";
  ASSERT_FALSE(shipped.empty());
  for (size_t i = 0; i < shipped.size(); ++i) {
    SCOPED_TRACE(shipped[i].kind + " " + shipped[i].engine);
    EXPECT_EQ(derived.bands()[i].kind, shipped[i].kind);
    EXPECT_EQ(derived.bands()[i].engine, shipped[i].engine);
    EXPECT_EQ(derived.bands()[i].n, shipped[i].n);
    EXPECT_NEAR(derived.bands()[i].low_error, shipped[i].low_error, 1e-9);
    EXPECT_NEAR(derived.bands()[i].high_error, shipped[i].high_error, 1e-9);
  }
}

// n calibration rows of one kind on vLLM whose predictions are off by first + step x i.
SpeedBands bands_of_rows(int n, double first, double step, std::vector<PreparedCase>& cases,
                         SpeedValidation& v) {
  v.rows = nlohmann::json::array();
  for (int i = 0; i < n; ++i) {
    PreparedCase c;
    c.spec.id = "r" + std::to_string(i);
    c.spec.compare = "decode_tokens_per_s";
    c.spec.use = "calibrate";
    c.scenario = Scenario{};
    c.scenario->engine = "vllm";
    cases.push_back(c);
    const double error = first + step * i;
    v.rows.push_back({{"id", c.spec.id},
                      {"compare", "decode_tokens_per_s"},
                      {"use", "calibrate"},
                      {"measured", 100.0},
                      {"predicted", 100.0 * (1 + error)}});
  }
  return derive_speed_bands(cases, v, "d");
}

// Ten rows off by -25%, -20%, ..., +20%: k = max(1, floor(0.05 x 11)) = 1, so the band is the
// rows' whole range, -0.25 .. +0.20 (it holds a new row with probability 9/11), and every row
// lies inside it.
TEST(SpeedBandsFit, FewRowsGiveTheirWholeRange) {
  std::vector<PreparedCase> cases;
  SpeedValidation v;
  const SpeedBands b = bands_of_rows(10, -0.25, 0.05, cases, v);
  const SpeedBand* band = b.find("decode", "vllm");
  ASSERT_NE(band, nullptr);
  EXPECT_EQ(band->engine, "vllm");  // ten rows: its own band, and the kind's
  EXPECT_EQ(b.bands().size(), 2u);
  EXPECT_NEAR(band->low_error, -0.25, 1e-12);
  EXPECT_NEAR(band->high_error, 0.20, 1e-12);
  const auto coverage = band_coverage(cases, v, b);
  ASSERT_EQ(coverage.size(), 2u);  // "all" and "calibrate"
  for (const auto& c : coverage) {
    EXPECT_EQ(c.n, 10);
    EXPECT_EQ(c.inside, 10);
  }
}

// Forty rows off by -25%, -24%, ..., +14%: k = floor(0.05 x 41) = 2, the second smallest and
// second largest errors, -0.24 and -0.25 + 38 x 0.01 = +0.13 (a new row falls inside with
// probability (41 - 4) / 41 = 90.2%); the two extreme rows lie outside, 38 of 40 inside.
TEST(SpeedBandsFit, ManyRowsDropTheOuterRanks) {
  std::vector<PreparedCase> cases;
  SpeedValidation v;
  const SpeedBands b = bands_of_rows(40, -0.25, 0.01, cases, v);
  const SpeedBand* band = b.find("decode", "vllm");
  ASSERT_NE(band, nullptr);
  EXPECT_NEAR(band->low_error, -0.24, 1e-12);
  EXPECT_NEAR(band->high_error, 0.13, 1e-12);
  for (const auto& c : band_coverage(cases, v, b)) {
    EXPECT_EQ(c.n, 40);
    EXPECT_EQ(c.inside, 38);
  }
}

}  // namespace
}  // namespace gpusizer
