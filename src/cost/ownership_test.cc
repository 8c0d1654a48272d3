// Cost of ownership against arithmetic done by hand from data/costs.json and data/gpus.csv.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "cost/ownership_figures.h"
#include "gpusizer/cost.h"
#include "gpusizer/error.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/cost.h"
#include "gpusizer/json/json_text.h"
#include "gpusizer/json/scenario.h"
#include "gpusizer/json/site.h"

namespace gpusizer {
namespace {

// 8 x A100 SXM4 80GB, one node. By hand with the shipped defaults:
//   cloud: one AWS p4de.24xlarge (8 x A100 80GB) = $27.4471/h (data/instances.csv; GCP
//          a2-ultragpu-8g $40.55, Azure ND96amsr_A100_v4 $32.77)
//   server: the HGX 8-GPU form, $60,000 (data/servers.csv)
//   capex: 8 x $15,000 + one SXM server $60,000 = $180,000; x 7.2 = 1,296,000 CNY
//   node peak: 8 x 400 + 800 + 8 x 150 = 5,200 W; energy 5.2 kW x PUE 1.5 x $0.13 = $1.014/h
//   maintenance: 10% x 180,000 = $18,000/year
//   per useful hour: (180,000 / 3 + 18,000) / (8760 x 0.6) + 1.014 = 78,000 / 5,256 + 1.014
//                    = $15.854/h
//   break-even utilization: 78,000 / ((27.4471 - 1.014) x 8760) = 0.3369
//   months at 60%: 180,000 / ((27.4471 - 1.014) x 730 x 0.6 - 1,500) = 17.86
TEST(Ownership, EightA100HandChecked) {
  const Scenario s = parse_scenario(
      {{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}, {"gpu_count", 8}}, Catalog::builtin());
  const Estimate e = estimate(s, Catalog::builtin());
  ASSERT_TRUE(e.ownership && e.ownership->cloud && e.ownership->on_prem);
  const Ownership& o = *e.ownership;
  EXPECT_NEAR(o.cloud->usd_per_hour, 27.4471, 1e-9);
  EXPECT_NEAR(o.on_prem->capex_usd, 180000, 1e-6);
  EXPECT_NEAR(o.on_prem->capex_cny, 1296000, 1e-3);
  EXPECT_NEAR(o.on_prem->energy_usd_per_hour, 1.014, 1e-9);
  EXPECT_NEAR(o.on_prem->maintenance_usd_per_year, 18000, 1e-6);
  EXPECT_NEAR(o.on_prem->usd_per_hour, 78000.0 / 5256.0 + 1.014, 1e-9);
  EXPECT_NEAR(*o.break_even.utilization, 78000.0 / ((27.4471 - 1.014) * 8760.0), 1e-9);
  EXPECT_NEAR(*o.break_even.months, 180000.0 / ((27.4471 - 1.014) * 730 * 0.6 - 1500), 1e-6);
  EXPECT_NE(o.break_even.verdict.find("buy"), std::string::npos) << o.break_even.verdict;
  // Per million output tokens = $/h / (tokens/s x 3600) x 1e6; per million requests x output_len.
  ASSERT_TRUE(o.cloud->usd_per_million_tokens && e.performance->max_output_tokens_per_s);
  EXPECT_NEAR(*o.cloud->usd_per_million_tokens,
              27.4471 / (*e.performance->max_output_tokens_per_s * 3600) * 1e6, 1e-9);
  EXPECT_NEAR(*o.cloud->usd_per_million_requests, *o.cloud->usd_per_million_tokens * 512, 1e-6);
}

// The on-prem line's clauses from the assumptions, by hand from data/costs.json (3 years, 10%
// maintenance, 60% utilization, PUE 1.5, $0.13/kWh, 7.2 CNY/USD, dated 2025) and the node's 5.2
// kW (above): they follow the scenario's own costs, and the defaults' come back after them (the
// clauses of the last assumptions are kept between estimates).
TEST(Ownership, OnPremLineFollowsTheAssumptions) {
  const Catalog& catalog = Catalog::builtin();
  auto on_prem_line = [&](const nlohmann::json& costs) {
    nlohmann::json in = {{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}, {"gpu_count", 8}};
    if (!costs.is_null()) in["costs"] = costs;
    const Estimate e = estimate(parse_scenario(in, catalog), catalog);
    for (const std::string& line : e.ownership->basis)
      if (line.rfind("on-prem: (", 0) == 0) return line;
    return std::string();
  };
  auto ends_with = [](const std::string& s, std::string_view end) {
    return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
  };
  const std::string_view defaults =
      "at $60000) / 3 years + 10%/year maintenance, over 8760 h x 0.6 utilization, + 5.20 kW x "
      "PUE 1.5 x $0.13/kWh; CNY at 7.2/USD (data/costs.json, 2025)";
  const std::string_view own =
      "at $60000) / 5 years + 8%/year maintenance, over 8760 h x 1 utilization, + 5.20 kW x "
      "PUE 1.2 x $0.1/kWh; CNY at 7/USD (data/costs.json, 2025)";
  const nlohmann::json costs = {{"amortization_years", 5},
                                {"maintenance_fraction_per_year", 0.08},
                                {"utilization", 1},
                                {"pue", 1.2},
                                {"electricity_usd_per_kwh", 0.1},
                                {"usd_to_cny", 7}};
  EXPECT_TRUE(ends_with(on_prem_line(nullptr), defaults)) << on_prem_line(nullptr);
  EXPECT_TRUE(ends_with(on_prem_line(costs), own)) << on_prem_line(costs);
  EXPECT_TRUE(ends_with(on_prem_line(nullptr), defaults)) << on_prem_line(nullptr);
  // The verdicts' years and utilization (the break-even by hand above: 34%, 18 months; with the
  // scenario's costs, fixed 180,000 / 5 + 8% = 50,400 a year over (27.4471 - 5.2 x 1.2 x 0.1) x
  // 8760 is 21%, and 180,000 / (26.8231 x 730 x 1 - 14,400 / 12) = 9.8 months).
  auto verdict = [&](const nlohmann::json& c) {
    nlohmann::json in = {{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}, {"gpu_count", 8}};
    if (!c.is_null()) in["costs"] = c;
    return estimate(parse_scenario(in, catalog), catalog).ownership->break_even.verdict;
  };
  EXPECT_NE(verdict(nullptr).find("above 34% utilization owning is cheaper, and at 60% it pays "
                                  "back in 18 months (of a 3-year life)"),
            std::string::npos)
      << verdict(nullptr);
  EXPECT_NE(verdict(costs).find("above 21% utilization owning is cheaper, and at 100% it pays "
                                "back in 10 months (of a 5-year life)"),
            std::string::npos)
      << verdict(costs);
  // One figure changed alone.
  EXPECT_TRUE(ends_with(on_prem_line({{"pue", 1.3}}),
                        "PUE 1.3 x $0.13/kWh; CNY at 7.2/USD "
                        "(data/costs.json, 2025)"));
}

// The whole on-prem line, kept between estimates with what it is written from: each estimate's
// own line when the GPUs, the server or its price change, and the first line again after them.
// By hand: 8 x A100 in the HGX 8-GPU form ($60,000; 8 x 400 + 800 + 8 x 150 = 5,200 W), 4 in the
// HGX 4-GPU form ($35,000; 4 x 400 + 700 + 4 x 150 = 2,900 W) (data/servers.csv, 2025), and 8
// with a server price given for every class: the costs.json class "SXM" at that price.
TEST(Ownership, OnPremLineKeptPerFleet) {
  const Catalog& catalog = Catalog::builtin();
  auto on_prem_line = [&](int64_t gpus, const nlohmann::json& costs) {
    nlohmann::json in = {{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}, {"gpu_count", gpus}};
    if (!costs.is_null()) in["costs"] = costs;
    const Estimate e = estimate(parse_scenario(in, catalog), catalog);
    for (const std::string& line : e.ownership->basis)
      if (line.rfind("on-prem: (", 0) == 0) return line;
    return std::string();
  };
  const std::string clauses =
      ") / 3 years + 10%/year maintenance, over 8760 h x 0.6 utilization, + ";
  const std::string tail = " kW x PUE 1.5 x $0.13/kWh; CNY at 7.2/USD (data/costs.json, 2025)";
  const std::string eight =
      "on-prem: (8 GPUs x $15000 + 1 x HGX 8-GPU server (SXM baseboard "
      "with NVSwitch) (servers.csv, 2025) at $60000" +
      clauses + "5.20" + tail;
  const std::string four =
      "on-prem: (4 GPUs x $15000 + 1 x HGX 4-GPU server (SXM board with "
      "NVLink) (servers.csv, 2025) at $35000" +
      clauses + "2.90" + tail;
  const std::string priced =
      "on-prem: (8 GPUs x $15000 + 1 x SXM server (costs.json) at $50000" + clauses + "5.20" + tail;
  EXPECT_EQ(on_prem_line(8, nullptr), eight);
  EXPECT_EQ(on_prem_line(4, nullptr), four);
  EXPECT_EQ(on_prem_line(8, {{"server_usd_per_node", 50000}}), priced);
  EXPECT_EQ(on_prem_line(8, nullptr), eight);
  EXPECT_EQ(on_prem_line(4, nullptr), four);
}

// The cloud line, kept between estimates with what it is written from: each fleet's own line,
// and the first again after the others. By hand from data/instances.csv (A100 SXM4 80GB, nodes
// of up to 8): 8 GPUs rent one AWS p4de.24xlarge at $27.4471 (GCP's 8-GPU shape $40.5504,
// Azure's $32.77); 4 GPUs one GCP a2-ultragpu-4g at $20.2752 (a p4de, half used, costs more); in
// mainland-China regions 8 GPUs one Alibaba ecs.gn7e-c16g1.32xlarge at CNY 272, / 7.2 = $37.78.
TEST(Ownership, CloudLineKeptPerFleet) {
  const Catalog& catalog = Catalog::builtin();
  auto cloud_line = [&](int64_t gpus, const std::string& region) {
    const Scenario s = parse_scenario(
        {{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}, {"gpu_count", gpus}}, catalog);
    const Estimate e = estimate(s, catalog);
    const Ownership o =
        ownership_cost(s, e.performance, e.power, catalog.cost_defaults(), catalog, region);
    return o.basis.empty() ? std::string() : o.basis[0];
  };
  const std::string eight =
      "cloud: 1 x p4de.24xlarge (AWS, 8 GPUs each, $27.45/h; us-west-2, 2026-09-08) for 8 GPUs "
      "in nodes of 8";
  const std::string four =
      "cloud: 1 x a2-ultragpu-4g (GCP, 4 GPUs each, $20.28/h; us-central1, 2025) for 4 GPUs in "
      "nodes of 4";
  const std::string china =
      "cloud: 1 x ecs.gn7e-c16g1.32xlarge (Alibaba Cloud, 8 GPUs each, CNY 272/h = $37.78 at 7.2 "
      "CNY/USD (costs.json, 2025); cn-hangzhou, 2025) for 8 GPUs in nodes of 8";
  EXPECT_EQ(cloud_line(8, ""), eight);
  EXPECT_EQ(cloud_line(4, ""), four);
  EXPECT_EQ(cloud_line(8, "cn"), china);
  EXPECT_EQ(cloud_line(8, ""), eight);
  EXPECT_EQ(cloud_line(8, "cn"), china);
  EXPECT_EQ(cloud_line(4, ""), four);
}

// The assumptions' JSON (their texts kept between answers of the same assumptions): the streamed
// answer is the tree's text for the defaults, for a scenario's own costs after them and for the
// defaults again; the figures are costs.json's (3, 0.13, 0.1, 1.5, 7.2, 0.6) and the scenario's.
TEST(Ownership, AssumptionsJsonFollowsTheCosts) {
  const Catalog& catalog = Catalog::builtin();
  nlohmann::json in = {{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}, {"gpu_count", 8}};
  nlohmann::json own = in;
  own["costs"] = {{"pue", 1.25}, {"electricity_usd_per_kwh", 0.085}, {"utilization", 0.35}};
  for (const nlohmann::json* input : {&in, &own, &in}) {
    std::string text;
    append_estimate_json(text, *input, catalog);
    const nlohmann::json tree = estimate_json(*input, catalog);
    EXPECT_EQ(text, json_text(tree));
    const nlohmann::json answer = nlohmann::json::parse(text);
    const nlohmann::json& a = answer["cost"]["ownership"]["assumptions"];
    const bool defaults = input == &in;
    EXPECT_EQ(a["amortization_years"], 3.0);
    EXPECT_EQ(a["electricity_usd_per_kwh"], defaults ? 0.13 : 0.085);
    EXPECT_EQ(a["maintenance_fraction_per_year"], 0.1);
    EXPECT_EQ(a["pue"], defaults ? 1.5 : 1.25);
    EXPECT_EQ(a["usd_to_cny"], 7.2);
    EXPECT_EQ(a["utilization"], defaults ? 0.6 : 0.35);
  }
}

// The figures-only ownership (searches rank on it): the same hand-checked prices, no text.
// The estimate prices the nodes its power counted and moves its assumptions into the answer
// (estimate_ownership): the same ownership as ownership_cost plans and copies itself.
TEST(Ownership, TheEstimatesOwnershipIsOwnershipCost) {
  const Catalog& catalog = Catalog::builtin();
  const Scenario s = parse_scenario(
      {{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}, {"gpu_count", 12}}, catalog);
  const Estimate e = estimate(s, catalog);
  ASSERT_TRUE(e.ownership && e.ownership->on_prem);
  const Ownership direct = ownership_cost(
      s, e.performance, e.power, with_cost_overrides(catalog.cost_defaults(), s.costs), catalog);
  EXPECT_EQ(to_json(*e.ownership), to_json(direct));
  // The catalog's server prices, shared rather than copied (site.h).
  EXPECT_EQ(e.ownership->assumptions.server_usd_per_node,
            catalog.cost_defaults().server_usd_per_node);
  EXPECT_EQ(e.ownership->on_prem->servers, 2);  // 12 GPUs in nodes of 8
}

TEST(Ownership, FiguresAloneHaveThePricesAndNoText) {
  const Scenario s = parse_scenario(
      {{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}, {"gpu_count", 8}}, Catalog::builtin());
  const Estimate e = estimate(s, Catalog::builtin());
  const Ownership o = ownership_figures(s, e.performance, e.power,
                                        Catalog::builtin().cost_defaults(), Catalog::builtin());
  ASSERT_TRUE(o.cloud && o.on_prem);
  EXPECT_NEAR(o.cloud->usd_per_hour, 27.4471, 1e-9);
  EXPECT_NEAR(o.on_prem->capex_usd, 180000, 1e-6);
  EXPECT_NEAR(o.on_prem->usd_per_hour, 78000.0 / 5256.0 + 1.014, 1e-9);
  EXPECT_TRUE(o.basis.empty());
  EXPECT_TRUE(o.break_even.verdict.empty());
}

TEST(Ownership, OverridesAndRunCost) {
  const Scenario s = parse_scenario({{"model", "llama-2-7b"},
                                     {"task", "full"},
                                     {"gpu", "h100-sxm5-80gb"},
                                     {"gpu_count", 8},
                                     {"training", {{"zero_stage", 3}, {"tokens", 1e9}}},
                                     {"costs", {{"utilization", 1.0}, {"usd_to_cny", 7.0}}}},
                                    Catalog::builtin());
  const Estimate e = estimate(s, Catalog::builtin());
  ASSERT_TRUE(e.ownership && e.ownership->cloud && e.performance->time_to_train_s);
  // 8 H100 SXM rent as one Lambda 8x H100 SXM at $23.92/h (data/instances.csv), the cheapest
  // 8-GPU shape (AWS p5.48xlarge $55.04/h).
  EXPECT_EQ(e.ownership->cloud->instance, "8x H100 SXM");
  EXPECT_NEAR(*e.ownership->cloud->usd_per_run, 23.92 * *e.performance->time_to_train_s / 3600.0,
              1e-6);
  EXPECT_NEAR(e.ownership->on_prem->capex_cny, e.ownership->on_prem->capex_usd * 7.0, 1e-6);
  EXPECT_DOUBLE_EQ(e.ownership->assumptions.utilization, 1.0);
}

TEST(Ownership, BadOverrideNamesTheField) {
  try {
    with_cost_overrides(Catalog::builtin().cost_defaults(), {{"pue", 0.5}});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "costs.pue");
  }
}

// A scenario's server prices go into a map of the answer's own: the defaults, shared by every
// estimate (site.h), keep theirs.
TEST(Ownership, ServerPriceOverridesLeaveTheDefaults) {
  CostAssumptions d;
  d.server_usd_per_node =
      std::make_shared<const ServerPrices>(ServerPrices{{"PCIe", 15000}, {"SXM", 60000}});
  const CostAssumptions one = with_cost_overrides(d, {{"server_usd_per_node", {{"PCIe", 1}}}});
  EXPECT_EQ(one.server_usd_per_node->at("PCIe"), 1);
  EXPECT_EQ(one.server_usd_per_node->at("SXM"), 60000);
  const CostAssumptions all = with_cost_overrides(d, {{"server_usd_per_node", 2}});
  EXPECT_EQ(all.server_usd_per_node->at("PCIe"), 2);
  EXPECT_EQ(all.server_usd_per_node->at("SXM"), 2);
  EXPECT_EQ(d.server_usd_per_node->at("PCIe"), 15000);
  EXPECT_EQ(d.server_usd_per_node->at("SXM"), 60000);
  // No override: the same map, not a copy.
  EXPECT_EQ(with_cost_overrides(d, {{"pue", 1.2}}).server_usd_per_node, d.server_usd_per_node);
}

}  // namespace
}  // namespace gpusizer
