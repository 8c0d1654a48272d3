// Fleet pricing in whole instances and servers, against the listed prices of data/instances.csv
// and data/servers.csv (arithmetic by hand in each test).
#include "cost/fleet.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpusizer/error.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

Estimate serve(const std::string& gpu, int64_t count, nlohmann::json extra = {}) {
  nlohmann::json j = {
      {"model", "llama-3.1-8b"}, {"gpu", gpu}, {"gpu_count", count}, {"engine", "vllm"}};
  if (extra.is_object()) j.update(extra);
  return estimate(resolve_scenario(j, Catalog::builtin()), Catalog::builtin());
}

// 8 x A10G is one machine: AWS sells it as one g5.48xlarge at $16.288/h (the only 8 x A10G
// shape), not eight g5.xlarge at 8 x $1.006 = $8.048.
TEST(FleetPrice, EightA10gIsOneG548xlarge) {
  const Estimate e = serve("a10g-24gb", 8);
  ASSERT_TRUE(e.ownership && e.ownership->cloud);
  const CloudCost& c = *e.ownership->cloud;
  EXPECT_EQ(c.instance, "g5.48xlarge");
  EXPECT_EQ(c.count, 1);
  EXPECT_EQ(c.gpus_per_instance, 8);
  EXPECT_DOUBLE_EQ(c.usd_per_hour, 16.288);
  ASSERT_TRUE(e.cost.usd_per_hour);
  EXPECT_DOUBLE_EQ(*e.cost.usd_per_hour, 16.288);
}

// One A10G: g5.xlarge $1.006/h. Two: no 2-GPU g5 shape, so one g5.12xlarge (4 GPUs, $5.672/h)
// holds the 2-GPU node, 4 GPUs billed.
TEST(FleetPrice, SmallestShapeHoldingTheNode) {
  EXPECT_DOUBLE_EQ(serve("a10g-24gb", 1).ownership->cloud->usd_per_hour, 1.006);
  const Estimate two = serve("a10g-24gb", 2);
  EXPECT_EQ(two.ownership->cloud->instance, "g5.12xlarge");
  EXPECT_DOUBLE_EQ(two.ownership->cloud->usd_per_hour, 5.672);
}

// 16 x H100 SXM in nodes of 8: two 8-GPU instances of the cheapest 8-GPU shape, Lambda 8x H100
// SXM at $23.92/h (AWS p5.48xlarge $55.04, GCP a3-highgpu-8g $88.49): 2 x 23.92 = $47.84/h.
TEST(FleetPrice, TwoNodesOfEight) {
  const Catalog& cat = Catalog::builtin();
  const auto p = cheapest_instances(cat.gpu("h100-sxm5-80gb"), 16, 8, 8, cat, 7.2, false);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->instance->name, "8x H100 SXM");
  EXPECT_EQ(p->count, 2);
  EXPECT_NEAR(p->usd_per_hour, 47.84, 1e-9);
}

// CNY prices are converted at costs.json's usd_to_cny: Alibaba's 8 x A100 80GB shape listed at
// CNY 272/h is 272 / 7.2 = $37.78/h; only mainland-China regions are used for region "cn", and
// only the others otherwise (AWS p4de.24xlarge, $27.4471/h).
TEST(FleetPrice, ChinaRegionAndCny) {
  const Catalog& cat = Catalog::builtin();
  const Gpu& g = cat.gpu("a100-sxm4-80gb");
  const auto cn = cheapest_instances(g, 8, 8, 8, cat, 7.2, true);
  ASSERT_TRUE(cn);
  EXPECT_EQ(cn->instance->currency, "CNY");
  EXPECT_NEAR(cn->usd_per_hour, 272.0 / 7.2, 1e-9);
  const auto us = cheapest_instances(g, 8, 8, 8, cat, 7.2, false);
  ASSERT_TRUE(us);
  EXPECT_EQ(us->instance->name, "p4de.24xlarge");
  EXPECT_DOUBLE_EQ(us->usd_per_hour, 27.4471);
  // A copy of the row (a GPU that is not one of the catalog's rows) is matched by its id: the
  // same two prices.
  const Gpu copy = g;
  const auto cn_copy = cheapest_instances(copy, 8, 8, 8, cat, 7.2, true);
  const auto us_copy = cheapest_instances(copy, 8, 8, 8, cat, 7.2, false);
  ASSERT_TRUE(cn_copy && us_copy);
  EXPECT_EQ(cn_copy->instance, cn->instance);
  EXPECT_EQ(us_copy->instance, us->instance);
}

