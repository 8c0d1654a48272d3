// The serving load model: length spread, Little's law, the low-load limit against the plain
// prefill model, the KV-bound capacity, the SLO bisection and overload.
#include "speed/serving_load.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

TEST(ServingLoad, LognormalFromMeanAndP90) {
  // mean 1000, p90 2000: s solves s^2/2 - 1.2816 s + ln 2 = 0 -> s = 1.2816 - sqrt(1.6424 -
  // 1.3863) = 0.7755; median = 2000 / e^(1.2816 x 0.7755) = 2000 / 2.7016 = 740.3;
  // E[L^2] = 1000^2 x e^(0.7755^2) = 1.8246e6; p99 = 740.3 x e^(2.3263 x 0.7755) = 4497.
  const LengthDist d = length_dist(1000, 2000);
  EXPECT_NEAR(d.sigma, 0.7755, 1e-3);
  EXPECT_NEAR(d.median, 740.3, 0.5);
  EXPECT_NEAR(d.second_moment, 1.8246e6, 2e3);
  EXPECT_NEAR(d.at_z(z_of_percentile(90)), 2000, 1e-6);
  EXPECT_NEAR(d.at_z(z_of_percentile(99)), 4497, 5);
  EXPECT_FALSE(d.capped);
  // No p90: every request at the mean.
  const LengthDist fixed = length_dist(300, 0);
  EXPECT_EQ(fixed.sigma, 0);
  EXPECT_EQ(fixed.at_z(2.3), 300);
  EXPECT_EQ(fixed.second_moment, 300.0 * 300.0);
  // p90 = 3 x mean is past the widest lognormal (2.273 x): the p90 holds, sigma stops at 1.2816.
  const LengthDist wide = length_dist(1000, 3000);
  EXPECT_TRUE(wide.capped);
  EXPECT_NEAR(wide.sigma, 1.281552, 1e-6);
  EXPECT_NEAR(wide.at_z(z_of_percentile(90)), 3000, 1e-6);
}

struct Replica {
  Scenario sc;
  Estimate est;
  InferenceSetup setup;
};

