#pragma once
// Serving speed by roofline, each kind of kernel on its own (PassTime): a forward pass takes
// max(GEMM FLOPs / rate, weight bytes / bandwidth) + max(attention FLOPs / rate, KV bytes /
// bandwidth) + tensor-parallel all-reduces + the engine's fixed overheads.
#include <cstdint>
#include <optional>
#include <string>

#include "gpusizer/scenario.h"
#include "gpusizer/speed_profile.h"
#include "memory/model_counts.h"
#include "speed/collectives.h"
#include "speed/model_costs.h"

namespace gpusizer {

/// Everything a pass-time computation needs, resolved once per scenario.
struct InferenceSetup {
  // Provided, so that the setup made in place (`optional::emplace()`) is not zeroed whole before
  // its members take their initializers (issue 18): every member has one.
  InferenceSetup() {}  // NOLINT(modernize-use-equals-default): `= default` would zero it first
  ModelCosts costs;
  InferenceProfile engine;
  KernelScale kernel;     ///< weight-format kernels (dequantization)
  KernelScale vendor;     ///< GPU vendor software
  double peak_flops = 0;  ///< dense rate of the compute dtype, FLOP/s
  /// Rate of the weight GEMMs where their kernels run on other units than the compute dtype's,
  /// FLOP/s; 0: peak_flops. GGUF integer weights on GPUs without FP16/BF16 tensor cores: the
  /// DP4A int8 rate of llama.cpp's MMVQ and MMQ kernels (set_int8_dot_kernels).
  double gemm_peak_flops = 0;
  /// Passes of up to this many tokens run the GEMMs as mat-vec kernels at a flat share of
  /// gemm_peak_flops, without the tiled GEMM's eff(T) ramp (llama.cpp MMVQ: batch <= 8).
  double matvec_max_tokens = 0;
  /// Rate of those mat-vec passes where their kernel's instructions, not the DP4A rate, bound
  /// them, FLOP/s; 0: gemm_peak_flops (llama.cpp MMVQ's count per format, set_int8_dot_kernels).
  double matvec_peak_flops = 0;
  double bandwidth = 0;  ///< bytes/s, one GPU
  /// A pass's least time a FLOP and a byte (PassTime::floor_s): 1 / the fastest tensor rate of
  /// its kernels (peak_flops or gemm_peak_flops), 1 / bandwidth; 0 without those figures.
  double floor_s_per_flop = 0, floor_s_per_byte = 0;
  int64_t tp = 1, pp = 1, replicas = 1;
  int64_t attention_groups = 1;  ///< ep > tp: groups of tp GPUs splitting the tokens
  Link tp_link;
  Link ep_link;  ///< the slowest hop among the ep = tp x attention_groups GPUs (groups > 1)
  double activation_bytes = 2;
  std::string compute_dtype;
  /// Achieved fraction of the dense rate in the attention kernels (FlashAttention-2/3 by GPU
  /// architecture, data/speed.json attention_kernels).
  double attention_eff = 0.6;
  /// Maximum achievable matmul fraction of this GPU over the table's default (MAMF, measured):
  /// scales the GEMM rate of large (prefill) passes.
  double matmul_scale = 1;
  /// The GEMMs' rate on one tensor-parallel rank over their rate unsplit (tp_gemm_scale).
  double tp_gemm_scale = 1;
  /// Bytes moved per attention-score element per layer when the engine materialises the
  /// scores (llama.cpp without flash attention: KQ written, softmax read and write, KQV read).
  double score_bytes = 0;
  /// KV-cache bytes one decode step reads per byte stored: heads / kv_heads for releases whose
  /// decode attention loads K and V once per query head (data/speed.json), else 1.
  double kv_read_factor = 1;
  /// bitsandbytes kernels (Hugging Face transformers with nf4 or LLM.int8 weights).
  bool bnb = false;
  double bnb_call_overhead_s = 0;     ///< per quantized linear module per pass (host side)
  double bnb_gemv_max_tokens = 0;     ///< passes up to this many tokens use the fused gemv
  double bnb_dequant_bytes = 0;       ///< 16-bit copy written + read per weight, larger passes
  double quantized_linear_calls = 0;  ///< quantized linear modules per forward pass
  double quantized_params = 0;        ///< parameters stored in the quantized format
  double sampler_s_per_row = 0;       ///< the sampler's pass over one sequence's logits
};

/// Time split of one pass through one pipeline stage.
/// Kernels of each kind run one after another within a layer, so each kind meets its own
/// roofline (Williams et al. 2009) and the kinds' times add: the GEMMs are bound by their FLOPs
/// or by the weights they stream, the attention kernels by their FLOPs or by the KV cache they
/// read. A large decode batch makes the GEMMs compute-bound while attention stays bound by the
/// cache, which one roofline over the whole step (the larger of all FLOPs and all bytes) hides.
struct PassTime {
  double compute_s = 0, memory_s = 0;   ///< GEMMs: FLOPs, weight bytes
  double attention_s = 0, cache_s = 0;  ///< attention: FLOPs, KV cache and activation bytes
  double side_s = 0;    ///< kernels of their own: materialised scores, dequantized weight copies
  double logits_s = 0;  ///< the sampler's pass over the sampled sequences' fp32 logits
  double comm_s = 0, overhead_s = 0;
  /// The least time the pass could take on this hardware: its work on one GPU with the FLOPs
  /// (GEMMs and attention) at the GPU's peak rate or the bytes (weights, cache, activations,
  /// materialised scores) at its peak bandwidth, whichever is slower (the roofline, Williams et
  /// al. 2009). No engine is faster.
  double floor_s = 0;
  double gemm_s() const { return compute_s > memory_s ? compute_s : memory_s; }
  double attention_kernel_s() const { return attention_s > cache_s ? attention_s : cache_s; }
  double total() const {
    return gemm_s() + attention_kernel_s() + side_s + logits_s + comm_s + overhead_s;
  }
};

/// Adds to `pass` the logits of `rows` sequences sampled after it: gathered over the TP group
/// and written and read in fp32 by the sampler.
void add_logits(const InferenceSetup& s, double rows, PassTime& pass);

/// Resolves the setup; nullopt (with `why`) when the GPU lacks a bandwidth or rate figure.
std::optional<InferenceSetup> inference_setup(const Scenario& s, const SpeedProfile& profile,
                                              std::string& why);
/// The same with the model already counted (`counts` = count_model(s)).
std::optional<InferenceSetup> inference_setup(const Scenario& s, const SpeedProfile& profile,
                                              const ModelCounts& counts, std::string& why);

/// Achieved fraction of the tensor rate for a pass of `tokens` tokens:
/// A tensor-parallel split's GEMM rate over the unsplit model's: each matrix reaches
/// w / (w + k_width) of the rate, w the narrower of its depth and output width on one rank
/// (column-parallel: out / tp wide; row-parallel: in / tp deep), FLOP-weighted harmonic mean,
/// the column-parallel matrices an engine fuses (q/k/v, gate/up) as one, routed experts (one
/// grouped GEMM) at their unsplit rate; 1 without matrix shapes, at tp 1 or with k_width 0.
double tp_gemm_scale(const LinearModules& modules, const Model& model, int64_t tp, double k_width);
/// eff(T) = compute_eff_max x T / (T + compute_k_tokens).
double compute_efficiency(const InferenceProfile& p, double tokens);

/// One pass of `tokens` tokens through one stage, given the whole model's FLOPs and bytes:
/// `flops` of the GEMMs, `attention_flops` of the attention kernels, and `score_elements`
/// attention scores per layer that the engine materialises (0 with flash attention).
PassTime stage_pass(const InferenceSetup& s, double tokens, double flops, double weight_bytes,
                    double other_bytes, double attention_flops = 0, double score_elements = 0);

struct Phase {
  double seconds = 0;  ///< prefill: the whole batch of prompts; decode: one step of the batch
  PassTime pass;       ///< the limiting pass
  /// The least time the phase could take on this hardware: the passes it cannot take fewer of,
  /// one after another, each at its floor (PassTime::floor_s). A measured rate above seconds /
  /// floor_s times the predicted is not physical (the speed bands hold their highs to it).
  double floor_s = 0;
};

/// Prefill of `batch` prompts of `prompt` tokens, chunked as the engine does.
Phase prefill_time(const InferenceSetup& s, double batch, double prompt);
/// One decode step of `batch` sequences at context `ctx`.
Phase decode_step(const InferenceSetup& s, double batch, double ctx);

}  // namespace gpusizer
