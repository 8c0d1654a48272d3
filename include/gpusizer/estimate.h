#pragma once
// The Estimate: per-GPU memory by component at the process's peak, speed, cost, power, warnings,
// and for every figure its basis. Keys and units as docs/contract.md defines them.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusizer/cost.h"
#include "gpusizer/scenario.h"

namespace gpusizer {

/// Memory per GPU in bytes at the process's peak.
struct MemoryEstimate {
  double weights = 0, kv_cache = 0, activations = 0, gradients = 0, optimizer = 0,
         master_weights = 0, overhead = 0;
  double allocated = 0;      ///< live tensors at the peak (torch.cuda.max_memory_allocated)
  double reserved = 0;       ///< caching allocator's peak (torch.cuda.max_memory_reserved)
  double total = 0;          ///< what the device shows (nvidia-smi)
  double low = 0, high = 0;  ///< uncertainty band around total
  std::optional<double> capacity;
  std::optional<bool> fits;
  std::optional<int64_t> max_batch;
  std::optional<int64_t> kv_cache_capacity_tokens;
  double kv_bytes_per_token = 0;  ///< per GPU, all layers, at the scenario's context
  double gradients_full = 0;      ///< all gradients, which exist at the end of backward
  std::string peak_phase;  ///< training: when the peak happens ("loss", "end of backward", ...)
};

struct PerformanceEstimate {
  std::optional<double> prefill_tokens_per_s, decode_tokens_per_s, ttft_ms, tpot_ms,
      max_output_tokens_per_s;
  std::optional<double> step_time_s, train_tokens_per_s, train_tokens_per_s_per_gpu, tflops_per_gpu,
      mfu, time_to_train_s;
  /// Serving: a decode step at the scenario's batch takes longer to read its bytes (weights, KV)
  /// than to compute (the roofline's memory side binds).
  std::optional<bool> decode_bandwidth_bound;
  /// Training: exposed seconds of the step by cause (compute, recompute, tp_comm, pp_bubble,
  /// dp_comm, ep_comm, optimizer, offload), adding up to step_time_s.
  std::map<std::string, double> step_breakdown_s;
  /// Figure -> [low, high]: where 80% of published measurements of its kind fell around the
  /// prediction (data/speed_bands.json); figures without enough measurements have none.
  std::map<std::string, std::pair<double, double>> bands;
  /// Serving with traffic (speed/serving_load.h), for the whole fleet: TTFT and TPOT at the SLO's
  /// percentile (load_ttft_ms absent when the rate exceeds the fleet's capacity), their means,
  /// busy share, the highest rate meeting the SLO, the capacity, the output rate served, the mean
  /// decode batch per replica and what bounds max_requests_per_s.
  std::optional<double> load_ttft_ms, load_tpot_ms, load_ttft_mean_ms, load_tpot_mean_ms,
      load_utilization, max_requests_per_s, load_capacity_requests_per_s, load_output_tokens_per_s,
      load_batch;
  std::optional<bool> slo_met;
  std::string load_binding;
};

struct CostEstimate {
  std::optional<double> usd_per_hour;
  std::optional<double> usd_per_million_tokens;
  std::optional<double> usd_per_million_requests;  ///< serving: output_len tokens a request
  std::optional<double> usd_per_run;               ///< training: when training.tokens is given
  /// Figure -> [low, high] from the band of the throughput it divides by.
  std::map<std::string, std::pair<double, double>> bands;
  std::optional<double> usd_total;  ///< training: the whole run (cost/run_cost.h), with tokens
};

struct PowerEstimate {
  std::optional<double> gpu_watts;        ///< all GPUs at TDP
  std::optional<double> node_watts;       ///< per node: GPUs + host, with the design margin
  std::optional<double> btu_per_hour;     ///< heat of all nodes at peak
  std::optional<int64_t> nodes;           ///< ceil(gpu_count / gpus_per_node)
  std::optional<double> node_peak_watts;  ///< per node: GPUs + host, no margin
  std::optional<double> fleet_watts;      ///< all nodes, with the design margin
  std::optional<double> ups_kva;          ///< fleet_watts / power factor
  std::optional<double> annual_kwh;       ///< all nodes at peak x utilization x 8760 h x PUE
  std::optional<double> rack_budget_watts;
  std::optional<double> run_kwh;         ///< training: energy of the whole run, PUE included
  std::optional<int64_t> gpus_per_node;  ///< GPUs in one node (the last node may hold fewer)
  std::string server;                    ///< server form whose host is powered (servers.csv)
  std::optional<int64_t> racks;          ///< racks at rack_budget_watts; none if a node exceeds it
};

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
  std::map<std::string, std::string> basis;  ///< figure name -> formula and source
};

/// Tokens per second the system does useful work at: output tokens with the GPUs kept full
/// (serving) or training tokens; none when speed was not estimated or is zero.
std::optional<double> useful_tokens_per_s(const Scenario& scenario, const Estimate& estimate);

/// The performance figure named by its JSON key (decode_tokens_per_s, ttft_ms, step_time_s,
/// load_ttft_ms, ...); nullptr for a name that is not a figure. Used where a figure is chosen by
/// name: the validation rows' "compare" key and the speed bands.
const std::optional<double>* performance_figure(const PerformanceEstimate& p,
                                                std::string_view name);

/// How much an estimate says. Searches (what to change, the largest batch) need only the memory
/// and speed figures of each candidate; power, cost, warnings, the basis strings and the training
/// step's split by part (step_breakdown_s, which explains step_time_s) are most of an estimate's
/// cost and are explained once, by the estimate the search starts from.
/// kMemory: the memory figures alone (bytes only; no speed), for searches that prune by memory
/// before they estimate speed.
enum class Detail { kFull, kFigures, kMemory };

/// The contract's scenario JSON as a fully resolved Scenario: parse_scenario, then the layouts
/// left to gpusizer (the serving split per replica, estimate/layout.h). What the faces call.
Scenario resolve_scenario(const nlohmann::json& input, const Catalog& catalog);

/// Estimates everything for a checked scenario (kFigures: memory and speed, no basis strings,
/// warnings, power or cost).
Estimate estimate(const Scenario& scenario, const Catalog& catalog, Detail detail = Detail::kFull);

}  // namespace gpusizer
