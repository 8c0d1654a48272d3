#pragma once
// Serving speed by roofline: each forward pass takes max(FLOPs / achieved compute rate,
// bytes / achieved bandwidth) + tensor-parallel all-reduces + the engine's fixed overheads.
#include <cstdint>
#include <optional>
#include <string>

#include "gpusizer/scenario.h"
#include "gpusizer/speed_profile.h"
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
  double activation_bytes = 2;
  std::string compute_dtype;
};

/// Time split of one pass through one pipeline stage.
struct PassTime {
  double compute_s = 0, memory_s = 0, comm_s = 0, overhead_s = 0;
  double total() const {
    return (compute_s > memory_s ? compute_s : memory_s) + comm_s + overhead_s;
  }
};

/// Resolves the setup; nullopt (with `why`) when the GPU lacks a bandwidth or rate figure.
std::optional<InferenceSetup> inference_setup(const Scenario& s, const SpeedProfile& profile,
                                              std::string& why);

/// Achieved fraction of the tensor rate for a pass of `tokens` tokens:
/// eff(T) = compute_eff_max x T / (T + compute_k_tokens).
double compute_efficiency(const InferenceProfile& p, double tokens);

/// One pass of `tokens` tokens through one stage, given the whole model's FLOPs and bytes.
PassTime stage_pass(const InferenceSetup& s, double tokens, double flops, double weight_bytes,
                    double other_bytes);

struct Phase {
  double seconds = 0;  ///< prefill: the whole batch of prompts; decode: one step of the batch
  PassTime pass;       ///< the limiting pass
};

/// Prefill of `batch` prompts of `prompt` tokens, chunked as the engine does.
Phase prefill_time(const InferenceSetup& s, double batch, double prompt);
/// One decode step of `batch` sequences at context `ctx`.
Phase decode_step(const InferenceSetup& s, double batch, double ctx);

}  // namespace gpusizer
