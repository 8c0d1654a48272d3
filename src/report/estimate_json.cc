#include "report/estimate_json.h"

#include <algorithm>
#include <cmath>

#include "gpusizer/json/cost.h"
#include "gpusizer/saturate.h"
#include "report/describe.h"
#include "report/raw_writer.h"

namespace gpusizer {
namespace {

// Non-negative and saturating: a byte count past int64 prints as INT64_MAX, never wraps.
int64_t bytes(double v) {
  return saturating_int64(std::max(0.0, v));
}

// Figure -> {"low", "high"}: the band a measurement is expected in (gpusizer/speed_bands.h).
template <typename W, size_t N>
void describe_bands(W& w, const NamedFigures<std::pair<double, double>, N>& bands) {
  w.key("bands");
  w.begin_object();
  // The names are literals (estimate/bands.cc), in ascending order: nothing to escape or sort.
  for (const auto& [name, band] : bands) {
    w.literal_key(name);
    w.begin_object();
    w.field("high", band.second);
    w.field("low", band.first);
    w.end_object();
  }
  w.end_object();
}

// Serving with traffic (docs/contract.md v2): the load figures, in key order among the others.
template <typename W>
void describe_load_head(W& w, const PerformanceEstimate& p) {
  w.field("load_batch", p.load_batch);
  w.field("load_binding", p.load_binding);
  w.field("load_capacity_requests_per_s", p.load_capacity_requests_per_s);
  w.field("load_output_tokens_per_s", p.load_output_tokens_per_s);
  w.field("load_tpot_mean_ms", p.load_tpot_mean_ms);
  w.field("load_tpot_ms", p.load_tpot_ms);
  w.field("load_ttft_mean_ms", p.load_ttft_mean_ms);
  w.key("load_ttft_ms");  // null TTFT when overloaded
  if (p.load_ttft_ms)
    w.number(*p.load_ttft_ms);
  else
    w.null();
  w.field("load_utilization", p.load_utilization);
}

}  // namespace

// The "memory" object: bytes per GPU by component and level, fit, the largest batch. The text
// writer's is written at once (write_at_once: ~20 fields, issue 18); its bound: ~400 bytes of
// keys and punctuation, 20 a field of room, the units and the peak phase (~760 in all).
template <typename W>
void describe_memory(W& w, const MemoryEstimate& m) {
  if constexpr (std::is_same_v<W, TextWriter>) {
    if (write_at_once(w, 1024 + m.peak_phase.size(),
                      [&m](RawWriter& raw) { describe_memory(raw, m); }))
      return;
  }
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
  const bool training_peak = !m.peak_phase.empty();
  w.begin_object();
  w.field("activations_bytes", activations);
  w.field("allocated_bytes", allocated);
  w.field("fits", m.fits);
  if (m.capacity) w.field("gpu_capacity_bytes", bytes(*m.capacity));
  w.field("gradients_bytes", gradients);
  if (training_peak) w.field("gradients_full_bytes", bytes(m.gradients_full));
  w.field("high_bytes", std::max(bytes(m.high), total));
  w.field("kv_cache_bytes", kv);
  w.field("kv_cache_bytes_per_token", bytes(m.kv_bytes_per_token));
  w.field("kv_cache_capacity_tokens", m.kv_cache_capacity_tokens);
  w.field("low_bytes", std::min(bytes(m.low), total));
  w.field("master_weights_bytes", master);
  w.field("max_batch", m.max_batch);
  w.field("optimizer_bytes", optimizer);
  w.field("overhead_bytes", bytes(m.overhead));
  if (training_peak) w.field("peak_phase", m.peak_phase);
  w.field("reserved_bytes", reserved);
  w.field("total_bytes", total);
  w.field("units", "bytes per GPU");
  w.field("weights_bytes", weights);
  w.end_object();
}

// The "performance" object: serving or training speed, bands, the load figures with traffic.
// The text writer's is written at once (write_at_once: ~25 fields, issue 18); its bound: 64 bytes
// for each of the 26 figures that may be set (a key of at most 32, its punctuation and 25 of a
// double's text, the last one's room among them), 112 a band (its name and two figures), 64 a
// step cause and the load's binding.
template <typename W>
void describe_performance(W& w, const PerformanceEstimate& p) {
  if constexpr (std::is_same_v<W, TextWriter>) {
    const size_t n = 26 * 64 + 112 * p.bands.size() + 64 * p.step_breakdown_s.size() +
                     p.load_binding.size() + 64;
    if (write_at_once(w, n, [&p](RawWriter& raw) { describe_performance(raw, p); })) return;
  }
  const bool load = p.slo_met.has_value();
  w.begin_object();
  if (!p.bands.empty()) describe_bands(w, p.bands);
  w.field("decode_tokens_per_s", p.decode_tokens_per_s);
  if (load) describe_load_head(w, p);
  w.field("max_output_tokens_per_s", p.max_output_tokens_per_s);
  if (load) w.field("max_requests_per_s", p.max_requests_per_s);
  w.field("mfu", p.mfu);
  w.field("offline_output_tokens_per_s", p.offline_output_tokens_per_s);
  w.field("offline_time_s", p.offline_time_s);
  w.field("prefill_tokens_per_s", p.prefill_tokens_per_s);
  w.field("slo_met", p.slo_met);
  if (!p.step_breakdown_s.empty()) {
    w.key("step_breakdown_s");
    w.begin_object();
    for (const auto& [cause, seconds] : p.step_breakdown_s) {
      w.literal_key(cause);  // a literal (StepBreakdown::by_cause)
      w.number(seconds);
    }
    w.end_object();
  }
  w.field("step_time_s", p.step_time_s);
  w.field("tflops_per_gpu", p.tflops_per_gpu);
  w.field("time_to_train_s", p.time_to_train_s);
  w.field("tpot_ms", p.tpot_ms);
  w.field("train_tokens_per_s", p.train_tokens_per_s);
  w.field("train_tokens_per_s_per_gpu", p.train_tokens_per_s_per_gpu);
  w.field("ttft_ms", p.ttft_ms);
  w.end_object();
}

// At least the text of an Estimate's "cost" object: 64 bytes for each of its at most 32 figures
// (a key of at most 32, its punctuation and 25 of a double's text, the last one's room among
// them) with room to spare, 112 a band (its name and two figures), ~350 for the other keys and
// the objects' punctuation, and the strings.
namespace {
size_t cost_text_bound(const Estimate& e) {
  size_t n = 40 * 64 + 200 + 112 * e.cost.bands.size();
  if (const std::optional<Ownership>& o = e.ownership) {
    n += o->assumptions.date.size() + o->break_even.verdict.size() + o->not_rented.size();
    for (const std::string& line : o->basis) n += line.size() + 3;
    if (const std::optional<CloudCost>& c = o->cloud)
      n += c->instance.size() + c->price_date.size() + c->provider.size() + c->currency.size();
    if (o->on_prem) n += o->on_prem->server.size();
  }
  return n;
}
}  // namespace

// The "cost" object: cloud prices of the fleet, their bands, the run's cost and ownership. The
// text writer's is written at once (write_at_once: ~50 fields with the ownership, issue 18).
template <typename W>
void describe_cost(W& w, const Estimate& e) {
  if constexpr (std::is_same_v<W, TextWriter>) {
    if (write_at_once(w, cost_text_bound(e), [&e](RawWriter& raw) { describe_cost(raw, e); }))
      return;
  }
  w.begin_object();
  if (!e.cost.bands.empty()) describe_bands(w, e.cost.bands);
  // The four prices are the cloud's (estimate/estimate.cc estimate_cost): their texts are the
  // ones its object wrote.
  RepeatedFigures repeated;
  if (e.ownership) {
    w.key("ownership");
    describe_ownership(w, *e.ownership, repeated);
  }
  repeated.field(w, "usd_per_hour", e.cost.usd_per_hour);
  repeated.field(w, "usd_per_million_requests", e.cost.usd_per_million_requests);
  repeated.field(w, "usd_per_million_tokens", e.cost.usd_per_million_tokens);
  repeated.field(w, "usd_per_run", e.cost.usd_per_run);
  w.field("usd_total", e.cost.usd_total);
  w.end_object();
}

// The "power" object: watts of GPUs, nodes and fleet, heat, UPS, energy, racks. The text writer's
// is written at once (write_at_once: ~14 fields, issue 18); its bound: ~200 bytes of keys and
// punctuation, 25 a figure, 20 an integer, 64 for the last one's room and the server's name
// (~550 in all).
template <typename W>
void describe_power(W& w, const PowerEstimate& p) {
  if constexpr (std::is_same_v<W, TextWriter>) {
    if (write_at_once(w, 768 + p.server.size(), [&p](RawWriter& raw) { describe_power(raw, p); }))
      return;
  }
  w.begin_object();
  w.field("annual_kwh", p.annual_kwh);
  w.field("btu_per_hour", p.btu_per_hour);
  // One node's watts are the fleet's (the node's, with its margin, times the nodes).
  RepeatedFigures repeated;
  repeated.field(w, "fleet_watts", p.fleet_watts);
  w.field("gpu_watts", p.gpu_watts);
  w.field("gpus_per_node", p.gpus_per_node);
  w.field("node_peak_watts", p.node_peak_watts);
  repeated.field(w, "node_watts", p.node_watts);
  w.field("nodes", p.nodes);
  w.field("rack_budget_watts", p.rack_budget_watts);
  w.field("racks", p.racks);
  w.field("run_kwh", p.run_kwh);
  if (!p.server.empty()) w.field("server", p.server);
  w.field("ups_kva", p.ups_kva);
  w.end_object();
}

template <typename W>
void describe_texts(W& w, const Basis& texts) {
  w.texts(texts);
}

template <typename W>
void describe_estimate(W& w, const Estimate& e) {
  w.begin_object();
  w.key("basis");
  describe_texts(w, e.basis);
  w.key("cost");
  describe_cost(w, e);
  w.key("memory");
  describe_memory(w, e.memory);
  w.key("model");
  w.begin_object();
  w.field("active_params", e.active_params);
  w.field("id", e.model_id);
  w.field("params", e.params);
  w.end_object();
  if (e.performance) {
    w.key("performance");
    describe_performance(w, *e.performance);
  }
  w.key("power");
  describe_power(w, e.power);
  w.strings("warnings", e.warnings);
  w.end_object();
}

nlohmann::json to_json(const Estimate& e) {
  TreeWriter w;
  describe_estimate(w, e);
  return w.take();
}

namespace {

template <typename W>
void describe_parallel(W& w, const Parallelism& p) {
  w.key("parallel");
  w.begin_object();
  w.field("cp", p.cp);
  w.field("dp", p.dp);
  w.field("ep", p.ep);
  w.field("pp", p.pp);
  w.field("pp_interleave", p.pp_interleave);
  w.field("sequence_parallel", p.sequence_parallel);
  w.field("tp", p.tp);
  // Echoed where set: absent is off, and every other answer keeps its shape.
  if (p.tp_comm_overlap) w.field("tp_comm_overlap", true);
  w.end_object();
}

template <typename W>
void describe_training(W& w, const TrainingOptions& t) {
  w.key("training");
  w.begin_object();
  w.field("flash_attention", t.flash_attention);
  w.field("global_batch", t.global_batch);
  w.field("grad_accum", t.grad_accum);
  w.field("gradient_checkpointing", t.recompute == Recompute::kFull        ? "full"
                                    : t.recompute == Recompute::kSelective ? "selective"
                                                                           : "none");
  w.field("lora_rank", t.lora_rank);
  w.strings("lora_targets", t.lora_targets);
  w.field("mixed_precision", to_string(t.mixed_precision));
  w.field("offload", to_string(t.offload));
  w.field("optimizer", to_string(t.optimizer));
  // Megatron-Core's modules of a selective recomputation, where the input named them.
  if (t.recompute == Recompute::kSelective && t.recompute_modules != 0) {
    std::vector<std::string> names;
    for (size_t i = 0; i < recompute_module_names().size(); ++i)
      if (t.recompute_modules & (1u << i)) names.push_back(recompute_module_names()[i]);
    w.strings("recompute_modules", names);
  }
  w.field("zero_stage", t.zero_stage);
  w.end_object();
}

}  // namespace

// The text writer's is written at once (write_at_once: ~35 fields, issue 18); its bound: ~600
// bytes of keys and punctuation, 20 a field of room, 64 for the memory fraction, the enums'
// names (~1,070 in all), and the strings from the scenario and the catalog.
template <typename W>
void describe_scenario(W& w, const Scenario& s, const std::string* model_requested) {
  if constexpr (std::is_same_v<W, TextWriter>) {
    size_t n = 1280 + s.engine.size() + s.engine_version.size() + s.model_origin.size() +
               s.kv_cache->id.size() + s.model->id.size() + s.weights->id.size();
    if (s.gpu) n += s.gpu->id.size();
    if (model_requested) n += model_requested->size();
    for (const std::string& target : s.training.lora_targets) n += target.size() + 3;
    if (write_at_once(w, n, [&](RawWriter& raw) { describe_scenario(raw, s, model_requested); }))
      return;
  }
  w.begin_object();
  w.field("batch", s.batch);
  w.field("engine", s.engine);
  w.field("engine_version", s.engine_version);
  if (s.gpu) w.field("gpu", s.gpu->id);
  w.field("gpu_count", s.gpu_count);
  if (s.task == Task::kInference) w.field("gpu_memory_utilization", s.gpu_memory_utilization);
  w.field("gpus_per_node", s.gpus_per_node);
  w.field("kv_cache", s.kv_cache->id);
  w.field("model", s.model->id);
  w.field("model_origin", s.model_origin);
  if (model_requested) w.field("model_requested", *model_requested);
  w.field("output_len", s.output_len);
  describe_parallel(w, s.parallel);
  w.field("prompt_len", s.prompt_len);
  w.field("seq_len", s.seq_len);
  w.field("task", task_name(s.task));
  if (s.task != Task::kInference) describe_training(w, s.training);
  w.field("weights", s.weights->id);
  w.end_object();
}

nlohmann::json to_json(const Scenario& s) {
  TreeWriter w;
  describe_scenario(w, s);
  return w.take();
}

// For both backends (report/describe.h).
template void describe_memory(TreeWriter&, const MemoryEstimate&);
template void describe_performance(TreeWriter&, const PerformanceEstimate&);
template void describe_cost(TreeWriter&, const Estimate&);
template void describe_power(TreeWriter&, const PowerEstimate&);
template void describe_texts(TreeWriter&, const Basis&);
template void describe_estimate(TreeWriter&, const Estimate&);
template void describe_scenario(TreeWriter&, const Scenario&, const std::string*);
template void describe_memory(TextWriter&, const MemoryEstimate&);
template void describe_performance(TextWriter&, const PerformanceEstimate&);
template void describe_cost(TextWriter&, const Estimate&);
template void describe_power(TextWriter&, const PowerEstimate&);
template void describe_texts(TextWriter&, const Basis&);
template void describe_estimate(TextWriter&, const Estimate&);
template void describe_scenario(TextWriter&, const Scenario&, const std::string*);

}  // namespace gpusizer
