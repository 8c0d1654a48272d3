// The catalog lookups a scenario holds (ScenarioLookups): read only while the scenario's engine,
// GPU and weights format are those they were resolved for, and only with the catalog that
// resolved them. A scenario edited in place after it was parsed estimates exactly as a fresh
// parse of the edited input does.
#include "scenario/lookups.h"

#include <gtest/gtest.h>

#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

const Catalog& cat() {
  return Catalog::builtin();
}

const nlohmann::json kServing = {{"model", "llama-3.1-8b"},
                                 {"engine", "vllm"},
                                 {"gpu", "a100-sxm4-80gb"},
                                 {"kv_cache", "bf16"},
                                 {"batch", 8}};

// The figures the lookups feed: memory (engine profile) and speed (speed-profile entries).
void expect_same_estimate(const Scenario& a, const Scenario& b) {
  for (const Detail d : {Detail::kFigures, Detail::kFull}) {
    const Estimate x = estimate(a, cat(), d), y = estimate(b, cat(), d);
    EXPECT_EQ(x.memory.total, y.memory.total);
    EXPECT_EQ(x.memory.max_batch, y.memory.max_batch);
    ASSERT_TRUE(x.performance && y.performance);
    EXPECT_EQ(x.performance->decode_tokens_per_s, y.performance->decode_tokens_per_s);
    EXPECT_EQ(x.performance->ttft_ms, y.performance->ttft_ms);
    EXPECT_EQ(x.performance->train_tokens_per_s, y.performance->train_tokens_per_s);
    EXPECT_EQ(x.basis, y.basis);
  }
}

TEST(ScenarioLookups, ParsedScenarioHoldsTheCatalogEntries) {
  const Scenario s = parse_scenario(kServing, cat());
  EXPECT_EQ(&engine_profile(s, cat()), &cat().engine("vllm"));
  const ScenarioLookups* l = speed_lookups(s, cat().speed());
  ASSERT_NE(l, nullptr);
  // vLLM's entry of data/speed.json, as the catalog's index holds it (catalog/speed_index.h).
  EXPECT_EQ(l->inference->bw_eff, cat().speed().inference("vllm").bw_eff);
  EXPECT_EQ(l->inference->step_overhead_s, cat().speed().inference("vllm").step_overhead_s);
  // Another catalog's speed profile is not the one they were looked up in.
  const Catalog other = Catalog::embedded();
  EXPECT_EQ(speed_lookups(s, other.speed()), nullptr);
  EXPECT_EQ(&engine_profile(s, other), &other.engine("vllm"));
}

TEST(ScenarioLookups, AnotherGpuSetInPlaceEstimatesAsAFreshParse) {
  Scenario s = parse_scenario(kServing, cat());
  nlohmann::json h100 = kServing;
  h100["gpu"] = "h100";
  const Scenario fresh = parse_scenario(h100, cat());
  // The two GPUs decode at different rates, so a stale A100 entry would show.
  EXPECT_NE(estimate(s, cat()).performance->decode_tokens_per_s,
            estimate(fresh, cat()).performance->decode_tokens_per_s);
  s.gpu = cat().gpu_ref("h100");
  EXPECT_EQ(speed_lookups(s, cat().speed()), nullptr);
  expect_same_estimate(s, fresh);
}

TEST(ScenarioLookups, AnotherWeightsFormatSetInPlaceEstimatesAsAFreshParse) {
  Scenario s = parse_scenario(kServing, cat());
  nlohmann::json awq = kServing;
  awq["weights"] = "awq-int4";
  const Scenario fresh = parse_scenario(awq, cat());
  s.weights = cat().format("awq-int4", "weights", "weights");
  EXPECT_EQ(speed_lookups(s, cat().speed()), nullptr);
  expect_same_estimate(s, fresh);
}

TEST(ScenarioLookups, AnotherEngineSetInPlaceReadsItsOwnProfile) {
  Scenario s = parse_scenario(kServing, cat());
  nlohmann::json sglang = kServing;
  sglang["engine"] = "sglang";
  const Scenario fresh = parse_scenario(sglang, cat());
  s.engine = fresh.engine;
  s.engine_version = fresh.engine_version;
  s.engine_basis = fresh.engine_basis;
  s.gpu_memory_utilization = fresh.gpu_memory_utilization;
  EXPECT_EQ(&engine_profile(s, cat()), &cat().engine("sglang"));
  EXPECT_EQ(speed_lookups(s, cat().speed()), nullptr);
  expect_same_estimate(s, fresh);
}

TEST(ScenarioLookups, AnotherEngineVersionSetInPlaceReadsItsOwnRelease) {
  Scenario s = parse_scenario(kServing, cat());
  const EngineProfile& vllm = cat().engine("vllm");
  // The release is looked up with the scenario (the newest modelled by default).
  EXPECT_EQ(&engine_release(s, vllm), &vllm.releases.front());
  nlohmann::json v06 = kServing;
  v06["engine_version"] = "0.6.5";
  const Scenario fresh = parse_scenario(v06, cat());
  // vLLM 0.6 (V0) and the newest release (V1) profile start-up differently: their KV pools
  // differ, so a stale release would show in the memory figures.
  EXPECT_NE(estimate(s, cat()).memory.kv_cache, estimate(fresh, cat()).memory.kv_cache);
  s.engine_version = fresh.engine_version;
  s.engine_basis = fresh.engine_basis;
  s.gpu_memory_utilization = fresh.gpu_memory_utilization;
  EXPECT_EQ(&engine_release(s, vllm), &vllm.release("0.6.5"));
  expect_same_estimate(s, fresh);
}

TEST(ScenarioLookups, AModelChangedInPlaceIsEstimatedAsChanged) {
  // The lookups hold no counts of the model: each estimate counts the scenario's model as it is
  // now (ModelCounts), so a model changed in place is never estimated with its old counts.
  const nlohmann::json lora = {{"model", "llama-2-7b"}, {"task", "lora"}, {"gpu", "h100"}};
  Scenario s = parse_scenario(lora, cat());
  const Estimate before = estimate(s, cat(), Detail::kFigures);
  s.model.edit().num_layers = 16;  // half of Llama-2-7B's 32 layers
  // The same change on a scenario whose lookups are resolved again after it.
  Scenario resolved = parse_scenario(lora, cat());
  resolved.model.edit().num_layers = 16;
  resolve_lookups(resolved, cat());
  const Estimate after = estimate(s, cat(), Detail::kFigures);
  const Estimate fresh = estimate(resolved, cat(), Detail::kFigures);
  ASSERT_TRUE(before.performance && after.performance && fresh.performance);
  // Half the layers: more tokens a second, and fewer parameters (the embedding and head stay).
  EXPECT_GT(*after.performance->train_tokens_per_s, *before.performance->train_tokens_per_s);
  EXPECT_LT(after.params, before.params);
  EXPECT_GT(after.params, before.params / 2);
  EXPECT_EQ(after.params, fresh.params);
  EXPECT_EQ(after.performance->train_tokens_per_s, fresh.performance->train_tokens_per_s);
  EXPECT_EQ(after.memory.total, fresh.memory.total);
}

}  // namespace
}  // namespace gpusizer
