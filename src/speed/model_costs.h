#pragma once
// What one token costs a model in FLOPs and bytes: matmul FLOPs from the active parameter count,
// attention FLOPs over the context, weight bytes read per forward pass (MoE: the experts the batch
// activates), KV-cache bytes per sequence. Pure functions of the architecture and number formats.
#include <cstdint>

#include "gpusizer/catalog.h"
#include "gpusizer/model.h"
#include "gpusizer/number_format.h"

namespace gpusizer {

struct ModelCosts {
  double matmul_flops_per_token = 0;  ///< 2 x active compute params (Kaplan et al. 2020, sec. 2.1)
  double attn_width = 0;  ///< attention FLOPs per token per context token per layer (4 x q_width)
  int64_t full_layers = 0, window_layers = 0, linear_layers = 0;
  int64_t window = 0;
  int64_t num_layers = 0, hidden = 0, kv_heads = 0;
  int64_t heads = 0;              ///< query heads per layer (attention-score rows per token)
  int64_t vocab = 0;              ///< logits per sampled token
  double dense_weight_bytes = 0;  ///< read every pass: all but the routed experts, plus lm_head
  double expert_bytes = 0;        ///< one routed expert of one MoE layer
  double total_weight_bytes = 0;  ///< everything stored, embedding and all experts included
  int64_t moe_layers = 0, experts = 0, experts_per_token = 0;
  double kv_bytes_per_token_layer = 0;    ///< K and V (or MLA latent) of one token in one layer
  double linear_state_bytes = 0;          ///< recurrent state per sequence, all linear layers
  double activation_bytes_per_token = 0;  ///< hidden states written and read per pass
  double active_compute_params = 0;
  double total_params = 0;
};

/// Costs of `model` with weights in `weights` and KV cache in `kv`.
ModelCosts model_costs(const Model& model, const NumberFormat& weights, const NumberFormat& kv);
/// The same from the model's counts, already made (count_params and linear_modules of `model`).
ModelCosts model_costs(const Model& model, const NumberFormat& weights, const NumberFormat& kv,
                       const ParamCounts& params, const LinearModules& modules);

/// The FLOP side of model_costs only: the counts, the layers by span, the attention width and the
/// routed experts (what the training step reads), without the weight, KV and activation bytes.
ModelCosts model_flop_costs(const Model& model, const ParamCounts& params,
                            const LinearModules& modules);

/// Attention FLOPs per token at context `ctx` (decode: ctx = tokens already in the cache).
double attention_flops_decode(const ModelCosts& c, double ctx);
/// Average attention FLOPs per prompt token over a causal prompt of `prompt` tokens.
double attention_flops_prefill(const ModelCosts& c, double prompt);
/// Weight bytes read by one forward pass over `tokens` tokens (distinct experts for MoE).
double weight_bytes_read(const ModelCosts& c, double tokens);
/// Expected distinct experts hit by `tokens` tokens, top-k of E, uniform routing.
double expected_distinct_experts(double experts, double k, double tokens);
/// KV-cache (and recurrent state) bytes of one sequence holding `ctx` tokens.
double kv_bytes_per_sequence(const ModelCosts& c, double ctx);

}  // namespace gpusizer
