// The contract's load keys (docs/contract.md v2) in an estimate's JSON: present with traffic,
// absent without, and load_ttft_ms null (with a warning) when the rate exceeds the capacity.
#include <gtest/gtest.h>

#include "gpusizer/json/api.h"

namespace gpusizer {
namespace {

nlohmann::json run(double rate) {
  return estimate_json(
      {{"model", "llama-3.1-8b"},
       {"engine", "vllm"},
       {"gpu", "h100-sxm5-80gb"},
       {"gpu_count", 2},
       {"traffic", {{"requests_per_s", rate}, {"prompt_len", 800}, {"output_len", 200}}},
       {"slo", {{"ttft_ms", 1000}, {"tpot_ms", 50}}}},
      Catalog::builtin());
}

TEST(EstimateLoadJson, ContractKeys) {
  const nlohmann::json p = run(10)["performance"];
  for (const char* key : {"load_ttft_ms", "load_tpot_ms", "load_utilization", "max_requests_per_s"})
    ASSERT_TRUE(p.contains(key) && p[key].is_number()) << key << " in " << p.dump();
  ASSERT_TRUE(p["slo_met"].is_boolean());
  EXPECT_TRUE(p["slo_met"].get<bool>());
  const double u = p["load_utilization"].get<double>();
  EXPECT_GT(u, 0);
  EXPECT_LE(u, 1);
  // Utilization is the rate over the capacity: 10 / capacity (each written to six digits).
  EXPECT_NEAR(u, 10.0 / p["load_capacity_requests_per_s"].get<double>(), 1e-5 * u);
  // Output served: 10 requests/s x 200 tokens.
  EXPECT_NEAR(p["load_output_tokens_per_s"].get<double>(), 2000.0, 1e-9);

  const nlohmann::json plain =
      estimate_json({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu", "h100-sxm5-80gb"}},
                    Catalog::builtin());
  EXPECT_FALSE(plain["performance"].contains("load_ttft_ms"));
  EXPECT_FALSE(plain["performance"].contains("slo_met"));
}

TEST(EstimateLoadJson, OverloadHasNoTtft) {
  const nlohmann::json e = run(1e6);
  const nlohmann::json& p = e["performance"];
  ASSERT_TRUE(p.contains("load_ttft_ms"));
  EXPECT_TRUE(p["load_ttft_ms"].is_null());
  EXPECT_FALSE(p["slo_met"].get<bool>());
  EXPECT_DOUBLE_EQ(p["load_utilization"].get<double>(), 1.0);
  bool warned = false;
  for (const auto& w : e["warnings"]) warned |= w.get<std::string>().find("overloaded") == 0;
  EXPECT_TRUE(warned) << e["warnings"].dump();
}

}  // namespace
}  // namespace gpusizer
