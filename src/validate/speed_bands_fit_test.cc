#include "gpusizer/speed_bands_fit.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// One check-half row of `compare` on `engine` for `model`, in source group `group`, whose
// prediction is off by `error`: its case into `cases`, its validation row into `v`.
void add_row(const std::string& id, const std::string& compare, const std::string& engine,
             const ModelRef& model, const std::string& group, double error,
             std::vector<PreparedCase>& cases, SpeedValidation& v) {
  PreparedCase c;
  c.spec.id = id;
  c.spec.compare = compare;
  c.spec.use = "validate";
  c.scenario = Scenario{};
  c.scenario->engine = engine;
  c.scenario->model = model;
  cases.push_back(c);
  v.rows.push_back({{"id", id},
                    {"group", group},
                    {"compare", compare},
                    {"use", "validate"},
                    {"measured", 100.0},
                    {"predicted", 100.0 * (1 + error)}});
}

// n check-half rows of one kind on vLLM whose predictions are off by first + step x i, row i
// from the source group group_of(i).
template <typename GroupOf>
SpeedBands bands_of_rows(int n, double first, double step, GroupOf group_of,
                         std::vector<PreparedCase>& cases, SpeedValidation& v) {
  v.rows = nlohmann::json::array();
  for (int i = 0; i < n; ++i)
    add_row("r" + std::to_string(i), "decode_tokens_per_s", "vllm", ModelRef(), group_of(i),
            first + step * i, cases, v);
  return derive_speed_bands(cases, v, "d");
}

// Training rows on Megatron: ten of a dense model off by -10%, -8%, ..., +8%, and ten of a
// mixture-of-experts model off by -50%, -30%, ..., +130%, each a source of its own.
SpeedBands dense_and_moe_training(std::vector<PreparedCase>& cases, SpeedValidation& v) {
  v.rows = nlohmann::json::array();
  Model moe;
  moe.num_experts = 8;
  const ModelRef dense_model, moe_model(moe);
  for (int i = 0; i < 20; ++i)
    add_row("t" + std::to_string(i), "train_tokens_per_s_per_gpu", "megatron",
            i < 10 ? dense_model : moe_model, "g" + std::to_string(i),
            i < 10 ? -0.10 + 0.02 * i : -0.50 + 0.20 * (i - 10), cases, v);
  return derive_speed_bands(cases, v, "d");
}

// Mixture-of-experts models' training rows draw bands of their own ("megatron/moe", "*/moe"),
// and a dense model's band is its rows' alone: ten rows each, k = 1, their whole ranges,
// -0.10 .. +0.08 and -0.50 .. +1.30.
TEST(SpeedBandsFit, MixtureOfExpertsTrainingDrawsItsOwnBands) {
  std::vector<PreparedCase> cases;
  SpeedValidation v;
  const SpeedBands b = dense_and_moe_training(cases, v);
  const SpeedBand* dense = b.find("training", "megatron");
  const SpeedBand* moe = b.find("training", "megatron", true);
  ASSERT_TRUE(dense && moe);
  EXPECT_EQ(dense->engine, "megatron");
  EXPECT_NEAR(dense->low_error, -0.10, 1e-12);
  EXPECT_NEAR(dense->high_error, 0.08, 1e-12);
  EXPECT_EQ(moe->engine, "megatron/moe");
  EXPECT_NEAR(moe->low_error, -0.50, 1e-12);
  EXPECT_NEAR(moe->high_error, 1.30, 1e-12);
  // Another engine's MoE model takes the MoE band of every engine, a dense one the dense "*".
  EXPECT_EQ(b.find("training", "fsdp", true)->engine, "*/moe");
  EXPECT_EQ(b.find("training", "fsdp")->engine, "*");
}

std::string own_group(int i) {
  return "g" + std::to_string(i);
}

// The coverage of one use ("validate" or "all"), which must be there.
BandCoverage coverage_of(const std::vector<BandCoverage>& all, const std::string& use) {
  for (const auto& c : all)
    if (c.use == use) return c;
  ADD_FAILURE() << "no coverage for " << use;
  return {};
}

