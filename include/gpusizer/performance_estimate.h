#pragma once
// What the speed estimator returns: serving and training throughput and latency, the bands
// around them and the serving-load figures (src/speed, estimate_speed). Keys and units as
// docs/contract.md.
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "gpusizer/named_figures.h"

namespace gpusizer {

struct Scenario;

/// A figure's band: [low, high] (gpusizer/speed_bands.h), under the figure's name. At most one per
/// banded figure of PerformanceEstimate: 13 scaled by their kind's band (src/estimate/bands.cc)
/// and 7 load figures from the load model at the band's edges (src/speed/serving_load.cc).
using FigureBands = NamedFigures<std::pair<double, double>, 20>;

/// Exposed seconds of a training step by cause (8 causes, src/speed/training_speed.h).
using StepSeconds = NamedFigures<double, 8>;

struct PerformanceEstimate {
  // Provided, so that a value-initialized estimate (`optional::emplace()`, `PerformanceEstimate{}`)
  // is not zeroed whole (~1.2 KB, ~200 instructions) before its members are built: every member
  // starts empty by its own constructor (issue 18).
  PerformanceEstimate() {}  // NOLINT(modernize-use-equals-default): `= default` would zero it
  std::optional<double> prefill_tokens_per_s, decode_tokens_per_s, ttft_ms, tpot_ms,
      max_output_tokens_per_s;
  std::optional<double> step_time_s, train_tokens_per_s, train_tokens_per_s_per_gpu, tflops_per_gpu,
      mfu, time_to_train_s;
  /// Serving: a decode step at the scenario's batch takes longer to read its bytes (weights, KV)
  /// than to compute (the roofline's memory side binds).
  std::optional<bool> decode_bandwidth_bound;
  /// Serving: how many times faster than predicted each phase would run with its FLOPs at the
  /// GPU's peak rate or its bytes at its peak bandwidth, whichever binds (the roofline; speed/
  /// inference_speed.h Phase::floor_s): the decode step, the prefill, and a full wave of
  /// max_output_tokens_per_s; 0 where not estimated. Not written to the answer: the speed bands
  /// hold their highs under it (estimate/bands.cc), as no engine beats the hardware.
  struct PeakRoom {
    double decode = 0, prefill = 0, wave = 0;
  } peak_room;
  /// Training: exposed seconds of the step by cause (compute, recompute, tp_comm, pp_bubble,
  /// dp_comm, ep_comm, optimizer, offload), adding up to step_time_s.
  StepSeconds step_breakdown_s;
  /// Figure -> [low, high]: where 80% of published measurements of its kind fell around the
  /// prediction (data/speed_bands.json); figures without enough measurements have none.
  FigureBands bands;
  /// Serving with traffic (speed/serving_load.h), for the whole fleet: TTFT and TPOT at the SLO's
  /// percentile (load_ttft_ms absent when the rate exceeds the fleet's capacity), their means,
  /// busy share, the highest rate meeting the SLO, the capacity, the output rate served, the mean
  /// decode batch per replica and what bounds max_requests_per_s.
  std::optional<double> load_ttft_ms, load_tpot_ms, load_ttft_mean_ms, load_tpot_mean_ms,
      load_utilization, max_requests_per_s, load_capacity_requests_per_s, load_output_tokens_per_s,
      load_batch;
  std::optional<bool> slo_met;
  std::string load_binding;
  /// Serving an offline job of scenario.offline_requests requests (speed.cc offline_job): the
  /// time the fleet takes to finish them all and their output tokens over that time.
  std::optional<double> offline_time_s, offline_output_tokens_per_s;
};

/// A figure of PerformanceEstimate, as a member pointer.
using PerformanceFigure = std::optional<double> PerformanceEstimate::*;

/// The figure named by its JSON key (decode_tokens_per_s, ttft_ms, step_time_s, load_ttft_ms,
/// ...); nullptr for a name that is not a figure. A caller that reads the same names for many
/// estimates (the speed bands) looks them up once.
PerformanceFigure performance_member(std::string_view name);

/// p's figure named by its JSON key; nullptr for a name that is not a figure. Used where a figure
/// is chosen by name: the validation rows' "compare" key.
const std::optional<double>* performance_figure(const PerformanceEstimate& p,
                                                std::string_view name);

/// Tokens per second the system does useful work at: output tokens with the GPUs kept full
/// (serving) or training tokens; none when speed was not estimated or is zero.
std::optional<double> useful_tokens_per_s(const Scenario& scenario,
                                          const std::optional<PerformanceEstimate>& performance);

}  // namespace gpusizer
