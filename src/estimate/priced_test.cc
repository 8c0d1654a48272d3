// The figures a search ranks on (estimate/priced.h) against estimate() and the hand-checked
// price of cost/ownership_test.cc.
#include "estimate/priced.h"
#include "gpusizer/json/scenario.h"

#include <gtest/gtest.h>

namespace gpusizer {
namespace {

// 8 x A100 SXM4 80GB serving Llama-2-7B: one AWS p4de.24xlarge at $27.4471/h
// (data/instances.csv), on-prem (180,000 / 3 + 18,000) / (8760 x 0.6) + 1.014 = $15.854/h
// (cost/ownership_test.cc, EightA100HandChecked). The priced figures are the full estimate's,
// with no text.
TEST(EstimatePriced, FullEstimatesFiguresWithoutText) {
  const Scenario s = parse_scenario(
      {{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}, {"gpu_count", 8}}, Catalog::builtin());
  const Estimate full = estimate(s, Catalog::builtin());
  const Estimate priced = estimate_priced(s, Catalog::builtin());
  ASSERT_TRUE(priced.ownership && priced.ownership->cloud && priced.ownership->on_prem);
  EXPECT_NEAR(*priced.cost.usd_per_hour, 27.4471, 1e-9);
  EXPECT_NEAR(priced.ownership->on_prem->usd_per_hour, 78000.0 / 5256.0 + 1.014, 1e-9);
  EXPECT_DOUBLE_EQ(priced.memory.total, full.memory.total);
  ASSERT_TRUE(priced.performance && full.performance);
  EXPECT_DOUBLE_EQ(*priced.performance->max_output_tokens_per_s,
                   *full.performance->max_output_tokens_per_s);
  EXPECT_EQ(priced.power.node_peak_watts, full.power.node_peak_watts);
  EXPECT_EQ(priced.cost.usd_per_million_tokens, full.cost.usd_per_million_tokens);
  EXPECT_TRUE(priced.basis.empty());
  EXPECT_TRUE(priced.warnings.empty());
  EXPECT_TRUE(priced.cost.bands.empty());
  EXPECT_FALSE(full.cost.bands.empty());
}

// The stages a search walks: memory alone, then speed; each the figures of its Detail. Llama-2-7B
// in bf16 on one A100: 6,738,415,616 parameters x 2 bytes of weights (models.jsonl).
TEST(StagedEstimate, EachStageHasItsDetailsFigures) {
  const Catalog& catalog = Catalog::builtin();
  const Scenario s = parse_scenario({{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}}, catalog);
  Estimate e;
  StagedEstimate staged(s, catalog, e);
  EXPECT_DOUBLE_EQ(e.memory.weights, 6738415616.0 * 2);
  EXPECT_EQ(e.memory.total, estimate(s, catalog, Detail::kMemory).memory.total);
  EXPECT_FALSE(e.performance);
  staged.add_speed();
  const Estimate figures = estimate(s, catalog, Detail::kFigures);
  ASSERT_TRUE(e.performance && figures.performance);
  EXPECT_EQ(e.performance->decode_tokens_per_s, figures.performance->decode_tokens_per_s);
  EXPECT_FALSE(e.ownership);
  EXPECT_TRUE(e.basis.empty());
}

}  // namespace
}  // namespace gpusizer