// Llama 3.1 8B, bf16, one H100 SXM under vLLM.
Replica h100_8b() {
  const Catalog& catalog = Catalog::builtin();
  Replica r;
  r.sc = resolve_scenario(
      {{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu", "h100-sxm5-80gb"}}, catalog);
  r.est = estimate(r.sc, catalog, Detail::kFigures);
  std::string why;
  r.setup = *inference_setup(r.sc, catalog.speed(), why);
  return r;
}

ServingLoadInputs inputs(const Replica& r, double rate, double prompt, double output) {
  ServingLoadInputs in = load_inputs(r.sc, r.setup, r.est.memory);
  in.traffic.requests_per_s = rate;
  in.traffic.prompt_len = prompt;
  in.traffic.output_len = output;
  return in;
}

TEST(ServingLoad, LittlesLawAndTheIdleLimit) {
  const Replica r = h100_8b();
  const ServingLoad load = serving_load(inputs(r, 5.0, 1000, 201));
  const LoadPoint& p = load.at_rate;
  ASSERT_TRUE(p.stable);
  EXPECT_NEAR(p.rate, 5.0, 5.0 * 1e-6);
  // Little's law: sequences decoding = rate x 200 decode steps x mean step.
  EXPECT_NEAR(p.batch, p.rate * 200 * p.step_s, 1e-9 * p.batch);
  // Mean TPOT is the mean step; the percentiles lie above it.
  EXPECT_DOUBLE_EQ(p.tpot_mean_s, p.step_s);
  EXPECT_GT(p.tpot_s, p.tpot_mean_s);

  // Nearly idle, TTFT is the prefill of one prompt plus half a decode step (the residual of the
  // step in progress): the plain prefill model's figure for one 1000-token prompt.
  const ServingLoad idle = serving_load(inputs(r, 1e-4, 1000, 201));
  const double prefill = prefill_time(r.setup, 1, 1000).seconds;
  const double half_step = decode_step(r.setup, 1e-6, 1000 + 100.5).seconds / 2;
  EXPECT_NEAR(idle.at_rate.ttft_mean_s, prefill + half_step, 0.02 * (prefill + half_step));
}

TEST(ServingLoad, KvCacheBoundsTheCapacity) {
  const Replica r = h100_8b();
  ServingLoadInputs in = inputs(r, 1.0, 1000, 201);
  // 11,000 tokens of KV at a mean context of 1000 + 201 / 2 = 1100.5 tokens (fixed lengths:
  // E[O^2] / 2E[O] = O / 2) hold 9.995 running sequences.
  in.kv_tokens = 11000;
  const ServingLoad load = serving_load(in);
  EXPECT_EQ(load.capacity_limit, "kv_cache");
  EXPECT_NEAR(load.context, 1100.5, 1e-9);
  EXPECT_NEAR(load.at_capacity.batch, 11000 / 1100.5, 0.01);
  // At capacity every sequence still takes 200 steps: rate = batch / (200 x step).
  EXPECT_NEAR(load.capacity_rate, load.at_capacity.batch / (200 * load.at_capacity.step_s),
              1e-6 * load.capacity_rate);
  // Without a service level the highest rate is the capacity.
  EXPECT_DOUBLE_EQ(load.max_rate, load.capacity_rate);
}

TEST(ServingLoad, SloBisectionAndOverload) {
  const Replica r = h100_8b();
  ServingLoadInputs in = inputs(r, 1.0, 1000, 201);
  const double idle_tpot = serving_load(in).at_rate.tpot_s * 1e3;
  in.slo.tpot_ms = 1.5 * idle_tpot;
  in.slo.percentile = 99;
  std::string binding;
  const double max_rate = max_rate_per_replica(in, &binding);
  EXPECT_EQ(binding, "tpot");
  // Just under the highest rate the p99 TPOT sits at the SLO; just over, it misses.
  in.traffic.requests_per_s = max_rate * 0.9999;
  const ServingLoad under = serving_load(in);
  EXPECT_TRUE(under.slo_met);
  EXPECT_NEAR(under.at_rate.tpot_s * 1e3, *in.slo.tpot_ms, 0.005 * *in.slo.tpot_ms);
  in.traffic.requests_per_s = max_rate * 1.01;
  EXPECT_FALSE(serving_load(in).slo_met);
  // Far past the capacity: overloaded, no SLO, utilization 1.
  in.traffic.requests_per_s = 10 * under.capacity_rate;
  const ServingLoad over = serving_load(in);
  EXPECT_FALSE(over.at_rate.stable);
  EXPECT_FALSE(over.slo_met);
  EXPECT_DOUBLE_EQ(over.utilization, 1.0);
}

TEST(ServingLoad, LatencyGrowsWithTheRate) {
  const Replica r = h100_8b();
  ServingLoadInputs in = inputs(r, 1.0, 1000, 201);
  in.traffic.prompt_len_p90 = 2000;
  in.traffic.output_len_p90 = 400;
  const double cap = serving_load(in).capacity_rate;
  double ttft = 0, tpot = 0;
  for (double f : {0.05, 0.3, 0.6, 0.9}) {
    in.traffic.requests_per_s = f * cap;
    const LoadPoint p = serving_load(in).at_rate;
    ASSERT_TRUE(p.stable) << f;
    EXPECT_GT(p.ttft_s, ttft) << f;
    EXPECT_GT(p.tpot_s, tpot) << f;
    ttft = p.ttft_s;
    tpot = p.tpot_s;
  }
}

TEST(ServingLoad, FleetFiguresScaleWithReplicas) {
  // Four replicas at four times the rate: the same per-replica point, four times the rates.
  const Catalog& catalog = Catalog::builtin();
  auto run = [&](int dp, double rate) {
    const Scenario s = resolve_scenario({{"model", "llama-3.1-8b"},
                                         {"engine", "vllm"},
                                         {"gpu", "h100-sxm5-80gb"},
                                         {"gpu_count", dp},
                                         {"traffic", {{"requests_per_s", rate}}},
                                         {"slo", {{"ttft_ms", 500}, {"tpot_ms", 40}}}},
                                        catalog);
    return *estimate(s, catalog).performance;
  };
  const PerformanceEstimate one = run(1, 3), four = run(4, 12);
  ASSERT_TRUE(one.load_tpot_ms && four.load_tpot_ms && one.load_ttft_ms && four.load_ttft_ms);
  EXPECT_NEAR(*four.load_tpot_ms, *one.load_tpot_ms, 1e-6 * *one.load_tpot_ms);
  EXPECT_NEAR(*four.load_ttft_ms, *one.load_ttft_ms, 1e-6 * *one.load_ttft_ms);
  EXPECT_NEAR(*four.max_requests_per_s, 4 * *one.max_requests_per_s,
              1e-6 * *four.max_requests_per_s);
  EXPECT_NEAR(*four.load_output_tokens_per_s, 4 * *one.load_output_tokens_per_s,
              1e-6 * *four.load_output_tokens_per_s);
  EXPECT_EQ(*four.slo_met, *one.slo_met);
}

TEST(ServingLoad, SlowerStepsScaleTheCapacityAndLengthenTheLatency) {
  // Every step k times longer: at x requests per step the batch (x x 200 steps), the step mix
  // and the queue's utilization are unchanged and every time is k times longer, so the rate x /
  // step is 1 / k times the rate; the capacity (a largest x) is 1 / k times the capacity.
  const Replica r = h100_8b();
  ServingLoadInputs in = inputs(r, 4.0, 1000, 201);
  const ServingLoad base = serving_load(in);
  in.time_scale = 1.25;
  const ServingLoad slow = serving_load(in);
  EXPECT_NEAR(slow.capacity_rate, base.capacity_rate / 1.25, 1e-9 * base.capacity_rate);
  EXPECT_NEAR(slow.at_capacity.batch, base.at_capacity.batch, 1e-9 * base.at_capacity.batch);
  // At the same offered rate the slower replica is busier: each time more than 1.25 x longer.
  ASSERT_TRUE(slow.at_rate.stable);
  EXPECT_GT(slow.at_rate.tpot_mean_s, 1.25 * base.at_rate.tpot_mean_s);
  EXPECT_GT(slow.at_rate.ttft_s, 1.25 * base.at_rate.ttft_s);
}

TEST(ServingLoad, LoadFiguresBandedByTheModelAtTheBandsEdges) {
  const Catalog& catalog = Catalog::builtin();
  auto run = [&](double rate) {
    const Scenario s = resolve_scenario({{"model", "llama-3.1-8b"},
                                         {"engine", "vllm"},
                                         {"gpu", "h100-sxm5-80gb"},
                                         {"traffic", {{"requests_per_s", rate}}}},
                                        catalog);
    return *estimate(s, catalog).performance;
  };
  const SpeedBand& band = *catalog.speed_bands().find("throughput", "vllm");
  const PerformanceEstimate p = run(3);
  // The capacity scales as 1 / step (above): its band is capacity / (1 + high) to capacity /
  // (1 + low), as a throughput rate's band.
  const auto* capacity = p.bands.find("load_capacity_requests_per_s");
  ASSERT_TRUE(capacity && p.load_capacity_requests_per_s);
  EXPECT_NEAR(capacity->first, *p.load_capacity_requests_per_s / (1 + band.high_error),
              1e-9 * capacity->first);
  EXPECT_NEAR(capacity->second, *p.load_capacity_requests_per_s / (1 + band.low_error),
              1e-9 * capacity->second);
  // Below capacity at both edges the fleet serves what is offered: 3 requests/s x the mean
  // output length, a band of no width.
  const auto* served = p.bands.find("load_output_tokens_per_s");
  ASSERT_TRUE(served);
  EXPECT_DOUBLE_EQ(served->first, *p.load_output_tokens_per_s);
  EXPECT_DOUBLE_EQ(served->second, *p.load_output_tokens_per_s);
  // Times are bracketed by the faster and the slower fleet.
  for (const char* name :
       {"load_tpot_ms", "load_ttft_ms", "load_tpot_mean_ms", "load_ttft_mean_ms"}) {
    const auto* b = p.bands.find(name);
    ASSERT_TRUE(b) << name;
    const double value = name == std::string("load_tpot_ms")        ? *p.load_tpot_ms
                         : name == std::string("load_ttft_ms")      ? *p.load_ttft_ms
                         : name == std::string("load_tpot_mean_ms") ? *p.load_tpot_mean_ms
                                                                    : *p.load_ttft_mean_ms;
    EXPECT_LT(b->first, value) << name;
    EXPECT_GT(b->second, value) << name;
  }
  // Just under the capacity the slower fleet is overloaded: no TTFT band, the others stay.
  const PerformanceEstimate near = run(0.95 * *p.load_capacity_requests_per_s);
  ASSERT_TRUE(near.load_ttft_ms);
  EXPECT_FALSE(near.bands.contains("load_ttft_ms"));
  EXPECT_TRUE(near.bands.contains("load_tpot_ms"));
  EXPECT_TRUE(near.bands.contains("load_capacity_requests_per_s"));
}

}  // namespace
}  // namespace gpusizer
