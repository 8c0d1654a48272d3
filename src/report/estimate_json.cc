#include "report/estimate_json.h"

#include <algorithm>
#include <cmath>

#include "gpusizer/json/cost.h"
#include "gpusizer/saturate.h"

namespace gpusizer {
namespace {

// Non-negative and saturating: a byte count past int64 prints as INT64_MAX, never wraps.
int64_t bytes(double v) {
  return saturating_int64(std::max(0.0, v));
}

// Figure -> {"low", "high"}: the band a measurement is expected in (gpusizer/speed_bands.h).
nlohmann::json bands_json(const std::map<std::string, std::pair<double, double>>& bands) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, band] : bands) out[name] = {{"low", band.first}, {"high", band.second}};
  return out;
}

template <typename T>
void put(nlohmann::json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

// The "memory" object: bytes per GPU by component and level, fit, the largest batch.
nlohmann::json memory_json(const MemoryEstimate& m) {
  // Each figure is rounded on its own, so the rounded components can add up to a few bytes more
  // than the rounded allocated figure (0.5 + 0.5 rounds to 2, their sum 1.0 to 1). The contract's
  // order holds on the integers written: allocated >= sum of components, reserved >= allocated,
  // total >= reserved.
  const int64_t weights = bytes(m.weights), kv = bytes(m.kv_cache),
                activations = bytes(m.activations), gradients = bytes(m.gradients),
                optimizer = bytes(m.optimizer), master = bytes(m.master_weights);
  int64_t components = 0;
  for (int64_t part : {weights, kv, activations, gradients, optimizer, master})
    components = saturating_add(components, part);
  const int64_t allocated = std::max(bytes(m.allocated), components);
  const int64_t reserved = std::max(bytes(m.reserved), allocated);
  const int64_t total = std::max(bytes(m.total), reserved);
  nlohmann::json mem = {{"total_bytes", total},
                        {"reserved_bytes", reserved},
                        {"allocated_bytes", allocated},
                        {"low_bytes", std::min(bytes(m.low), total)},
                        {"high_bytes", std::max(bytes(m.high), total)},
                        {"weights_bytes", weights},
                        {"kv_cache_bytes", kv},
                        {"activations_bytes", activations},
                        {"gradients_bytes", gradients},
                        {"optimizer_bytes", optimizer},
                        {"master_weights_bytes", master},
                        {"overhead_bytes", bytes(m.overhead)},
                        {"kv_cache_bytes_per_token", bytes(m.kv_bytes_per_token)},
                        {"units", "bytes per GPU"}};
  if (m.capacity) mem["gpu_capacity_bytes"] = bytes(*m.capacity);
  if (!m.peak_phase.empty()) {
    mem["peak_phase"] = m.peak_phase;
    mem["gradients_full_bytes"] = bytes(m.gradients_full);
  }
  put(mem, "fits", m.fits);
  put(mem, "max_batch", m.max_batch);
  put(mem, "kv_cache_capacity_tokens", m.kv_cache_capacity_tokens);
  return mem;
}

// The "performance" object: serving or training speed, bands, the load figures with traffic.
nlohmann::json performance_json(const PerformanceEstimate& p) {
  nlohmann::json perf = nlohmann::json::object();
  put(perf, "prefill_tokens_per_s", p.prefill_tokens_per_s);
  put(perf, "decode_tokens_per_s", p.decode_tokens_per_s);
  put(perf, "ttft_ms", p.ttft_ms);
  put(perf, "tpot_ms", p.tpot_ms);
  put(perf, "max_output_tokens_per_s", p.max_output_tokens_per_s);
  put(perf, "step_time_s", p.step_time_s);
  put(perf, "train_tokens_per_s", p.train_tokens_per_s);
  put(perf, "train_tokens_per_s_per_gpu", p.train_tokens_per_s_per_gpu);
  put(perf, "tflops_per_gpu", p.tflops_per_gpu);
  put(perf, "mfu", p.mfu);
  put(perf, "time_to_train_s", p.time_to_train_s);
  if (!p.step_breakdown_s.empty()) perf["step_breakdown_s"] = p.step_breakdown_s;
  if (!p.bands.empty()) perf["bands"] = bands_json(p.bands);
  if (p.slo_met) {  // serving with traffic (docs/contract.md v2); null TTFT when overloaded
    perf["load_ttft_ms"] = p.load_ttft_ms ? nlohmann::json(*p.load_ttft_ms) : nlohmann::json();
    put(perf, "load_tpot_ms", p.load_tpot_ms);
    put(perf, "load_ttft_mean_ms", p.load_ttft_mean_ms);
    put(perf, "load_tpot_mean_ms", p.load_tpot_mean_ms);
    put(perf, "load_utilization", p.load_utilization);
    put(perf, "max_requests_per_s", p.max_requests_per_s);
    put(perf, "load_capacity_requests_per_s", p.load_capacity_requests_per_s);
    put(perf, "load_output_tokens_per_s", p.load_output_tokens_per_s);
    put(perf, "load_batch", p.load_batch);
    perf["slo_met"] = *p.slo_met;
    perf["load_binding"] = p.load_binding;
  }
  return perf;
}

// The "cost" object: cloud prices of the fleet, their bands, the run's cost and ownership.
nlohmann::json cost_json(const Estimate& e) {
  nlohmann::json cost = nlohmann::json::object();
  put(cost, "usd_per_hour", e.cost.usd_per_hour);
  put(cost, "usd_per_million_tokens", e.cost.usd_per_million_tokens);
  put(cost, "usd_per_million_requests", e.cost.usd_per_million_requests);
  put(cost, "usd_per_run", e.cost.usd_per_run);
  if (!e.cost.bands.empty()) cost["bands"] = bands_json(e.cost.bands);
  put(cost, "usd_total", e.cost.usd_total);
  if (e.ownership) cost["ownership"] = to_json(*e.ownership);
  return cost;
}

// The "power" object: watts of GPUs, nodes and fleet, heat, UPS, energy, racks.
nlohmann::json power_json(const PowerEstimate& p) {
  nlohmann::json power = nlohmann::json::object();
  put(power, "gpu_watts", p.gpu_watts);
  put(power, "node_watts", p.node_watts);
  put(power, "btu_per_hour", p.btu_per_hour);
  put(power, "nodes", p.nodes);
  put(power, "node_peak_watts", p.node_peak_watts);
  put(power, "fleet_watts", p.fleet_watts);
  put(power, "ups_kva", p.ups_kva);
  put(power, "annual_kwh", p.annual_kwh);
  put(power, "rack_budget_watts", p.rack_budget_watts);
  put(power, "run_kwh", p.run_kwh);
  put(power, "gpus_per_node", p.gpus_per_node);
  put(power, "racks", p.racks);
  if (!p.server.empty()) power["server"] = p.server;
  return power;
}

}  // namespace