// No cloud shape: "not rented", and never the verdict "buy" from a missing price.
TEST(FleetPrice, NoInstanceIsNotRented) {
  const Estimate e = serve("rtx-4090-24gb", 1);
  ASSERT_TRUE(e.ownership);
  EXPECT_FALSE(e.ownership->cloud);
  EXPECT_FALSE(e.cost.usd_per_hour);
  EXPECT_EQ(e.ownership->not_rented.rfind("not rented", 0), 0u) << e.ownership->not_rented;
  EXPECT_EQ(e.ownership->break_even.verdict.rfind("not rented", 0), 0u)
      << e.ownership->break_even.verdict;
  EXPECT_EQ(e.ownership->break_even.verdict.find("buy"), std::string::npos);
}

// GH200 nodes hold 4 superchips on NVLink (gpus.csv, quad-GH200 nodes), but the one listed cloud
// shape holds 1 (Lambda 1x GH200, $1.49/h). Replicas of one GPU each rent one instance apiece:
// 4 x 1.49 = $5.96/h. A TP 2 replica would split its tensor-parallel pair over two instances,
// which share no NVLink: not rented, and the reason names the group and the largest shape.
// (Before, eight 1x GH200 were priced for TP 2 replicas, a layout they cannot run.)
TEST(FleetPrice, SmallShapesHoldWholeModelParallelGroups) {
  const Estimate replicas = serve("gh200-96gb", 4, {{"parallel", {{"tp", 1}, {"dp", 4}}}});
  ASSERT_TRUE(replicas.ownership && replicas.ownership->cloud);
  EXPECT_EQ(replicas.ownership->cloud->count, 4);
  EXPECT_DOUBLE_EQ(replicas.ownership->cloud->usd_per_hour, 4 * 1.49);
  const Estimate tp2 = serve("gh200-96gb", 4, {{"parallel", {{"tp", 2}, {"dp", 2}}}});
  ASSERT_TRUE(tp2.ownership);
  EXPECT_FALSE(tp2.ownership->cloud);
  EXPECT_EQ(tp2.ownership->not_rented,
            "not rented: no cloud shape of GH200 Grace Hopper 96GB holds a tensor or expert "
            "parallel group of 2 GPUs on one machine (largest listed: 1x GH200 with 1)");
  // Training reduces gradients over every rank each step, timed on the node's NVLink: two 1x
  // GH200 instances would exchange them over the network instead, so a node of 2 is not rented.
  const Estimate ddp =
      serve("gh200-96gb", 2, {{"task", "lora"}, {"engine", "hf"}, {"parallel", {{"dp", 2}}}});
  ASSERT_TRUE(ddp.ownership);
  EXPECT_FALSE(ddp.ownership->cloud);
  EXPECT_EQ(ddp.ownership->not_rented,
            "not rented: no cloud shape of GH200 Grace Hopper 96GB holds a node of 2 GPUs for "
            "training's gradient exchange (largest listed: 1x GH200 with 1)");
  // Pipeline stages may cross instances (one activation a step): PP 2 rents two.
  const Estimate pp2 = serve("gh200-96gb", 2, {{"parallel", {{"pp", 2}}}});
  ASSERT_TRUE(pp2.ownership && pp2.ownership->cloud);
  EXPECT_DOUBLE_EQ(pp2.ownership->cloud->usd_per_hour, 2 * 1.49);
  // GH200 has no list price (gpus.csv: system pricing only), so the fleet has no price at all,
  // and the verdict says why rather than pricing it from instances it cannot run on.
  EXPECT_FALSE(tp2.ownership->on_prem);
  EXPECT_FALSE(tp2.cost.usd_per_hour);
  EXPECT_EQ(tp2.ownership->break_even.verdict,
            tp2.ownership->not_rented + ", and no purchase price in data/gpus.csv");
}

