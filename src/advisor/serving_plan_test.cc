// The fleet search for traffic: replicas of a small layout rather than one wide replica, the
// replica count and prices from their definitions, and SLOs no GPU can meet.
#include "advisor/serving_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "embed/embedded.h"
#include "gpusizer/json/api.h"

namespace gpusizer {
namespace {

const nlohmann::json kH100_8B = {{"model", "llama-3.1-8b"},
                                 {"engine", "vllm"},
                                 {"gpus", {"h100-sxm5-80gb"}},
                                 {"min_tokens_per_s", 50000}};

// Issue 12's case: 8B at 50,000 output tokens/s on H100s is served by replicas of TP1 or TP2,
// never one TP8 x PP2 replica.
void expect_small_replicas(const nlohmann::json& request) {
  const nlohmann::json out = recommend_json(request, Catalog::builtin());
  ASSERT_FALSE(out["options"].empty()) << out.dump();
  const nlohmann::json& best = out["options"][0];
  EXPECT_LE(best["parallel"]["tp"].get<int>(), 2) << best.dump();
  EXPECT_EQ(best["parallel"]["pp"].get<int>(), 1);
  EXPECT_GT(best["parallel"]["dp"].get<int>(), 1);
}

TEST(ServingPlan, EightBAtFiftyThousandTokensUsesSmallReplicas) {
  expect_small_replicas(kH100_8B);  // the throughput floor alone
  nlohmann::json traffic = kH100_8B;
  // 250 requests/s x 200 output tokens = 50,000 output tokens/s.
  traffic["traffic"] = {{"requests_per_s", 250}, {"prompt_len", 1000}, {"output_len", 200}};
  traffic["slo"] = {{"ttft_ms", 1000}, {"tpot_ms", 50}};
  expect_small_replicas(traffic);
}

TEST(ServingPlan, ReplicasAndPricesFollowTheirDefinitions) {
  nlohmann::json req = {{"model", "llama-3.1-8b"},
                        {"engine", "vllm"},
                        {"gpus", {"h100-sxm5-80gb", "a100-sxm4-80gb", "l40s-48gb"}},
                        {"traffic",
                         {{"requests_per_s", 40},
                          {"prompt_len", 800},
                          {"output_len", 300},
                          {"prompt_len_p90", 1600}}},
                        {"slo", {{"ttft_ms", 2000}, {"tpot_ms", 60}, {"percentile", 90}}}};
  const nlohmann::json out = recommend_json(req, Catalog::builtin());
  ASSERT_FALSE(out["options"].empty()) << out.dump();
  for (const auto& o : out["options"]) {
    const double per = o["requests_per_s_per_replica"].get<double>();
    const int replicas = o["replicas"].get<int>();
    // The fewest replicas that carry 40 requests/s, each within its highest rate.
    EXPECT_EQ(replicas, static_cast<int>(std::ceil(40.0 / per - 1e-9))) << o.dump();
    EXPECT_EQ(o["parallel"]["dp"].get<int>(), replicas);
    EXPECT_EQ(o["gpu_count"].get<int>(),
              replicas * o["parallel"]["tp"].get<int>() * o["parallel"]["pp"].get<int>());
    // The fleet meets the SLO at the rate, per its own estimate.
    EXPECT_TRUE(o["slo_met"].get<bool>()) << o.dump();
    EXPECT_LE(o["load_tpot_ms"].get<double>(), 60.0 * (1 + 1e-9));
    EXPECT_LE(o["load_ttft_ms"].get<double>(), 2000.0 * (1 + 1e-9));
    if (!o["fleet_usd_per_hour"].is_number()) continue;
    // $/h over the requests of an hour: fleet / (40 x 3600) x 1e6; per output token / 300. Each
    // figure is written to six significant digits (report/json_figure.h).
    const double fleet = o["fleet_usd_per_hour"].get<double>();
    const double per_request = fleet / (40.0 * 3600) * 1e6;
    EXPECT_NEAR(o["usd_per_million_requests"].get<double>(), per_request, 1e-5 * per_request);
    EXPECT_NEAR(o["usd_per_million_output_tokens"].get<double>(), per_request / 300,
                1e-5 * per_request / 300);
  }
  // Ranked by cost per request, cheapest first.
  for (size_t i = 1; i < out["options"].size(); ++i)
    EXPECT_LE(out["options"][i - 1]["objective_value"].get<double>(),
              out["options"][i]["objective_value"].get<double>());
}

TEST(ServingPlan, AnFp8KvCacheIsTriedOnlyWhereTheEngineStoresOne) {
  // 70B at 20 requests/s on L40S with quantization allowed: vLLM (--kv-cache-dtype fp8) gets
  // fp8 KV options; the same engine with engines.json fp8_kv_cache off (as llama.cpp, whose
  // --cache-type-k/v have no fp8) keeps the requested bf16 cache in every option.
  const nlohmann::json req = {
      {"model", "llama-3.1-70b"},
      {"engine", "vllm"},
      {"gpus", {"l40s-48gb"}},
      {"allow_quantization", true},
      {"traffic", {{"requests_per_s", 20}, {"prompt_len", 2000}, {"output_len", 300}}},
      {"slo", {{"ttft_ms", 3000}, {"tpot_ms", 80}}}};
  auto kv_formats = [&](const Catalog& c) {
    std::set<std::string> kv;
    const nlohmann::json out = recommend_json(req, c);
    for (const auto& o : out["options"]) kv.insert(o["kv_cache"].get<std::string>());
    return kv;
  };
  EXPECT_TRUE(kv_formats(Catalog::builtin()).contains("fp8"));
  nlohmann::json engines = nlohmann::json::parse(embedded::find("engines.json"));
  engines["vllm"]["fp8_kv_cache"] = false;
  const Catalog no_fp8 = Catalog::from_texts({{"engines.json", engines.dump()}});
  EXPECT_EQ(kv_formats(no_fp8), (std::set<std::string>{"bf16"}));
}

TEST(ServingPlan, AnSloNoGpuMeetsRejectsThemAll) {
  // 0.5 ms per output token: below any GPU's time to read 8B weights once (16 GB at 8 TB/s is
  // 2 ms), so every GPU is rejected with the SLO named.
  const nlohmann::json req = {{"model", "llama-3.1-8b"},
                              {"engine", "vllm"},
                              {"traffic", {{"requests_per_s", 1}}},
                              {"slo", {{"tpot_ms", 0.5}}}};
  const nlohmann::json out = recommend_json(req, Catalog::builtin());
  EXPECT_TRUE(out["options"].empty());
  bool named = false;
  for (const auto& r : out["rejected"])
    named |= r["why"].get<std::string>().find("TPOT SLO") != std::string::npos;
  EXPECT_TRUE(named) << out["rejected"].dump();
}

}  // namespace
}  // namespace gpusizer
