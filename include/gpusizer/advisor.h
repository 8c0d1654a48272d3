#pragma once
// The advisor: a search over Systems (GPU type and count) and workload levers (weights format,
// KV cache format, TP/PP, ZeRO stage, gradient checkpointing) that calls the same estimator for
// each candidate, keeps what fits with headroom and meets the constraints, ranks it by the
// objective and says why; plus "what to change so it fits" and the reverse question "what fits
// these GPUs". Nothing here computes memory or speed itself. Typed input only: the contract's
// JSON requests are parsed in gpusizer/json/advisor.h.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpusizer/catalog.h"
#include "gpusizer/estimate.h"
#include "gpusizer/scenario.h"
#include "gpusizer/scenario_edit.h"

namespace gpusizer {

enum class Objective { kCost, kSpeed, kPower };

/// What the user asks of a recommendation besides the scenario (docs/contract.md, recommend).
struct Constraints {
  Objective objective = Objective::kCost;
  int64_t max_gpus = 0;              ///< 0: 8 for inference and fine-tuning, 1024 for pre-training
  std::optional<double> budget_usd;  ///< USD per hour (cloud, the default) or purchase (on-prem)
  std::string vendor, segment;
  std::string deployment;  ///< "" (either), "cloud" or "on_prem"
  std::string region;      ///< "" or "cn" (export-controlled parts are rejected)
  std::optional<double> min_tokens_per_s, max_ttft_ms, max_days;
  bool production = false;          ///< ECC and a datacenter card required
  bool allow_quantization = false;  ///< lower-precision weights and KV cache are levers
  bool allow_offload = false;       ///< training: CPU offload (ZeRO-Offload) is a lever
  double headroom = 0.10;           ///< share of usable memory kept free
  std::vector<std::string> gpus;    ///< allowed catalog ids; empty: all
  int64_t limit = 20;               ///< options returned
};

/// Fields of a training layout the request fixed (its "parallel" and "training" objects and
/// "batch"); the layout search keeps them and searches the others.
struct LayoutPins {
  std::optional<int64_t> tp, pp, pp_interleave, dp, cp, ep, micro_batch;
  std::optional<bool> sequence_parallel;
  std::optional<int> zero_stage;
  std::optional<Recompute> recompute;
  std::optional<Offload> offload;
};

/// A recommend request, parsed (gpusizer/json/advisor.h parses the contract's JSON into one).
struct RecommendRequest {
  Scenario scenario;    ///< as parse_scenario returned it (before the layout is chosen)
  ScenarioGiven given;  ///< what its input fixed
  Constraints constraints;
  /// Training on token sequences (the layout search): the gpu_count the request fixes, and the
  /// layout fields it fixes. Unused by serving and cv-train.
  std::optional<int64_t> gpu_count;
  LayoutPins pins;
};

/// Serving with traffic (advisor/serving_plan.cc): how the option's fleet carries the rate.
struct TrafficPlan {
  int64_t replicas = 0;
  double rate_per_replica = 0;  ///< highest rate one replica carries within the SLO
  std::optional<double> fleet_usd_per_hour, usd_per_million_requests, usd_per_million_output_tokens;
  std::string binding;  ///< what sets the replica count: slo | memory | throughput
};

struct Option {
  Scenario scenario;
  Estimate estimate;
  double needed_bytes = 0;
  double headroom = 0;          ///< 1 - needed / usable capacity
  double objective_value = 0;   ///< lower is better; infinity when not computable
  std::string objective_basis;  ///< what objective_value is
  double score = 0;             ///< 100 for the best option, less for the others
  std::vector<std::string> reasons, warnings;
  /// What sets this option's size (docs/contract.md "binding"): "memory" (the fewest GPUs that
  /// hold it), "throughput", "slo", "time", "power" (the rack budget split its nodes) or "none".
  std::string binding = "none";
  std::optional<TrafficPlan> traffic_plan;  ///< with traffic
};

struct Rejection {
  std::string gpu, why;
};

/// One change to a scenario and what it does: memory saved, speed kept, quality cost.
struct Change {
  std::string change;
  ScenarioEdit edit;  ///< the change to the scenario; to_patch(edit) is its JSON merge patch
  double needed_bytes = 0, saves_bytes = 0;
  bool fits = false;
  std::optional<double> speed_factor;  ///< new throughput / old throughput
  std::string cost;                    ///< its price in speed or quality, in words
  int quality_class = 0;               ///< 0 none, 1 small, 2 noticeable, 3 changes the job
  std::vector<std::string> levers;     ///< the levers combined in this change, in order
};

struct Recommendation {
  std::vector<Option> options;  ///< best first
  std::vector<Rejection> rejected;
  std::vector<Change> changes;  ///< for the closest rejected GPU when nothing fits
  std::string changes_for;      ///< that GPU
  Constraints constraints;
  /// Advice on the request as a whole: a training request that named no engine, whose default
  /// (HF Trainer) splits the model, gets what Megatron-LM would reach (recommend of a JSON
  /// request, gpusizer/json/advisor.h).
  std::vector<std::string> notes;
};

/// Searches the catalog for the request's scenario under its constraints: with traffic the fleet
/// search, training on token sequences the layout search, otherwise the count and lever ladder.
Recommendation recommend(const RecommendRequest& request, const Catalog& catalog);

/// Ranked changes that make a scenario with a GPU fit: single levers and the smallest
/// combinations of levers that fit (src/advisor/changes.cc), each a typed edit of `parsed` (as
/// parse_scenario returned it; `given`: what its input fixed) re-estimated; none adds memory.
std::vector<Change> changes_to_fit(const Scenario& parsed, const ScenarioGiven& given,
                                   const Catalog& catalog, double headroom = 0.0);
/// The same, with `parsed` already resolved and estimated (`resolved`, `estimated`).
std::vector<Change> changes_to_fit(const Scenario& parsed, const ScenarioGiven& given,
                                   const Scenario& resolved, const Estimate& estimated,
                                   const Catalog& catalog, double headroom = 0.0);
/// The same from the resolved scenario alone: `parsed_layout` is what resolving changed
/// (layout_fields of the parsed scenario, gpusizer/scenario_edit.h), so the caller need not keep
/// a copy of the parsed scenario.
std::vector<Change> changes_to_fit(const Scenario& resolved, const LayoutFields& parsed_layout,
                                   const ScenarioGiven& given, const Estimate& estimated,
                                   const Catalog& catalog, double headroom = 0.0);

/// One model's scenario for the reverse question: the request with the model in place (a catalog
/// model, or the one the request names) and the context clamped to the model's own, parsed once.
struct FitModelScenario {
  Scenario parsed;  ///< its model is parsed.model
  ScenarioGiven given;
};

/// The reverse question, typed: the request checked once with a stand-in model (`checked`,
/// resolved), whether the standard levers apply, the scenario of every catalog model of the
/// task's kind that parses, and of the model the request names (json/advisor.h:
/// parse_fit_request).
struct FitRequest {
  Scenario checked;
  ScenarioGiven checked_given;
  bool cv = false;     ///< cv-train: vision models, no context search
  bool levers = true;  ///< apply the levers standard for the task where the input does not set them
  size_t limit = 10;   ///< models returned, largest first
  std::vector<FitModelScenario> models;
  std::optional<FitModelScenario> named;  ///< the model the request names, if it names one
};

struct FitModel {
  std::string model;  ///< its id
  int64_t params = 0, max_seq_len = 0, max_batch = 0;
  /// Its weights format: the request's, or where the request names none and the model ships
  /// quantized for serving, its checkpoint's (gpt-oss mxfp4, DeepSeek-V3 fp8).
  std::string weights;
};

struct FitResult {
  std::vector<std::string> levers;  ///< the standard levers applied, in words
  std::vector<FitModel> models;     ///< largest first, at most request.limit
  std::optional<FitModel> named;    ///< the named model's, when it fits at the context asked
};

/// The largest catalog models that fit the request's GPUs for its task, and the model it names,
/// each with the longest context (up to its own) and the largest batch that still fit; every
/// figure from estimate().
FitResult fit(const FitRequest& request, const Catalog& catalog);

}  // namespace gpusizer
