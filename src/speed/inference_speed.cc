#include "speed/inference_speed.h"

#include <algorithm>
#include <cmath>

namespace gpusizer {

std::optional<InferenceSetup> inference_setup(const Scenario& sc, const SpeedProfile& profile,
                                              std::string& why) {
  if (!sc.gpu) {
    why = "no gpu given";
    return std::nullopt;
  }
  const Gpu& gpu = *sc.gpu;
  InferenceSetup s;
  s.costs = model_costs(sc.model, sc.weights, sc.kv_cache);
  s.engine = profile.inference(sc.engine);
  s.kernel = profile.weight_kernel(sc.weights.kind);
  s.vendor = profile.vendor(gpu.vendor);
  s.compute_dtype = sc.weights.compute_dtype.empty() ? "bf16" : sc.weights.compute_dtype;
  const auto flops = gpu.dense_flops(s.compute_dtype);
  if (!flops || *flops <= 0 || !gpu.memory_bandwidth_gbps || *gpu.memory_bandwidth_gbps <= 0) {
    why =
        "the GPU catalog lacks a " + s.compute_dtype + " rate or a memory bandwidth for " + gpu.id;
    return std::nullopt;
  }
  s.peak_flops = *flops;
  // Engines whose GEMMs accumulate in fp16 (llama.cpp's cuBLAS path: CUBLAS_COMPUTE_16F for
  // F16 and dequantized weights, ggml-cuda.cu ggml_cuda_op_mul_mat_cublas) get the fp16-accumulate
  // tensor rate, which GeForce cards run at twice the fp32-accumulate rate that gpus.csv stores
  // (Ada whitepaper: RTX 4090 330 vs 165 TFLOPS; GA102 whitepaper: RTX 3090 142 vs 71).
  if (s.engine.fp16_accumulate && (s.compute_dtype == "fp16" || s.compute_dtype == "bf16"))
    s.peak_flops *= profile.fp16_accumulate_factor(gpu.vendor, gpu.segment);
  s.bandwidth = *gpu.memory_bandwidth_gbps * 1e9;
  // The resolved layout (Scenario::replica_gpus): speed reads it, never re-derives it.
  s.tp = std::max<int64_t>(1, sc.parallel.tp);
  s.pp = std::max<int64_t>(1, sc.parallel.pp);
  s.attention_groups = sc.attention_groups();
  s.replicas = std::max<int64_t>(1, sc.parallel.dp);
  s.tp_link = group_link(gpu, s.tp, sc.gpus_per_node, profile.links());
  s.activation_bytes = profile.links().activation_bytes;
  return s;
}

double compute_efficiency(const InferenceProfile& p, double tokens) {
  // Saturating curve: small passes are latency/bandwidth bound inside the GEMM and reach a
  // small share of the tensor rate; large ones approach compute_eff_max.
  return p.compute_eff_max * tokens / (tokens + p.compute_k_tokens);
}

PassTime stage_pass(const InferenceSetup& s, double tokens, double flops, double weight_bytes,
                    double other_bytes) {
  PassTime t;
  const double tp = static_cast<double>(s.tp), pp = static_cast<double>(s.pp);
  double rate = s.peak_flops * compute_efficiency(s.engine, tokens) * s.kernel.compute_scale *
                s.vendor.compute_scale;
  // An engine's own kernel ceiling combines harmonically with the GPU's achieved rate.
  if (s.engine.compute_cap_flops > 0) rate = 1.0 / (1.0 / rate + 1.0 / s.engine.compute_cap_flops);
  // Attention data-parallel groups (ep > tp) split the pass's tokens; the routed experts are
  // spread over all ep = tp x groups GPUs, the dense weights are read by every group.
  const double groups = static_cast<double>(s.attention_groups);
  t.compute_s = flops / (tp * pp * groups) / rate;
  double bw = s.bandwidth * s.engine.bw_eff * s.vendor.bw_scale;
  // Little's law (Little 1961; for GPUs Volkov 2016, "Understanding Latency Hiding on GPUs",
  // ch. 4): achieved bandwidth = bytes in flight / memory latency. Kernels with a fixed amount of
  // memory-level parallelism (llama.cpp's mat-vec kernels: one small block per row group) reach a
  // ceiling that wide HBM parts cannot lift, so the achieved bandwidth is the lower of the two.
  if (s.engine.bw_cap_bytes_per_s > 0) bw = std::min(bw, s.engine.bw_cap_bytes_per_s);
  // Megatron TP splits weights by tp; KV heads split up to the head count (replicated beyond).
  const double kv_split = static_cast<double>(std::min<int64_t>(s.tp, s.costs.kv_heads));
  const double dense = std::min(weight_bytes, s.costs.dense_weight_bytes);
  const double per_gpu_weights =
      s.attention_groups == 1 ? weight_bytes / (tp * pp)
                              : dense / (tp * pp) + (weight_bytes - dense) / (tp * pp * groups);
  t.memory_s =
      per_gpu_weights / (bw * s.kernel.bw_scale) + other_bytes / (kv_split * pp * groups) / bw;
  if (s.tp > 1) {
    // Megatron-LM TP (Shoeybi et al. 2019, sec. 3): two all-reduces of the hidden states per
    // layer in the forward pass (after attention and after the MLP).
    const double layers = static_cast<double>(s.costs.num_layers) / pp;
    const double bytes = tokens / groups * static_cast<double>(s.costs.hidden) * s.activation_bytes;
    t.comm_s = 2.0 * layers * allreduce_s(bytes, s.tp, s.tp_link);
  }
  t.overhead_s = s.engine.step_overhead_s / pp +
                 s.engine.layer_overhead_s * static_cast<double>(s.costs.num_layers) / pp +
                 (s.pp > 1 ? s.engine.hop_overhead_s : 0.0);
  return t;
}

Phase prefill_time(const InferenceSetup& s, double batch, double prompt) {
  const ModelCosts& c = s.costs;
  const double total = std::max(1.0, batch * prompt);
  const double chunk = std::min(total, s.engine.prefill_chunk_tokens);
  const double chunks = std::ceil(total / chunk);
  const double flops = chunk * (c.matmul_flops_per_token + attention_flops_prefill(c, prompt));
  // Weights once per pass, the new K/V written, hidden states in and out.
  const double other = chunk * (c.kv_bytes_per_token_layer * static_cast<double>(c.num_layers) +
                                c.activation_bytes_per_token);
  Phase ph;
  ph.pass = stage_pass(s, chunk, flops, weight_bytes_read(c, chunk), other);
  const double t = ph.pass.total();
  if (s.pp == 1) {
    ph.seconds = chunks * t;
  } else {
    // Pipelined micro-batches (GPipe, Huang et al. 2019): k chunks through p stages take
    // (k + p - 1) stage times; engines cap the chunks in flight (llama.cpp: 4 copies).
    const double depth = std::min(chunks, s.engine.pipeline_depth);
    const double groups = std::ceil(chunks / depth);
    ph.seconds = groups * (depth + static_cast<double>(s.pp) - 1.0) * t;
  }
  return ph;
}

Phase decode_step(const InferenceSetup& s, double batch, double ctx) {
  const ModelCosts& c = s.costs;
  const double pp = static_cast<double>(s.pp);
  // With pipeline parallelism the batch is split into up to pp micro-batches that keep the
  // stages busy; one stream (or llama.cpp's layer split) visits the stages one after another.
  const double m = s.engine.decode_pipelining ? std::min(batch, pp) : 1.0;
  const double per = batch / m;
  const double flops = per * (c.matmul_flops_per_token + attention_flops_decode(c, ctx));
  const double other = per * (kv_bytes_per_sequence(c, ctx) + c.activation_bytes_per_token);
  Phase ph;
  ph.pass = stage_pass(s, per, flops, weight_bytes_read(c, per), other);
  ph.seconds = std::max(m, pp) * ph.pass.total();
  return ph;
}

}  // namespace gpusizer
