// An offline job of N requests queued at once (speed.cc offline_job): waves of the full batch,
// each its prefill and output_len decode steps, the last one holding the remainder. The expected
// times are built by hand from the wave arithmetic and the figures of one full wave and of one
// sequence alone, which the same estimate gives (max_output_tokens_per_s, ttft_ms, tpot_ms).
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "gpusizer/speed.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

constexpr int64_t kFullBatch = 100;  // the KV pool's batch, set below
constexpr double kOutput = 256;

Scenario job(int64_t requests, int64_t replicas = 1) {
  Scenario s = unit_scenario({.model = "llama-3.1-8b", .engine = "vllm", .gpu = "h100-sxm5-80gb"});
  s.batch = 1;
  s.prompt_len = 512;
  s.output_len = static_cast<int64_t>(kOutput);
  s.seq_len = 768;
  s.parallel.dp = replicas;
  s.gpu_count = replicas;
  s.offline_requests = requests;
  return s;
}

PerformanceEstimate speed_of(const Scenario& s) {
  MemoryEstimate m;
  m.max_batch = kFullBatch;
  return estimate_speed(s, Catalog::builtin(), m, nullptr);
}

// One full wave takes full x output / max_output_tokens_per_s (one replica); one sequence alone
// takes its prefill (ttft at batch 1) and output decode steps at batch 1 (tpot).
double full_wave_s(const PerformanceEstimate& p) {
  return static_cast<double>(kFullBatch) * kOutput / *p.max_output_tokens_per_s;
}
double single_s(const PerformanceEstimate& p) {
  return *p.ttft_ms / 1e3 + kOutput * *p.tpot_ms / 1e3;
}

// Three full waves: the job's rate is the steady rate.
TEST(OfflineJob, WholeWavesRunAtTheSteadyRate) {
  const PerformanceEstimate p = speed_of(job(3 * kFullBatch));
  ASSERT_TRUE(p.offline_time_s && p.offline_output_tokens_per_s);
  EXPECT_NEAR(*p.offline_time_s, 3 * full_wave_s(p), 1e-9 * *p.offline_time_s);
  EXPECT_NEAR(*p.offline_output_tokens_per_s, *p.max_output_tokens_per_s,
              1e-9 * *p.max_output_tokens_per_s);
}

// 201 requests: two full waves and a last one of a single sequence, which costs a whole prefill
// and output_len steps for one token each: the job's rate falls below the steady rate.
TEST(OfflineJob, APartialLastWaveCostsItsOwnPrefillAndSteps) {
  const PerformanceEstimate p = speed_of(job(2 * kFullBatch + 1));
  ASSERT_TRUE(p.offline_time_s);
  const double expected = 2 * full_wave_s(p) + single_s(p);
  EXPECT_NEAR(*p.offline_time_s, expected, 1e-9 * expected);
  EXPECT_NEAR(*p.offline_output_tokens_per_s, (2 * kFullBatch + 1) * kOutput / expected,
              1e-6 * *p.offline_output_tokens_per_s);
  EXPECT_LT(*p.offline_output_tokens_per_s, *p.max_output_tokens_per_s);
}

// Four replicas share 400 requests: 100 each, one full wave in parallel, so the fleet finishes in
// one wave's time and serves 4 x the replica's rate (max_output_tokens_per_s is the fleet's).
TEST(OfflineJob, ReplicasShareTheRequests) {
  const PerformanceEstimate p = speed_of(job(4 * kFullBatch, 4));
  ASSERT_TRUE(p.offline_time_s);
  const double one_wave = 4 * full_wave_s(p);  // the fleet rate is 4 replicas'
  EXPECT_NEAR(*p.offline_time_s, one_wave, 1e-9 * one_wave);
}

// An engine launched with --max-num-seqs 40 runs at most 40 sequences a step although the KV
// pool holds 100: 40 requests are one wave at the steady rate, 41 are two (the second of one
// sequence), so the rate falls.
TEST(OfflineJob, MaxNumSeqsCapsTheWave) {
  Scenario s = job(40);
  s.max_num_seqs = 40;
  const PerformanceEstimate one = speed_of(s);
  ASSERT_TRUE(one.offline_output_tokens_per_s);
  EXPECT_NEAR(*one.offline_output_tokens_per_s, *one.max_output_tokens_per_s,
              1e-9 * *one.max_output_tokens_per_s);
  s.offline_requests = 41;
  const PerformanceEstimate two = speed_of(s);
  const double expected = 40 * kOutput / *two.max_output_tokens_per_s + single_s(two);
  EXPECT_NEAR(*two.offline_time_s, expected, 1e-9 * expected);
}

// Without offline_requests there is no job to time.
TEST(OfflineJob, NoJobNoFigures) {
  const PerformanceEstimate p = speed_of(job(0));
  EXPECT_FALSE(p.offline_time_s);
  EXPECT_FALSE(p.offline_output_tokens_per_s);
}

}  // namespace
}  // namespace gpusizer
