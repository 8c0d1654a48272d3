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

// Ten calibration rows of one kind whose predictions are off by -25%, -20%, ..., +20% (rate
// errors -0.25 + 0.05 i): numpy's 10th percentile sits at rank 0.9, -0.25 + 0.9 x 0.05 = -0.205,
// the 90th at rank 8.1, -0.25 + 8.1 x 0.05 = 0.155. The two extreme rows fall outside the band.
TEST(SpeedBandsFit, PercentilesOfTheCalibrationRows) {
  std::vector<PreparedCase> cases;
  SpeedValidation v;
  v.rows = nlohmann::json::array();
  for (int i = 0; i < 10; ++i) {
    PreparedCase c;
    c.spec.id = "r" + std::to_string(i);
    c.spec.compare = "decode_tokens_per_s";
    c.spec.use = "calibrate";
    c.scenario = Scenario{};
    c.scenario->engine = "vllm";
    cases.push_back(c);
    const double error = -0.25 + 0.05 * i;
    v.rows.push_back({{"id", c.spec.id},
                      {"compare", "decode_tokens_per_s"},
                      {"use", "calibrate"},
                      {"measured", 100.0},
                      {"predicted", 100.0 * (1 + error)}});
  }
  const SpeedBands b = derive_speed_bands(cases, v, "d");
  const SpeedBand* band = b.find("decode", "vllm");
  ASSERT_NE(band, nullptr);
  EXPECT_EQ(band->engine, "vllm");  // ten rows: its own band, and the kind's
  EXPECT_EQ(b.bands().size(), 2u);
  EXPECT_NEAR(band->low_error, -0.205, 1e-12);
  EXPECT_NEAR(band->high_error, 0.155, 1e-12);
  const auto coverage = band_coverage(cases, v, b);
  ASSERT_EQ(coverage.size(), 2u);  // "all" and "calibrate"
  for (const auto& c : coverage) {
    EXPECT_EQ(c.n, 10);
    EXPECT_EQ(c.inside, 8);
  }
}

}  // namespace
}  // namespace gpusizer
