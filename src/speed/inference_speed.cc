#include "speed/inference_speed.h"

#include <algorithm>
#include <cmath>

#include "scenario/lookups.h"
#include "speed/gemm_shape.h"

namespace gpusizer {
namespace {

// The bitsandbytes terms, which replace the generic kernel scale: the quantized Linear calls a
// token makes and the parameters they hold.
void set_bitsandbytes(const Model& m, const LinearModules& modules, const BitsandbytesKernel& bnb,
                      InferenceSetup& s) {
  s.bnb = true;
  s.kernel = KernelScale{};
  s.bnb_call_overhead_s = bnb.linear_call_overhead_s;
  s.bnb_gemv_max_tokens = bnb.gemv_max_tokens;
  s.bnb_dequant_bytes = bnb.dequant_bytes_per_param;
  for (const auto& mod : modules) {
    if (mod.role == MatrixRole::kRouter) continue;
    double count = static_cast<double>(mod.count);
    // A token visits k of E experts: k modules of each expert kind per MoE layer.
    if (mod.expert && m.num_experts > 0)
      count *= static_cast<double>(m.experts_per_token) / static_cast<double>(m.num_experts);
    s.quantized_linear_calls += count;
    s.quantized_params +=
        static_cast<double>(mod.in) * static_cast<double>(mod.out) * static_cast<double>(mod.count);
  }
}

// The engine's figures for this scenario: its entry, then a release's own figures (TensorRT-LLM
// 0.6's static-batch GptSession against 1.0's in-flight batching: data/speed.json
// inference.engines.trtllm.releases), then the build for the GPU's vendor (data/speed.json
// inference.engines.vllm.vendors.AMD: vLLM's ROCm build).
InferenceProfile engine_figures(const Scenario& sc, const Gpu& gpu, const SpeedProfile& profile,
                                const ScenarioLookups* l) {
  const InferenceProfile* figures = l ? l->inference : &profile.inference(sc.engine);
  if (figures->has_releases)
    if (const InferenceProfile* r = profile.release(sc.engine, sc.engine_version)) figures = r;
  if (figures->has_vendor_builds)
    if (const InferenceProfile* v = profile.vendor_build(sc.engine, gpu.vendor)) figures = v;
  return *figures;
}

// llama.cpp's mat-vec kernel serves batches of up to this many tokens
// (ggml/src/ggml-cuda/mmvq.cuh MMVQ_MAX_BATCH_SIZE).
constexpr double kMmvqMaxBatch = 8;

// GGUF integer weights (data/formats.csv kind gguf) multiply through llama.cpp's own kernels,
// never through cuBLAS: MMVQ for up to 8 tokens (ggml/src/ggml-cuda/mmvq.cu: the activations
// quantized to q8_1, integer dot products in vecdotq.cuh's vec_dot_*_q8_1 via ggml_cuda_dp4a)
// and MMQ above (mmq.cu ggml_cuda_should_use_mmq: on NVIDIA GPUs without FP16 tensor cores MMQ
// is taken whenever the GPU has DP4A, compute capability >= GGML_CUDA_CC_DP4A = 610, and its
// tiles multiply with the same __dp4a, mmq.cuh vec_dot_*_dp4a). On a GPU without an FP16/BF16
// tensor rate (gpus.csv fp16/bf16 NA: the Tesla P40, FP16 at 1/64 of FP32) those kernels run at
// the DP4A int8 rate on the CUDA cores, the catalog's INT8 column there (4 int8 MACs per lane
// per clock, 4 x FP32), not at the FP32 fallback of dense_flops. A mat-vec reads each weight
// once per pass and is not a tiled tensor-core GEMM: no eff(T) ramp up to the MMVQ batch, the
// pass is bound by its weight bytes (stage_pass). Tensor-core GPUs keep their tensor rate
// (MMQ runs int8 MMA there); F16/F32 weights keep dense_flops' FP32 fallback (cuBLAS SGEMM:
// common.cuh fast_fp16_hardware_available is false for compute capability 6.1).
//
// Those kernels' own work per weight (session 22, data/formats.csv dp4a_*, counted per format from
// llama.cpp's early-2024 ggml-cuda.cu in one SM's 128-lane issue slots, shifts at 2 and
// conversions at 4 slots: CUDA C Programming Guide, arithmetic instruction throughput for compute
// capability 6.1, 64 shifts and 32 conversions per clock per SM against 128 FP32/INT ops).
// MMQ (mul_mat_q with the MMQ_*_PASCAL tiles) is bound by whichever SM pipe saturates first, the
// ALU or the 32 LD/ST units loading the shared-memory tiles (NVIDIA Pascal tuning guide; GP102:
// 4 schedulers x 32 lanes, 32 LD/ST units, 32 banks x 4 B per clock): it reaches
// dp4a / max(alu, lsu) of the DP4A rate, which replaces the gguf dequantization scale fitted on
// tensor-core GPUs. MMVQ (mul_mat_vec_q) spends mmvq cycles per weight and token, each weight
// 2 FLOPs against the DP4A rate's 8 per lane and cycle (__dp4a: four 8-bit multiply-adds, PTX
// ISA dp4a): int8 rate / (4 x cycles) FLOP/s, and its pass is bound by the larger of that and
// its weight bytes (stage_pass).
void set_int8_dot_kernels(const Gpu& gpu, const NumberFormat& weights, InferenceSetup& s) {
  // The GPU's rates first: most GPUs have an FP16 rate and return before the string compare.
  if (gpu.fp16_tflops || gpu.bf16_tflops || !gpu.int8_tops || *gpu.int8_tops <= 0 ||
      weights.kind != "gguf")
    return;
  const double dp4a_rate = *gpu.int8_tops * 1e12;
  s.gemm_peak_flops = dp4a_rate;
  s.matvec_max_tokens = kMmvqMaxBatch;
  const Dp4aKernelCounts& k = weights.dp4a;
  const double mmq_cycles = std::max(k.mmq_alu, k.mmq_lsu);
  if (k.mmq_dp4a <= 0 || mmq_cycles <= 0 || k.mmvq_cycles_per_weight <= 0) return;
  s.gemm_peak_flops = dp4a_rate * std::min(1.0, k.mmq_dp4a / mmq_cycles);
  s.matvec_peak_flops = dp4a_rate / (4.0 * k.mmvq_cycles_per_weight);
  s.kernel.compute_scale = 1;  // the counted unpacking replaces the fitted dequantization scale
}

// The weight GEMMs' rate beyond dense_flops: the fp16-accumulate tensor rate, the DP4A kernels.
void set_gemm_rates(const Gpu& gpu, const NumberFormat& weights, const SpeedProfile& profile,
                    const ScenarioLookups* l, InferenceSetup& s) {
  // Engines whose GEMMs accumulate in fp16 (llama.cpp's cuBLAS path: CUBLAS_COMPUTE_16F for
  // F16 and dequantized weights, ggml-cuda.cu ggml_cuda_op_mul_mat_cublas) get the fp16-accumulate
  // tensor rate, which GeForce cards run at twice the fp32-accumulate rate that gpus.csv stores
  // (Ada whitepaper: RTX 4090 330 vs 165 TFLOPS; GA102 whitepaper: RTX 3090 142 vs 71).
  // A GPU without an FP16 rate (gpus.csv fp16 NA) runs these GEMMs in FP32 (dense_flops' fallback;
  // llama.cpp: cublasSgemm where common.cuh fast_fp16_hardware_available is false): no factor.
  if (s.engine.fp16_accumulate && gpu.fp16_tflops &&
      (s.compute_dtype == "fp16" || s.compute_dtype == "bf16"))
    s.peak_flops *=
        l ? l->fp16_accumulate_factor : profile.fp16_accumulate_factor(gpu.vendor, gpu.segment);
  set_int8_dot_kernels(gpu, weights, s);
}

// A pass's least time a FLOP and a byte (PassTime::floor_s): the fastest rate any of its kernels
// could run at, the tensor rate of its compute dtype or a faster one its weights' GEMMs use (FP8
// on Hopper), and the peak bandwidth.
void set_floor_rates(InferenceSetup& s) {
  s.floor_s_per_flop = 1.0 / std::max(s.peak_flops, s.gemm_peak_flops);
  s.floor_s_per_byte = 1.0 / s.bandwidth;
}

}  // namespace

std::optional<InferenceSetup> inference_setup(const Scenario& sc, const SpeedProfile& profile,
                                              std::string& why) {
  return inference_setup(sc, profile, count_model(sc), why);
}

std::optional<InferenceSetup> inference_setup(const Scenario& sc, const SpeedProfile& profile,
                                              const ModelCounts& counts, std::string& why) {
  // Built in the returned object (every return names `out`, so it is not moved out of a local).
  std::optional<InferenceSetup> out;
  if (!sc.gpu) {
    why = "no gpu given";
    return out;
  }
  const Gpu& gpu = *sc.gpu;
  InferenceSetup& s = out.emplace();
  s.costs = model_costs(*sc.model, *sc.weights, *sc.kv_cache, counts.params, counts.modules);
  // The profile's entries for this engine, GPU and weights, as resolved with the scenario when
  // they are still its own (scenario/lookups.h), else looked up by name.
  const ScenarioLookups* l = speed_lookups(sc, profile);
  s.engine = engine_figures(sc, gpu, profile, l);
  // The engine as launched or built (vLLM --max-num-seqs, TensorRT-LLM max_batch_size) runs at
  // most that many sequences a step, in place of its default.
  if (sc.max_num_seqs > 0) s.engine.max_num_seqs = static_cast<double>(sc.max_num_seqs);
  s.kernel =
      l ? l->weight_kernel : profile.weight_kernel(sc.weights->kind, sc.weights->bits_per_value);
  s.vendor = l ? l->vendor : profile.vendor(gpu.vendor);
  // Assigned without a temporary string (a ternary of "bf16" and a string would build one).
  if (sc.weights->compute_dtype.empty())
    s.compute_dtype = "bf16";
  else
    s.compute_dtype = sc.weights->compute_dtype;
  const auto flops = gpu.dense_flops(s.compute_dtype);
  if (!flops || *flops <= 0 || !gpu.memory_bandwidth_gbps || *gpu.memory_bandwidth_gbps <= 0) {
    why =
        "the GPU catalog lacks a " + s.compute_dtype + " rate or a memory bandwidth for " + gpu.id;
    out.reset();
    return out;
  }
  s.peak_flops = *flops;
  set_gemm_rates(gpu, *sc.weights, profile, l, s);
  s.bandwidth = *gpu.memory_bandwidth_gbps * 1e9;
  set_floor_rates(s);
  // The resolved layout (Scenario::replica_gpus): speed reads it, never re-derives it.
  s.tp = std::max<int64_t>(1, sc.parallel.tp);
  s.pp = std::max<int64_t>(1, sc.parallel.pp);
  s.attention_groups = sc.attention_groups();
  s.replicas = std::max<int64_t>(1, sc.parallel.dp);
  s.tp_link = group_link(gpu, s.tp, sc.gpus_per_node, profile.links());
  if (s.attention_groups > 1)
    s.ep_link = group_link(gpu, s.tp * s.attention_groups, sc.gpus_per_node, profile.links());
  s.activation_bytes = profile.links().activation_bytes;
  s.tp_gemm_scale = tp_gemm_scale(counts.modules, *sc.model, s.tp, s.engine.gemm_k_width);
  // Attention kernels' achieved fraction of the dense rate (data/speed.json attention_kernels).
  s.attention_eff = l ? l->attention_efficiency
                      : profile.attention_efficiency(sc.engine, gpu.architecture_family());
  // Large GEMMs stop at the GPU's maximum achievable matmul rate (MAMF, measured by shape
  // search; data/speed.json achievable_matmul), relative to the default the engines' compute
  // efficiencies were fitted at: the same table the training estimate uses.
  const double mamf_default = l ? l->matmul_fraction_default : profile.matmul_fraction("");
  if (mamf_default > 0)
    s.matmul_scale = (l ? l->matmul_fraction : profile.matmul_fraction(gpu.id)) / mamf_default;
  // Engines that materialise the attention scores (llama.cpp without flash attention builds
  // KQ = K^T Q in f32, soft_max_ext reads and writes it, and KQV reads it: llama-graph.cpp
  // build_attn_mha) move score_bytes_per_element bytes per score per layer.
  if (!sc.training.flash_attention) s.score_bytes = s.engine.score_bytes_per_element;
  // Releases whose generation-phase attention gives each query head its own pass over the
  // cache (TensorRT-LLM's masked MHA kernel before its MQA/GQA optimisation and the XQA kernel
  // for FP8 KV, release notes 0.7.1) read a grouped-query cache heads / kv_heads times.
  if (s.engine.kv_read_per_query_head && !sc.model->mla && s.costs.kv_heads > 0 &&
      s.costs.heads > s.costs.kv_heads)
    s.kv_read_factor = static_cast<double>(s.costs.heads) / static_cast<double>(s.costs.kv_heads);
  // bitsandbytes (transformers' BitsAndBytesConfig: nf4 Linear4bit, LLM.int8 Linear8bitLt).
  if (const BitsandbytesKernel* bnb =
          l ? l->bitsandbytes : profile.bitsandbytes(sc.engine, sc.weights->id)) {
    set_bitsandbytes(*sc.model, counts.modules, *bnb, s);
  }
  // The sampler works on fp32 logits (vllm/v1/sample/sampler.py logits.to(torch.float32);
  // TensorRT-LLM's float32 logits_dtype), written once and read at least once: 8 B per logit.
  s.sampler_s_per_row = static_cast<double>(s.costs.vocab) * 8.0 /
                        (s.bandwidth * s.engine.bw_eff * s.vendor.bw_scale);
  return out;
}

double tp_gemm_scale(const LinearModules& modules, const Model& model, int64_t tp, double k_width) {
  if (tp <= 1 || k_width <= 0 || modules.empty()) return 1;
  // Narrow GEMMs fill fewer of the GPU's tiles and waves and amortise each tile's prologue over
  // less depth (NVIDIA Deep Learning Performance guide, "Matrix Multiplication Background":
  // tile and wave quantization); Megatron's split (Shoeybi et al. 2019, sec. 3) narrows the
  // output of column-parallel matrices (q/k/v, gate/up, the head) and the depth of row-parallel
  // ones (o_proj, down_proj) by tp. Routed experts count at experts_per_token / experts, at
  // their unsplit rate (below).
  // Serving engines fuse the column-parallel matrices that read the same input into one GEMM
  // (q/k/v: vLLM's QKVParallelLinear, TensorRT-LLM's fused QKV; gate/up:
  // MergedColumnParallelLinear, the fused gated MLP): modules listed one after another, column
  // roles, same input width, count and kind, count as one matrix with their outputs summed.
  const double t = static_cast<double>(tp);
  double split = 0, whole = 0;
  const auto add = [&](const LinearModule& mod, double out) {
    const double n = static_cast<double>(mod.in) * out * static_cast<double>(mod.count) *
                     active_share(mod, model);
    const double in = static_cast<double>(mod.in);
    // Routed experts run as one grouped GEMM over every expert (TensorRT-LLM's and vLLM's fused
    // MoE kernels), whose tiles fill the GPU together however narrow each expert is on a rank.
    const double narrow = mod.expert                     ? std::min(in, out)
                          : mod.role == MatrixRole::kRow ? std::min(in / t, out)
                                                         : std::min(in, out / t);
    split += n / gemm_size_eff(narrow, k_width);
    whole += n / gemm_size_eff(std::min(in, out), k_width);
  };
  const LinearModule* run = nullptr;  // the fused group being summed
  double run_out = 0;
  for (const LinearModule& mod : modules) {
    if (mod.role == MatrixRole::kRouter) continue;
    if (run && mod.role == MatrixRole::kColumn && run->role == MatrixRole::kColumn &&
        mod.in == run->in && mod.count == run->count && mod.expert == run->expert &&
        mod.attention == run->attention) {
      run_out += static_cast<double>(mod.out);
      continue;
    }
    if (run) add(*run, run_out);
    run = &mod;
    run_out = static_cast<double>(mod.out);
  }
  if (run) add(*run, run_out);
  return split > 0 ? whole / split : 1;
}

double compute_efficiency(const InferenceProfile& p, double tokens) {
  // Saturating curve: small passes are latency/bandwidth bound inside the GEMM and reach a
  // small share of the tensor rate; large ones approach compute_eff_max.
  return p.compute_eff_max * tokens / (tokens + p.compute_k_tokens);
}

namespace {

// A pass's collectives on one stage: the tensor-parallel all-reduces and, with attention data
// parallelism, the MoE layers' exchange between the groups.
double pass_collectives_s(const InferenceSetup& s, double tokens) {
  const double pp = static_cast<double>(s.pp), groups = static_cast<double>(s.attention_groups);
  double seconds = 0;
  if (s.tp > 1) {
    // Megatron-LM TP (Shoeybi et al. 2019, sec. 3): two all-reduces of the hidden states per
    // layer in the forward pass (after attention and after the MLP).
    const double layers = static_cast<double>(s.costs.num_layers) / pp;
    const double bytes = tokens / groups * static_cast<double>(s.costs.hidden) * s.activation_bytes;
    seconds = 2.0 * layers * allreduce_s(bytes, s.tp, s.tp_link);
  }
  if (s.attention_groups > 1 && s.costs.moe_layers > 0) {
    // Attention data parallelism under expert parallelism: each MoE layer gathers every group's
    // hidden states to all ranks (dispatch) and reduce-scatters the expert outputs back
    // (combine): vLLM's default all2all backend, allgather_reducescatter
    // (vllm/distributed/device_communicators/all2all.py, AgRsAll2AllManager: all_gatherv and
    // reduce_scatterv over the data-parallel group), and TensorRT-LLM's attention-DP MoE path.
    // A ring all-gather plus a reduce-scatter of the pass's tokens over the groups moves the
    // bytes of one ring all-reduce of them (Patarasuk and Yuan 2009).
    const double moe_layers = static_cast<double>(s.costs.moe_layers) / pp;
    const double bytes = tokens * static_cast<double>(s.costs.hidden) * s.activation_bytes;
    seconds += moe_layers * allreduce_s(bytes, s.attention_groups, s.ep_link);
  }
  return seconds;
}

}  // namespace

PassTime stage_pass(const InferenceSetup& s, double tokens, double flops, double weight_bytes,
                    double other_bytes, double attention_flops, double score_elements) {
  PassTime t;
  const double tp = static_cast<double>(s.tp), pp = static_cast<double>(s.pp);
  // Mat-vec passes (set_int8_dot_kernels) at the asymptote of eff(T): their time is the weight
  // bytes', the FLOPs only bound a pass the kernel's arithmetic cannot keep up with (MMVQ's
  // counted instructions per weight on the CUDA cores: matvec_peak_flops).
  const bool matvec = tokens <= s.matvec_max_tokens;
  const double eff = matvec ? s.engine.compute_eff_max : compute_efficiency(s.engine, tokens);
  double peak = s.gemm_peak_flops > 0 ? s.gemm_peak_flops : s.peak_flops;
  if (matvec && s.matvec_peak_flops > 0) peak = s.matvec_peak_flops;
  double rate = peak * eff * s.kernel.compute_scale * s.vendor.compute_scale * s.matmul_scale *
                s.tp_gemm_scale;
  // An engine's own kernel ceiling combines harmonically with the GPU's achieved rate.
  if (s.engine.compute_cap_flops > 0) rate = 1.0 / (1.0 / rate + 1.0 / s.engine.compute_cap_flops);
  // Attention data-parallel groups (ep > tp) split the pass's tokens; the routed experts are
  // spread over all ep = tp x groups GPUs, the dense weights are read by every group.
  const double groups = static_cast<double>(s.attention_groups);
  const double gemm_flops = flops / (tp * pp * groups);  // one GPU's
  t.compute_s = gemm_flops / rate;
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
  t.memory_s = per_gpu_weights / (bw * s.kernel.bw_scale);
  const double cache_bytes = other_bytes / (kv_split * pp * groups);  // one GPU's
  t.cache_s = cache_bytes / bw;
  // Attention: FlashAttention-style kernels at their own achieved rate, bound by their FLOPs or
  // by the cache they stream (PassTime), plus the traffic of materialised scores where the
  // engine builds them (bandwidth-bound soft-max kernels of their own).
  const double attn_rate = s.peak_flops * s.attention_eff * s.vendor.compute_scale;
  if (attention_flops > 0 && attn_rate > 0)
    t.attention_s = attention_flops / (tp * pp * groups) / attn_rate;
  if (score_elements > 0 && s.score_bytes > 0)
    t.side_s = score_elements * s.score_bytes / (tp * pp * groups) / bw;
  if (s.bnb) {
    // bitsandbytes: each quantized Linear costs a fixed host-side dispatch (Python, quant-state
    // handling, several kernel launches; bitsandbytes/nn/modules.py Linear4bit.forward,
    // autograd/_functions.py matmul_4bit / MatMul8bitLt). Passes of more than gemv_max_tokens
    // tokens dequantize each weight to a 16-bit copy (written, then read by the cuBLAS GEMM:
    // functional.dequantize_4bit in MatMul4Bit.forward) instead of the fused 4-bit gemv.
    if (tokens > s.bnb_gemv_max_tokens && s.bnb_dequant_bytes > 0)
      t.side_s += s.quantized_params * s.bnb_dequant_bytes / (tp * pp) / bw;
  }
  // The floor leaves out the scores and copies an engine chooses to make: still a floor.
  t.floor_s = std::max((gemm_flops + attention_flops / (tp * pp * groups)) * s.floor_s_per_flop,
                       (per_gpu_weights + cache_bytes) * s.floor_s_per_byte);
  t.comm_s = pass_collectives_s(s, tokens);
  t.overhead_s = s.engine.step_overhead_s / pp +
                 s.engine.layer_overhead_s * static_cast<double>(s.costs.num_layers) / pp +
                 (s.pp > 1 ? s.engine.hop_overhead_s : 0.0);
  if (s.bnb) t.overhead_s += s.bnb_call_overhead_s * s.quantized_linear_calls / pp;
  return t;
}

void add_logits(const InferenceSetup& s, double rows, PassTime& pass) {
  if (!(rows > 0)) return;
  // Attention data-parallel groups sample their own sequences.
  const double per_group =
      s.attention_groups == 1 ? rows : rows / static_cast<double>(s.attention_groups);
  // The output head is column-parallel over the vocabulary (Megatron's vocab split): the
  // sampling rank gathers every rank's share of rows x vocab in the activation dtype, a ring
  // all-gather's bytes into it (TensorRT-LLM: the lm_head ColumnLinear with gather_output=True
  // in tensorrt_llm/models/llama/model.py; vLLM: LogitsProcessor._gather_logits). The sampler
  // then works on fp32 logits (sampler_s_per_row).
  if (s.tp > 1)
    pass.comm_s += allgather_s(per_group * static_cast<double>(s.costs.vocab) * s.activation_bytes,
                               s.tp, s.tp_link);
  pass.logits_s += per_group * s.sampler_s_per_row;
}

namespace {

// One prefill chunk of `chunk` tokens whose queries attend to `keys` cached keys on average
// (flash kernels, which skip the masked blocks) or, where the engine materialises the scores,
// compute against all `n_kv` cached keys (the mask applied in the soft-max).
PassTime prefill_chunk_pass(const InferenceSetup& s, double chunk, double keys, double n_kv) {
  const ModelCosts& c = s.costs;
  const double flops = chunk * c.matmul_flops_per_token;
  double attention = chunk * attention_flops_decode(c, keys);
  double scores = 0;
  if (s.score_bytes > 0) {
    attention = chunk * attention_flops_decode(c, n_kv);
    scores = chunk * n_kv * static_cast<double>(c.heads) *
             static_cast<double>(c.full_layers + c.window_layers);
  }
  // Weights once per pass, the new K/V written, hidden states in and out.
  const double other = chunk * (c.kv_bytes_per_token_layer * static_cast<double>(c.num_layers) +
                                c.activation_bytes_per_token);
  return stage_pass(s, chunk, flops, weight_bytes_read(c, chunk), other, attention, scores);
}

// The pipeline's drain: what the last chunk of each group of `depth` chunks adds crossing the
// other pp - 1 stages. With chunks of one prompt, later chunks attend to more keys and take
// longer, and a group's last one, its slowest, sets the drain: a pipeline of items whose times
// grow ends sum(t_i) + (pp - 1) t_last after it starts (the first stage runs the items back to
// back, the last item then crosses the rest). Its time is taken linear in the chunk's index
// between the prompt's first and last chunks, which holds while each pass stays on one side of
// its rooflines.
double drain_seconds(const InferenceSetup& s, double batch, double prompt, double chunk,
                     double chunks, double depth, double even_pass) {
  const double groups = std::ceil(chunks / depth);
  const double stages = static_cast<double>(s.pp) - 1.0;
  if (batch > 1.0 || chunks < 2.0) return stages * groups * even_pass;
  PassTime first = prefill_chunk_pass(s, chunk, chunk / 2.0, chunk);
  PassTime last = prefill_chunk_pass(s, chunk, prompt - chunk / 2.0, prompt);
  add_logits(s, batch / chunks, first);
  add_logits(s, batch / chunks, last);
  const double t_first = first.total(), t_last = last.total();
  double sum = 0;
  for (int64_t g = 1; g <= static_cast<int64_t>(groups); ++g) {
    const double index = std::min(static_cast<double>(g) * depth, chunks) - 1.0;
    sum += t_first + (t_last - t_first) * index / (chunks - 1.0);
  }
  return stages * sum;
}

}  // namespace

Phase prefill_time(const InferenceSetup& s, double batch, double prompt) {
  const ModelCosts& c = s.costs;
  const double total = std::max(1.0, batch * prompt);
  const double chunk = std::min(total, s.engine.prefill_chunk_tokens);
  const double chunks = std::ceil(total / chunk);
  // Causal attention, 2 s^2 h FLOPs per layer over a prompt of s tokens (attention_flops_prefill)
  // for flash kernels. Engines that materialise the scores compute every query of a chunk against
  // all n_kv cached keys: n_kv is (prompt + chunk) / 2 on average over the chunks.
  Phase ph;
  if (s.score_bytes > 0) {
    const double n_kv = std::min(prompt, (prompt + std::min(chunk, prompt)) / 2.0);
    ph.pass = prefill_chunk_pass(s, chunk, 0, n_kv);
  } else {
    ph.pass = stage_pass(s, chunk, chunk * c.matmul_flops_per_token, weight_bytes_read(c, chunk),
                         chunk * (c.kv_bytes_per_token_layer * static_cast<double>(c.num_layers) +
                                  c.activation_bytes_per_token),
                         chunk * attention_flops_prefill(c, prompt), 0);
  }
  // Each chunk's sequences are sampled once their prompt is through: batch rows over the chunks.
  add_logits(s, batch / chunks, ph.pass);
  const double t = ph.pass.total();
  ph.floor_s = chunks * ph.pass.floor_s;  // each chunk's pass through each stage
  if (s.pp == 1) {
    ph.seconds = chunks * t;
  } else {
    // Pipelined micro-batches (GPipe, Huang et al. 2019): the chunks pass through the first
    // stage one after another and each group of those in flight drains through the rest;
    // engines cap the chunks in flight (llama.cpp: 4 copies), and a group waits for the one
    // before it. Equal chunks give (k + p - 1) stage times a group.
    const double depth = std::min(chunks, s.engine.pipeline_depth);
    ph.seconds = chunks * t + drain_seconds(s, batch, prompt, chunk, chunks, depth, t);
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
  const double flops = per * c.matmul_flops_per_token;
  const double attention = per * attention_flops_decode(c, ctx);
  const double scores = s.score_bytes > 0 ? per * ctx * static_cast<double>(c.heads) *
                                                static_cast<double>(c.full_layers + c.window_layers)
                                          : 0.0;
  const double other =
      per * (kv_bytes_per_sequence(c, ctx) * s.kv_read_factor + c.activation_bytes_per_token);
  Phase ph;
  ph.pass = stage_pass(s, per, flops, weight_bytes_read(c, per), other, attention, scores);
  add_logits(s, per, ph.pass);
  ph.seconds = std::max(m, pp) * ph.pass.total();
  // A token crosses every stage, and each stage runs its m micro-batches one after another.
  ph.floor_s = std::max(m, pp) * ph.pass.floor_s;
  return ph;
}

}  // namespace gpusizer
