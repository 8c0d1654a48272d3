// The figures a search ranks on (estimate/priced.h) against estimate() and the hand-checked
// price of cost/ownership_test.cc.
#include "estimate/priced.h"
#include "estimate/layout.h"
#include "gpusizer/json/scenario.h"
#include "speed/training_speed.h"

#include <gtest/gtest.h>

#include <string>

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

// An answer's estimate of `input`: explained, with the answer's counts and memo, making or
// leaving out what an answer does not write for a setup that does not fit by `extras`.
Estimate answer_estimate(const nlohmann::json& input, UnfitExtras extras) {
  const Catalog& catalog = Catalog::builtin();
  const Scenario s = resolved(parse_scenario(input, catalog), catalog);
  const ModelCounts counts = count_model(s);
  ModuleSumsMemo memo;
  return estimate(s, catalog, Detail::kFull, counts, memo, extras);
}

// UnfitExtras::kSkipped (an answer's estimate): the ownership, its rent and on-prem figures and
// texts, only when the memory fits; an answer writes none of them for a setup that does not fit.
// Full fine-tuning of Llama-2-7B on one A100 80GB needs ~16 bytes a parameter (~108 GB): it does
// not fit; made all the same, it rents one GCP a2-ultragpu-1g at $5.0688/h
// (data/instances.csv). Llama-2-7B LoRA on the same GPU fits (~14 GB of weights).
TEST(EstimatePriced, OwnershipTextsOnlyWhenTheMemoryFits) {
  const nlohmann::json full = {{"model", "llama-2-7b"}, {"task", "full"}, {"gpu", "a100-80g"}};
  const Estimate always = answer_estimate(full, UnfitExtras::kMade);
  const Estimate when_fits = answer_estimate(full, UnfitExtras::kSkipped);
  ASSERT_TRUE(when_fits.memory.fits && !*when_fits.memory.fits);
  ASSERT_TRUE(always.ownership && always.ownership->cloud && always.ownership->on_prem);
  EXPECT_DOUBLE_EQ(always.ownership->cloud->usd_per_hour, 5.0688);
  EXPECT_EQ(always.ownership->basis.size(), 2u);
  EXPECT_FALSE(always.ownership->break_even.verdict.empty());
  EXPECT_FALSE(when_fits.ownership);
  EXPECT_FALSE(when_fits.cost.usd_per_hour);
  // The answer writes no cost, so no basis for it either; with the extras made, there is one.
  EXPECT_FALSE(when_fits.basis.contains("usd_per_hour"));
  EXPECT_FALSE(always.basis.at("usd_per_hour").empty());

  const nlohmann::json lora = {{"model", "llama-2-7b"}, {"task", "lora"}, {"gpu", "a100-80g"}};
  const Estimate fits = answer_estimate(lora, UnfitExtras::kSkipped);
  ASSERT_TRUE(fits.memory.fits && *fits.memory.fits && fits.ownership);
  EXPECT_EQ(fits.ownership->basis, answer_estimate(lora, UnfitExtras::kMade).ownership->basis);
  EXPECT_EQ(fits.ownership->basis.size(), 2u);
  EXPECT_FALSE(fits.ownership->break_even.verdict.empty());
}

