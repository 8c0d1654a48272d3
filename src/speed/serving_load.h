#pragma once
// The serving load model: a replica under continuous batching at a request rate (docs/advisor.md,
// "The load model"). Steady state from Little's law, the mixed prefill/decode step of vLLM V1's
// scheduler timed by the roofline pass model (inference_speed.h), queueing of prompts by the
// Pollaczek-Khinchine formula, percentiles from the length spread, and the highest rate that
// meets a service level by bisection.
#include <string>

#include "gpusizer/explanations.h"
#include "gpusizer/memory_estimate.h"
#include "gpusizer/performance_estimate.h"
#include "gpusizer/scenario.h"
#include "gpusizer/speed_bands.h"
#include "gpusizer/traffic.h"
#include "speed/inference_speed.h"

namespace gpusizer {

/// Request lengths from a mean and a 90th percentile: a lognormal (request lengths are
/// right-skewed; Limpert, Stahel & Abbt 2001, "Log-normal distributions across the sciences"),
/// or every request at the mean when no p90 is given.
struct LengthDist {
  double mean = 0;
  double median = 0;
  double sigma = 0;          ///< of ln(length)
  double second_moment = 0;  ///< E[L^2]
  bool capped = false;       ///< p90 more than 2.27 x the mean: no lognormal has both (see .cc)
  /// The length at standard-normal score z (z = 1.2816 is the 90th percentile).
  double at_z(double z) const;
};
LengthDist length_dist(double mean, double p90);

/// Standard-normal score of a percentile the contract allows (50, 90, 99).
double z_of_percentile(int percentile);

/// One replica and the traffic it carries.
struct ServingLoadInputs {
  const InferenceSetup* setup = nullptr;
  double kv_tokens = -1;       ///< KV cache the replica holds, tokens; negative = not known
  double max_seqs = 256;       ///< the engine's running-sequence cap (max_num_seqs)
  double token_budget = 8192;  ///< tokens one step may carry (max_num_batched_tokens)
  Traffic traffic;             ///< the fleet's traffic
  ServiceLevel slo;
  double replicas = 1;  ///< the rate is split evenly over them
  /// Every engine step takes this many times the roofline's time: 1 for the estimate, the edges
  /// of the engine's throughput band (1 + its rate errors) for the load figures' bands.
  double time_scale = 1;
};

/// The replica at one rate.
struct LoadPoint {
  bool stable = false;                 ///< false: the rate exceeds what the replica sustains
  double rate = 0;                     ///< requests/s into this replica
  double batch = 0;                    ///< mean sequences decoding
  double step_s = 0;                   ///< mean engine step
  double prefill_share = 0;            ///< share of steps that carry prompt tokens
  double chunk_tokens = 0;             ///< prompt tokens in such a step
  double prefill_load = 0;             ///< share of the prompt budget in use (queueing utilization)
  double ttft_mean_s = 0, ttft_s = 0;  ///< ttft_s at the SLO's percentile
  double tpot_mean_s = 0, tpot_s = 0;
};

struct ServingLoad {
  LoadPoint at_rate;         ///< at the traffic's rate (per replica)
  LoadPoint at_capacity;     ///< at the highest stable rate
  double capacity_rate = 0;  ///< highest stable rate, per replica
  double max_rate = 0;       ///< highest rate meeting the SLO, per replica
  double utilization = 0;    ///< traffic rate / capacity, 0..1
  bool slo_met = false;
  std::string capacity_limit;  ///< kv_cache | max_num_seqs | token_budget
  std::string binding;         ///< what bounds max_rate: ttft | tpot | capacity_limit
  LengthDist prompt, output;
  double context = 0;  ///< time-average context of a decoding sequence
};

/// The load model for one replica: the operating point at the traffic's rate, the capacity and
/// the highest rate meeting the SLO (with no SLO, the capacity).
ServingLoad serving_load(const ServingLoadInputs& in);

/// The replica's inputs for a scenario with traffic: KV capacity from the memory estimate
/// (kv_cache_capacity_tokens of a preallocating engine, else max_batch x seq_len), the engine's
/// max_num_seqs and token budget (the scenario's max_num_batched_tokens, else the profile's
/// prefill chunk), the scenario's traffic, SLO and replicas.
ServingLoadInputs load_inputs(const Scenario& sc, const InferenceSetup& s,
                              const MemoryEstimate& memory);

/// Fills the load figures of `perf` (fleet-wide) for a scenario with traffic, with warnings and
/// basis entries in `why` (none when null). With the engine's throughput band (`band`, may be
/// null) the load figures get bands of their own: the load model again with every step at the
/// band's edges, so that queueing near capacity carries the step's error into the percentiles.
void estimate_load(const Scenario& sc, const InferenceSetup& s, const MemoryEstimate& memory,
                   const SpeedBand* band, Explanations* why, PerformanceEstimate& perf);

/// Only the highest rate per replica that meets the SLO (and its binding): what a fleet search
/// needs to count replicas, at a fraction of serving_load's cost.
/// `capacity`, when given, receives the highest sustainable rate per replica.
double max_rate_per_replica(const ServingLoadInputs& in, std::string* binding = nullptr,
                            double* capacity = nullptr);

}  // namespace gpusizer
