#pragma once
// The Estimate: the composition of the estimators' results (memory, speed, power, cost), with
// the warnings and for every figure its basis; estimate() makes it. Keys and units as
// docs/contract.md defines them.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusizer/basis.h"
#include "gpusizer/cost.h"
#include "gpusizer/memory_estimate.h"
#include "gpusizer/performance_estimate.h"
#include "gpusizer/power_estimate.h"
#include "gpusizer/scenario.h"

namespace gpusizer {

struct Estimate {
  std::string model_id;
  int64_t params = 0;
  int64_t active_params = 0;
  MemoryEstimate memory;
  std::optional<PerformanceEstimate> performance;
  CostEstimate cost;
  PowerEstimate power;
  std::optional<Ownership> ownership;  ///< cloud vs on-prem when a GPU is given
  std::vector<std::string> warnings;
  Basis basis;  ///< figure name -> formula and source
};

/// Tokens per second the system does useful work at: output tokens with the GPUs kept full
/// (serving) or training tokens; none when speed was not estimated or is zero.
std::optional<double> useful_tokens_per_s(const Scenario& scenario, const Estimate& estimate);

/// Memory a configuration needs per GPU: the device total, or for engines that preallocate, that
/// total with the requested batch's KV cache in place of the pool they reserve (the pool says
/// nothing of the demand).
double memory_needed(const Scenario& scenario, const Estimate& estimate);

/// How much an estimate says. Searches (what to change, the largest batch) need only the memory
/// and speed figures of each candidate; power, cost, warnings, the basis strings and the training
/// step's split by part (step_breakdown_s, which explains step_time_s) are most of an estimate's
/// cost and are explained once, by the estimate the search starts from.
/// kMemory: the memory figures alone (bytes only; no speed), for searches that prune by memory
/// before they estimate speed.
/// kNoBasis: every figure and warning of kFull without the basis texts, which are not made at
/// all (a batch that does not show them: "basis": false, CLI --no-basis).
enum class Detail { kFull, kFigures, kMemory, kNoBasis };

/// Estimates everything for a checked scenario (kFigures: memory and speed, no basis strings,
/// warnings, power or cost).
Estimate estimate(const Scenario& scenario, const Catalog& catalog, Detail detail = Detail::kFull);

}  // namespace gpusizer