// On-prem, one A100 SXM buys the smallest server that holds it: the HGX 4-GPU server
// ($35,000, servers.csv), not an 8-GPU one: capex 15,000 + 35,000 = $50,000. Its node draws
// 400 + 700 host + 150 slot = 1,250 W at peak.
TEST(FleetPrice, OneSxmGpuBuysTheSmallestServer) {
  const Estimate e = serve("a100-sxm4-80gb", 1);
  ASSERT_TRUE(e.ownership && e.ownership->on_prem);
  EXPECT_EQ(e.ownership->on_prem->server, "hgx-4");
  EXPECT_DOUBLE_EQ(e.ownership->on_prem->capex_usd, 50000);
  EXPECT_DOUBLE_EQ(*e.power.node_peak_watts, 1250);
}

// One RTX 4090 sits in a desktop (one CPU: 250 W host + 25 W slot), not an 800 W dual-CPU
// server: 450 + 250 + 25 = 725 W at peak, x 1.25 margin = 906.25 W.
TEST(FleetPower, WorkstationIsNotADualCpuServer) {
  const Estimate e = serve("rtx-4090-24gb", 1);
  EXPECT_EQ(e.power.server, "desktop-2");
  EXPECT_DOUBLE_EQ(*e.power.node_peak_watts, 725);
  EXPECT_DOUBLE_EQ(*e.power.node_watts, 906.25);
}

// Racks: 16 x A100 SXM in two HGX 8-GPU nodes of 6.5 kW with margin ((8 x 400 + 800 + 8 x 150)
// x 1.25); a 20 kW rack holds floor(20 / 6.5) = 3 nodes, so one rack. At the default 6 kW a
// node does not fit a rack: no rack count.
TEST(FleetPower, RacksAtTheBudget) {
  const Estimate e = serve("a100-sxm4-80gb", 16, {{"facility", {{"rack_budget_watts", 20000}}}});
  EXPECT_DOUBLE_EQ(*e.power.node_watts, 6500);
  EXPECT_EQ(*e.power.nodes, 2);
  ASSERT_TRUE(e.power.racks);
  EXPECT_EQ(*e.power.racks, 1);
  EXPECT_FALSE(serve("a100-sxm4-80gb", 16).power.racks);
}

TEST(FleetData, BadInstanceRowNamesFileLineAndColumn) {
  const std::string head =
      "provider,instance,gpu,gpus,price_per_hour,currency,region,date,confidence,source,notes\n";
  try {
    (void)Catalog::from_texts(
        {{"instances.csv", head + "AWS,x,no-such-gpu,1,1,USD,us,2025,,u,\n"}});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "instances.csv line 2: gpu");
  }
  try {
    (void)Catalog::from_texts({{"instances.csv", head + "AWS,x,t4-16gb,1,1,EUR,us,2025,,u,\n"}});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "instances.csv line 2: currency");
  }
  try {
    (void)Catalog::from_texts({{"instances.csv", head + "AWS,x,t4-16gb,1.5,1,USD,us,2025,,u,\n"}});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "instances.csv line 2: gpus");
  }
}

