#pragma once
// Serving speed by roofline: each forward pass takes max(FLOPs / achieved compute rate,
// bytes / achieved bandwidth) + tensor-parallel all-reduces + the engine's fixed overheads.
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
  ModelCosts costs;
  InferenceProfile engine;
  KernelScale kernel;     ///< weight-format kernels (dequantization)
  KernelScale vendor;     ///< GPU vendor software
  double peak_flops = 0;  ///< dense rate of the compute dtype, FLOP/s
  double bandwidth = 0;   ///< bytes/s, one GPU
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
};

/// Time split of one pass through one pipeline stage.
struct PassTime {
  double compute_s = 0, memory_s = 0, comm_s = 0, overhead_s = 0;
  /// Attention kernels and materialised-score traffic: separate kernels that run after the
  /// GEMMs of each layer, so their time adds to the GEMMs' rather than overlapping them.
  double attention_s = 0;
  double total() const {
    return (compute_s > memory_s ? compute_s : memory_s) + attention_s + comm_s + overhead_s;
  }
};

/// Resolves the setup; nullopt (with `why`) when the GPU lacks a bandwidth or rate figure.
std::optional<InferenceSetup> inference_setup(const Scenario& s, const SpeedProfile& profile,
                                              std::string& why);
/// The same with the model already counted (`counts` = count_model(s)).
std::optional<InferenceSetup> inference_setup(const Scenario& s, const SpeedProfile& profile,
                                              const ModelCounts& counts, std::string& why);

/// Achieved fraction of the tensor rate for a pass of `tokens` tokens:
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
};

/// Prefill of `batch` prompts of `prompt` tokens, chunked as the engine does.
Phase prefill_time(const InferenceSetup& s, double batch, double prompt);
/// One decode step of `batch` sequences at context `ctx`.
Phase decode_step(const InferenceSetup& s, double batch, double ctx);

}  // namespace gpusizer
