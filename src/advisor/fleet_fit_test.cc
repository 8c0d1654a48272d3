// The fleet in recommend: the rack budget binds, the China region reads the typed export status,
// and every option carries its fleet keys (docs/contract.md, v2 "Options of recommend").
#include "advisor/fleet_fit.h"

#include <gtest/gtest.h>

#include "gpusizer/advisor.h"
#include "gpusizer/json/advisor.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

const Catalog& cat() {
  return Catalog::builtin();
}

// The case: qwen2.5-72b on vLLM with a 4 kW rack budget ranked an 8.2 kW node first.
// Now no node may exceed 4 kW with its margin: an H100 node holds at most 2 GPUs (hgx-4 host:
// (2 x 700 + 700 + 2 x 150) x 1.25 = 3.0 kW; 3 GPUs: (2100 + 700 + 450) x 1.25 = 4.06 kW).
TEST(FleetFit, RackBudgetBindsNodes) {
  const nlohmann::json req = {
      {"model", "qwen2.5-72b"}, {"engine", "vllm"}, {"facility", {{"rack_budget_watts", 4000}}}};
  const Recommendation r = recommend(req, cat());
  ASSERT_FALSE(r.options.empty());
  bool power_bound = false;
  for (const Option& o : r.options) {
    ASSERT_TRUE(o.estimate.power.node_watts) << o.scenario.gpu->id;
    EXPECT_LE(*o.estimate.power.node_watts, 4000.0) << o.scenario.gpu->id;
    ASSERT_TRUE(o.estimate.power.racks) << o.scenario.gpu->id;
    power_bound |= o.binding == "power";
  }
  EXPECT_TRUE(power_bound);
  const Scenario base = parse_scenario(
      {{"model", "qwen2.5-72b"}, {"facility", {{"rack_budget_watts", 4000}}}}, cat());
  const RackLimit h100 = rack_limit(base, cat().gpu("h100-sxm5-80gb"), cat());
  EXPECT_TRUE(h100.given);
  EXPECT_EQ(h100.max_gpus_per_node, 2);
  // No budget given: no limit (the default 6 kW stays a warning).
  EXPECT_FALSE(rack_limit(parse_scenario({{"model", "qwen2.5-72b"}}, cat()),
                          cat().gpu("h100-sxm5-80gb"), cat())
                   .given);
}

// gpus.csv china_status: the RTX 5090 is export-controlled and the 5090 D is sold in China;
// Apple's "unrestricted" note is not "restricted".
TEST(FleetFit, ChinaReadsTheTypedStatus) {
  EXPECT_NE(china_block(cat().gpu("rtx-5090-32gb")), "");
  EXPECT_NE(china_block(cat().gpu("rtx-5090-32gb")).find("rtx-5090d-32gb"), std::string::npos);
  EXPECT_EQ(china_block(cat().gpu("rtx-5090d-32gb")), "");
  EXPECT_EQ(china_block(cat().gpu("apple-m3-ultra-512gb")), "");
  EXPECT_EQ(china_block(cat().gpu("rtx-4090d-24gb")), "");
  EXPECT_NE(china_block(cat().gpu("h100-sxm5-80gb")), "");
  const Recommendation r =
      recommend({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"region", "cn"}}, cat());
  ASSERT_FALSE(r.options.empty());
  for (const Option& o : r.options) {
    EXPECT_NE(o.scenario.gpu->id, "rtx-5090-32gb");
    // An export-controlled part appears only as capacity rented in a mainland-China region.
    if (!china_block(*o.scenario.gpu).empty()) {
      ASSERT_TRUE(o.estimate.ownership && o.estimate.ownership->cloud) << o.scenario.gpu->id;
      EXPECT_EQ(o.estimate.ownership->cloud->currency, "CNY");
      EXPECT_FALSE(o.estimate.ownership->on_prem);
    }
  }
  for (const Rejection& x : r.rejected)
    if (x.gpu.rfind("apple", 0) == 0) {
      EXPECT_EQ(x.why.find("China"), std::string::npos) << x.why;
    }
}

// Every option says its replicas, machines, fleet price and what binds it; a cloud-priced one
// names its whole instance.
TEST(FleetFit, OptionKeys) {
  const Recommendation r =
      recommend({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"deployment", "cloud"}}, cat());
  ASSERT_FALSE(r.options.empty());
  const nlohmann::json j = to_json(r);
  for (const auto& o : j["options"]) {
    for (const char* k : {"replicas", "nodes", "instance", "fleet_usd_per_hour", "binding"})
      EXPECT_TRUE(o.contains(k)) << k << " in " << o["gpu"];
    EXPECT_EQ(o["replicas"], o["parallel"]["dp"]);
    EXPECT_EQ(o["fleet_usd_per_hour"].get<double>(),
              o["instance"]["usd_per_hour"].get<double>() * o["instance"]["count"].get<double>());
  }
}

}  // namespace
}  // namespace gpusizer