// Ten rows off by -25%, -20%, ..., +20%: k = max(1, floor(0.05 x 11)) = 1, so the band is the
// rows' whole range, -0.25 .. +0.20 (it holds a new row with probability 9/11). Each row is a
// source of its own and is checked against the band of the other nine (k = 1 again, their
// whole range, the kind's band: nine rows are too few for the engine's): the lowest and the
// highest row fall outside it, 8 of 10 inside.
TEST(SpeedBandsFit, FewRowsGiveTheirWholeRange) {
  std::vector<PreparedCase> cases;
  SpeedValidation v;
  const SpeedBands b = bands_of_rows(10, -0.25, 0.05, own_group, cases, v);
  const SpeedBand* band = b.find("decode", "vllm");
  ASSERT_NE(band, nullptr);
  EXPECT_EQ(band->engine, "vllm");  // ten rows: its own band, and the kind's
  EXPECT_EQ(b.bands().size(), 2u);
  EXPECT_NEAR(band->low_error, -0.25, 1e-12);
  EXPECT_NEAR(band->high_error, 0.20, 1e-12);
  const auto coverage = band_coverage(cases, v, b);
  ASSERT_EQ(coverage.size(), 2u);  // "all" and "validate"
  for (const auto& c : coverage) {
    EXPECT_EQ(c.n, 10);
    EXPECT_EQ(c.inside, 8);
  }
}

// Forty rows off by -25%, -24%, ..., +14%: k = floor(0.05 x 41) = 2, the second smallest and
// second largest errors, -0.24 and -0.25 + 38 x 0.01 = +0.13 (a new row falls inside with
// probability (41 - 4) / 41 = 90.2%). Without its own row, the band of the other 39 (k =
// floor(0.05 x 40) = 2) leaves out the two lowest rows (-0.25 and -0.24 against -0.23 and -0.24
// for the others) and the two highest: 36 of 40 inside.
TEST(SpeedBandsFit, ManyRowsDropTheOuterRanks) {
  std::vector<PreparedCase> cases;
  SpeedValidation v;
  const SpeedBands b = bands_of_rows(40, -0.25, 0.01, own_group, cases, v);
  const SpeedBand* band = b.find("decode", "vllm");
  ASSERT_NE(band, nullptr);
  EXPECT_NEAR(band->low_error, -0.24, 1e-12);
  EXPECT_NEAR(band->high_error, 0.13, 1e-12);
  for (const auto& c : band_coverage(cases, v, b)) {
    EXPECT_EQ(c.n, 40);
    EXPECT_EQ(c.inside, 36);
  }
}

// Two sources that disagree: A's twenty rows off by -10% .. +9%, B's by +30% .. +49%. The band
// of all forty is [-0.09, +0.48] (k = 2) and would hold 36 of them, but a source is checked
// against the band of the other alone (k = floor(0.05 x 21) = 1, its whole range): A against
// [+0.30, +0.49] and B against [-0.10, +0.09], so none is inside. The coverage says what a
// third source can expect, not how well the rows fit a band they drew.
TEST(SpeedBandsFit, ASourceIsCheckedAgainstTheBandsOfTheOthers) {
  std::vector<PreparedCase> cases;
  SpeedValidation v;
  const auto source = [](int i) { return std::string(i < 20 ? "A" : "B"); };
  // Rows 0-19: -0.10 + 0.01 i; rows 20-39: +0.30 + 0.01 (i - 20) = -0.10 + 0.01 i + 0.20.
  bands_of_rows(40, -0.10, 0.01, source, cases, v);
  for (int i = 20; i < 40; ++i)
    v.rows[static_cast<size_t>(i)]["predicted"] = 100.0 * (1 - 0.10 + 0.01 * i + 0.20);
  const SpeedBands all = derive_speed_bands(cases, v, "d");
  const SpeedBand* band = all.find("decode", "vllm");
  ASSERT_NE(band, nullptr);
  EXPECT_NEAR(band->low_error, -0.09, 1e-12);
  EXPECT_NEAR(band->high_error, 0.48, 1e-12);
  const BandCoverage check = coverage_of(band_coverage(cases, v, all), "validate");
  EXPECT_EQ(check.n, 40);
  EXPECT_EQ(check.inside, 0);
}

// A calibration row never draws a band; it is checked against the shipped ones.
TEST(SpeedBandsFit, CalibrationRowsDrawNoBand) {
  std::vector<PreparedCase> cases;
  SpeedValidation v;
  bands_of_rows(12, -0.05, 0.01, own_group, cases, v);
  for (auto& c : cases) c.spec.use = "calibrate";
  for (auto& row : v.rows) row["use"] = "calibrate";
  EXPECT_TRUE(derive_speed_bands(cases, v, "d").bands().empty());
}

}  // namespace
}  // namespace gpusizer
