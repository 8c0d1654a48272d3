// Power and machine-room arithmetic against hand-checked figures (data/facility.json defaults).
#include <gtest/gtest.h>

#include <string>

#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

Estimate run(const nlohmann::json& j) {
  return estimate(parse_scenario(j, Catalog::builtin()), Catalog::builtin());
}

bool has_warning(const Estimate& e, const std::string& text) {
  for (const auto& w : e.warnings)
    if (w.find(text) != std::string::npos) return true;
  return false;
}

// 8 x A100 SXM 400 W: 3,200 W of GPUs + 800 W host + 8 x 150 W slots = 5,200 W peak; with the
// articles' 25% margin 6,500 W (the DGX A100 datasheet's 6.5 kW max). 5.2 kW x 3412.14 =
// 17,743 BTU/h; UPS 6.5 kW / 0.9 = 7.22 kVA; a year at 60% x 8760 h x PUE 1.5 = 40,997 kWh.
TEST(Power, EightA100Sxm) {
  const Estimate e = run({{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}, {"gpu_count", 8}});
  EXPECT_DOUBLE_EQ(*e.power.gpu_watts, 3200);
  EXPECT_DOUBLE_EQ(*e.power.node_peak_watts, 5200);
  EXPECT_DOUBLE_EQ(*e.power.node_watts, 6500);
  EXPECT_NEAR(*e.power.btu_per_hour, 5.2 * 3412.14, 1e-6);
  EXPECT_NEAR(*e.power.ups_kva, 6.5 / 0.9, 1e-9);
  EXPECT_NEAR(*e.power.annual_kwh, 5.2 * 0.6 * 8760 * 1.5, 1e-6);
  EXPECT_EQ(*e.power.nodes, 1);
  EXPECT_TRUE(has_warning(e, "rack budget"));  // 6.5 kW > 6 kW
}

// 8 x RTX 4090 (450 W): 3,600 + 800 + 1,200 = 5,600 W > 4 kW, as the articles say; with margin
// 7 kW, over the rack; and 8 open-air cards in one chassis throttle.
TEST(Power, EightRtx4090) {
  const Estimate e = run({{"model", "llama-2-7b"}, {"gpu", "rtx-4090-24gb"}, {"gpu_count", 8}});
  EXPECT_DOUBLE_EQ(*e.power.node_peak_watts, 5600);
  EXPECT_GT(*e.power.node_peak_watts, 4000);
  EXPECT_DOUBLE_EQ(*e.power.node_watts, 7000);
  EXPECT_TRUE(has_warning(e, "rack budget"));
  EXPECT_TRUE(has_warning(e, "closed chassis"));
}

// Two nodes: the fleet is twice a node; a larger rack budget silences the warning.
TEST(Power, FleetAndRackOverride) {
  const Estimate e = run({{"model", "llama-2-7b"},
                          {"task", "full"},
                          {"gpu", "h100-sxm5-80gb"},
                          {"gpu_count", 16},
                          {"facility", {{"rack_budget_watts", 15000}}}});
  EXPECT_EQ(*e.power.nodes, 2);
  // (8 x 700 + 800 + 8 x 150) x 1.25 = 9,500 W per node.
  EXPECT_DOUBLE_EQ(*e.power.node_watts, 9500);
  EXPECT_DOUBLE_EQ(*e.power.fleet_watts, 19000);
  EXPECT_FALSE(has_warning(e, "rack budget"));
}

// The power basis' clauses, which a thread keeps with the figures they were written from
// (power.cc append_kept): 8 x A100 SXM with the defaults above (400 W, host 800 W + 150 W a slot
// in the HGX server, 25% margin, power factor 0.9, 60% utilization, PUE 1.5), then the
// facility's own host, margin and power factor, the assumptions' utilization, and the defaults
// again: each clause is its figures' whether kept or written.
TEST(Power, BasisClausesFromTheirFigures) {
  const nlohmann::json base = {
      {"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}, {"gpu_count", 8}};
  const std::string gpu = "8 x 400 W board power (TDP)";
  const std::string hgx =
      "(8 GPUs x 400 W + host 800 W + 150 W per GPU slot) x (1 + 0.25 margin) (HGX 8-GPU server "
      "(SXM baseboard with NVSwitch), data/servers.csv)";
  const std::string ups = "fleet watts with margin / 0.9 power factor";
  const std::string energy = "peak kW x 0.6 utilization x 8760 h x PUE 1.5";
  const auto expect = [&gpu](const Estimate& e, const std::string& node, const std::string& power,
                             const std::string& year) {
    EXPECT_EQ(e.basis.at("gpu_watts"), gpu);
    EXPECT_EQ(e.basis.at("node_watts"), node);
    EXPECT_EQ(e.basis.at("ups_kva"), power);
    EXPECT_EQ(e.basis.at("annual_kwh"), year);
  };
  expect(run(base), hgx, ups, energy);
  nlohmann::json own = base;
  own["facility"] = {{"host_base_watts", 500}, {"power_factor", 0.95}, {"power_margin", 0.2}};
  expect(run(own),
         "(8 GPUs x 400 W + host 500 W + 150 W per GPU slot) x (1 + 0.2 margin) (facility.json "
         "host)",
         "fleet watts with margin / 0.95 power factor", energy);
  nlohmann::json costs = base;
  costs["costs"] = {{"utilization", 0.5}};
  expect(run(costs), hgx, ups, "peak kW x 0.5 utilization x 8760 h x PUE 1.5");
  expect(run(base), hgx, ups, energy);
}

}  // namespace
}  // namespace gpusizer