// UnfitExtras::kSkipped also leaves out what an answer does not write for a setup that does not
// fit, its performance and cost: the training step's split by part, the speed and cost
// figures' bands and their basis texts. Full fine-tuning of Llama-2-7B on one A100 80GB does not
// fit (above); its training figures (its changes' speed factors divide by them), the memory's
// basis and the warnings are made all the same. Made, the split has the eight parts
// StepBreakdown::by_cause names (compute, dp_comm, ep_comm, offload, optimizer, pp_bubble,
// recompute, tp_comm), which add up to the step time, and the training throughput has a band around
// it; the price per million tokens divides the hourly price by that throughput, so it has one too.
TEST(EstimatePriced, UnfitExtrasLeftOutWhenTheMemoryDoesNotFit) {
  const nlohmann::json full = {{"model", "llama-2-7b"}, {"task", "full"}, {"gpu", "a100-80g"}};
  const Estimate made = answer_estimate(full, UnfitExtras::kMade);
  const Estimate skipped = answer_estimate(full, UnfitExtras::kSkipped);
  ASSERT_TRUE(skipped.memory.fits && !*skipped.memory.fits);
  ASSERT_TRUE(made.performance && skipped.performance);
  const PerformanceEstimate& m = *made.performance;
  const PerformanceEstimate& k = *skipped.performance;
  ASSERT_EQ(m.step_breakdown_s.size(), 8u);
  double parts = 0;
  for (const auto& [cause, seconds] : m.step_breakdown_s) parts += seconds;
  EXPECT_NEAR(parts, *m.step_time_s, 1e-12 * *m.step_time_s);
  const auto* throughput_band = m.bands.find("train_tokens_per_s");
  ASSERT_NE(throughput_band, nullptr);
  EXPECT_LT(throughput_band->first, *m.train_tokens_per_s);
  EXPECT_GT(throughput_band->second, *m.train_tokens_per_s);
  EXPECT_TRUE(made.cost.bands.contains("usd_per_million_tokens"));
  EXPECT_TRUE(k.step_breakdown_s.empty());
  EXPECT_TRUE(k.bands.empty());
  EXPECT_TRUE(skipped.cost.bands.empty());
  EXPECT_EQ(k.step_time_s, m.step_time_s);
  EXPECT_EQ(k.train_tokens_per_s, m.train_tokens_per_s);
  EXPECT_EQ(k.mfu, m.mfu);
  EXPECT_TRUE(made.cost.usd_per_million_tokens);
  EXPECT_FALSE(skipped.cost.usd_per_million_tokens);
  EXPECT_FALSE(made.basis.at("bands").empty());
  for (const char* key : {"bands", "step_time_s", "mfu", "usd_per_hour", "usd_per_million_tokens"})
    EXPECT_FALSE(skipped.basis.contains(key)) << key;
  for (const char* key : {"weights_bytes", "optimizer_bytes", "total_bytes", "gpu_watts"})
    EXPECT_EQ(skipped.basis.at(key), made.basis.at(key)) << key;
  EXPECT_EQ(skipped.warnings, made.warnings);
  // No ownership: the answer writes none of its figures.
  ASSERT_TRUE(made.ownership && made.ownership->cloud && made.ownership->on_prem);
  EXPECT_FALSE(skipped.ownership);

  // An RTX 4090 has no instance in data/instances.csv: made, a run of a billion training tokens
  // is priced on-prem (cost/run_cost.h; the estimate's usd_total, which the answer leaves out
  // with its basis). Skipped, only the run's energy is made, which the answer writes in its
  // power (run_kwh), the same figure; full fine-tuning of Llama-2-7B needs ~108 GB, past the
  // card's 24 GB.
  const nlohmann::json unrented = {{"model", "llama-2-7b"},
                                   {"task", "full"},
                                   {"gpu", "rtx-4090-24gb"},
                                   {"training", {{"tokens", 1000000000}}}};
  const Estimate run_made = answer_estimate(unrented, UnfitExtras::kMade);
  const Estimate run_skipped = answer_estimate(unrented, UnfitExtras::kSkipped);
  ASSERT_TRUE(run_skipped.memory.fits && !*run_skipped.memory.fits);
  ASSERT_TRUE(run_made.ownership && !run_made.ownership->cloud && run_made.ownership->on_prem);
  EXPECT_TRUE(run_made.cost.usd_total);
  EXPECT_EQ(run_made.basis.at("usd_total").rfind("on-prem $", 0), 0u);
  EXPECT_FALSE(run_skipped.ownership);
  EXPECT_FALSE(run_skipped.cost.usd_total);
  EXPECT_FALSE(run_skipped.basis.contains("usd_total"));
  ASSERT_TRUE(run_made.power.run_kwh && run_skipped.power.run_kwh);
  EXPECT_EQ(*run_skipped.power.run_kwh, *run_made.power.run_kwh);
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

// Counts given by a search (count_model of the same scenario) give the figures of counting here.
// Llama-2-7B LoRA on one A100: 6,738,415,616 x 2 bytes of base weights and rank-16 adapters on
// every linear matrix of the 32 layers, 16 x (4 x (4,096 + 4,096) + 3 x (4,096 + 11,008)) x 32 =
// 39,976,960 parameters at 2 bytes.
TEST(StagedEstimate, GivenCountsGiveTheSameFigures) {
  const Catalog& catalog = Catalog::builtin();
  const Scenario s =
      resolved(parse_scenario(
                   {{"model", "llama-2-7b"}, {"task", "lora"}, {"gpu", "a100-sxm4-80gb"}}, catalog),
               catalog);
  const ModelCounts counts = count_model(s);
  Estimate counted, given;
  StagedEstimate a(s, catalog, counted);
  StagedEstimate b(s, catalog, given, counts);
  EXPECT_EQ(&b.counts(), &counts);
  EXPECT_DOUBLE_EQ(given.memory.weights, 6738415616.0 * 2 + 39976960.0 * 2);
  EXPECT_EQ(given.memory.total, counted.memory.total);
  EXPECT_EQ(given.params, counted.params);
  a.add_speed();
  b.add_speed();
  ASSERT_TRUE(counted.performance && given.performance);
  EXPECT_EQ(given.performance->train_tokens_per_s, counted.performance->train_tokens_per_s);
}

// The rented fleet's basis line as the thread keeps it (estimate.cc append_rent_basis): the
// text its instance, price and GPU count write, in any order. Llama-2-7B on 6, 7 and 8 H100:
// one Lambda "8x H100 SXM" (8 GPUs, $23.92/h, priced 2025: data/instances.csv) holds each
// fleet's one node; the lines differ only in the GPUs asked for, and the first comes back after.
TEST(EstimatePriced, RentBasisByInstanceAndCount) {
  auto line = [](int gpus) {
    const Scenario s = parse_scenario(
        {{"model", "llama-2-7b"}, {"gpu", "h100"}, {"gpu_count", gpus}}, Catalog::builtin());
    return std::string(estimate(s, Catalog::builtin()).basis.at("usd_per_hour"));
  };
  const std::string eight = "1 x 8x H100 SXM (Lambda, 8 GPUs each, $23.92/h, 2025) for 8 GPUs";
  EXPECT_EQ(line(8), eight);
  EXPECT_EQ(line(7), "1 x 8x H100 SXM (Lambda, 8 GPUs each, $23.92/h, 2025) for 7 GPUs");
  EXPECT_EQ(line(6), "1 x 8x H100 SXM (Lambda, 8 GPUs each, $23.92/h, 2025) for 6 GPUs");
  EXPECT_EQ(line(8), eight);
  EXPECT_EQ(line(7), "1 x 8x H100 SXM (Lambda, 8 GPUs each, $23.92/h, 2025) for 7 GPUs");
}

}  // namespace
}  // namespace gpusizer