nlohmann::json to_json(const Estimate& e) {
  nlohmann::json j;
  j["model"] = {{"id", e.model_id}, {"params", e.params}, {"active_params", e.active_params}};
  j["memory"] = memory_json(e.memory);
  if (e.performance) j["performance"] = performance_json(*e.performance);
  j["cost"] = cost_json(e);
  j["power"] = power_json(e.power);
  j["warnings"] = e.warnings;
  j["basis"] = e.basis;
  return j;
}

nlohmann::json to_json(const Scenario& s) {
  nlohmann::json j = {{"model", s.model.id},
                      {"model_origin", s.model_origin},
                      {"task", to_string(s.task)},
                      {"weights", s.weights.id},
                      {"kv_cache", s.kv_cache.id},
                      {"batch", s.batch},
                      {"seq_len", s.seq_len},
                      {"prompt_len", s.prompt_len},
                      {"output_len", s.output_len},
                      {"engine", s.engine},
                      {"engine_version", s.engine_version},
                      {"gpu_count", s.gpu_count},
                      {"gpus_per_node", s.gpus_per_node},
                      {"parallel",
                       {{"tp", s.parallel.tp},
                        {"pp", s.parallel.pp},
                        {"dp", s.parallel.dp},
                        {"ep", s.parallel.ep},
                        {"sequence_parallel", s.parallel.sequence_parallel},
                        {"pp_interleave", s.parallel.pp_interleave},
                        {"cp", s.parallel.cp}}}};
  if (s.gpu) j["gpu"] = s.gpu->id;
  if (s.task == Task::kInference) {
    j["gpu_memory_utilization"] = s.gpu_memory_utilization;
  } else {
    const TrainingOptions& t = s.training;
    j["training"] = {{"optimizer", to_string(t.optimizer)},
                     {"mixed_precision", to_string(t.mixed_precision)},
                     {"gradient_checkpointing", t.recompute == Recompute::kFull        ? "full"
                                                : t.recompute == Recompute::kSelective ? "selective"
                                                                                       : "none"},
                     {"flash_attention", t.flash_attention},
                     {"lora_rank", t.lora_rank},
                     {"lora_targets", t.lora_targets},
                     {"zero_stage", t.zero_stage},
                     {"offload", to_string(t.offload)},
                     {"grad_accum", t.grad_accum},
                     {"global_batch", t.global_batch}};
  }
  return j;
}

}  // namespace gpusizer