// Every data row is whole: every GPU has a topology and China status (the parser refuses a
// missing one), every instance and server names a date and source.
TEST(FleetData, EveryRowFilled) {
  const Catalog& cat = Catalog::builtin();
  for (const Gpu& g : cat.gpus()) EXPECT_FALSE(g.topology_source.empty()) << g.id;
  for (const CloudInstance& i : cat.instances()) {
    EXPECT_FALSE(i.source.empty()) << i.name;
    // The row position read with the instance is its GPU's row.
    ASSERT_LT(i.gpu_row, cat.gpus().size()) << i.name;
    EXPECT_EQ(cat.gpus()[i.gpu_row].id, i.gpu_id) << i.name;
    // So are its region's and currency's flags.
    EXPECT_EQ(i.china, i.region.rfind("cn-", 0) == 0) << i.name;
    EXPECT_EQ(i.cny, i.currency == "CNY") << i.name;
  }
  EXPECT_GE(cat.servers().size(), 8u);
}

// The rows read with the data files: each server form holds a GPU row exactly when its holds name
// the GPU's id, form-factor class or segment, and a GPU row's instances are the instances.csv
// rows of its id, in the file's order. The A100 SXM (class SXM) is held by the HGX 4-GPU server
// and has AWS p4de.24xlarge and Alibaba's 8 x A100 shape among its instances.
TEST(FleetData, RowsFoundWhenRead) {
  const Catalog& cat = Catalog::builtin();
  const std::vector<Gpu>& gpus = cat.gpus();
  for (const ServerForm& f : cat.servers()) {
    ASSERT_EQ(f.holds_row.size(), gpus.size()) << f.id;
    for (size_t r = 0; r < gpus.size(); ++r) {
      const Gpu& g = gpus[r];
      const bool named =
          std::find(f.holds.begin(), f.holds.end(), g.id) != f.holds.end() ||
          std::find(f.holds.begin(), f.holds.end(), g.form_factor_class) != f.holds.end() ||
          std::find(f.holds.begin(), f.holds.end(), g.segment) != f.holds.end();
      EXPECT_EQ(f.holds_row[r], named) << f.id << " " << g.id;
    }
  }
  size_t listed = 0;
  for (size_t r = 0; r < gpus.size(); ++r) {
    std::vector<uint32_t> expected;
    for (size_t i = 0; i < cat.instances().size(); ++i)
      if (cat.instances()[i].gpu_id == gpus[r].id) expected.push_back(static_cast<uint32_t>(i));
    EXPECT_EQ(cat.instances_of_row(r), expected) << gpus[r].id;
    listed += expected.size();
  }
  EXPECT_EQ(listed, cat.instances().size());
  EXPECT_TRUE(cat.instances_of_row(gpus.size()).empty());
  const size_t a100 = static_cast<size_t>(&cat.gpu("a100-sxm4-80gb") - gpus.data());
  std::vector<std::string> names;
  for (const uint32_t i : cat.instances_of_row(a100)) names.push_back(cat.instances()[i].name);
  EXPECT_NE(std::find(names.begin(), names.end(), "p4de.24xlarge"), names.end());
  const auto hgx4 = std::find_if(cat.servers().begin(), cat.servers().end(),
                                 [](const ServerForm& f) { return f.id == "hgx-4"; });
  ASSERT_NE(hgx4, cat.servers().end());
  EXPECT_TRUE(hgx4->holds_row[a100]);
}

// A GPU that is not one of the catalog's rows (a copy) is planned by its strings: the same
// smallest server as its row (one A100 SXM: the HGX 4-GPU server).
TEST(FleetPrice, CopyOfARowPlansTheSameServer) {
  const Catalog& cat = Catalog::builtin();
  const Gpu& g = cat.gpu("a100-sxm4-80gb");
  const Gpu copy = g;
  const NodePlan row = plan_nodes(g, 1, 8, cat), other = plan_nodes(copy, 1, 8, cat);
  ASSERT_TRUE(row.server && other.server);
  EXPECT_EQ(row.server->id, "hgx-4");
  EXPECT_EQ(other.server, row.server);
  EXPECT_EQ(other.gpus_per_node, row.gpus_per_node);
}

}  // namespace
}  // namespace gpusizer
