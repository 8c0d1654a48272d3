#include "speed/model_costs.h"

#include "memory/held_layer_bytes.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace gpusizer {
namespace {

// How many layers attend over the whole context, over a sliding window, or not at all (linear
// attention / state-space layers).
void count_layer_spans(const Model& m, ModelCosts& c) {
  const LayerSpans n = layer_spans(m);
  c.full_layers = n.full;
  c.window_layers = n.window;
  c.linear_layers = n.linear;
  c.window = m.sliding_window;
}

// Attention FLOPs per token and context token, and the KV cache bytes per token and layer.
void attention_costs(const Model& m, const NumberFormat& kv, ModelCosts& c) {
  const double kv_bytes = kv.bytes_per_value();
  if (m.mla) {
    // MLA with the absorbed projections (DeepSeek-V2 paper sec. 2.1.2; vLLM MLA backend):
    // scores over kv_lora_rank + rope dims, values over kv_lora_rank, per head; the cache holds
    // the latent and the decoupled RoPE key.
    c.kv_bytes_per_token_layer =
        static_cast<double>(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim) * kv_bytes;
  } else {
    c.kv_bytes_per_token_layer = 2.0 * static_cast<double>(m.kv_width()) * kv_bytes;
  }
  c.linear_state_bytes =
      static_cast<double>(m.linear_state_bytes_per_layer) * static_cast<double>(c.linear_layers);
}

// Attention FLOPs per token and context token in one layer.
void attention_width(const Model& m, ModelCosts& c) {
  if (m.mla) {
    // MLA, absorbed (attention_costs): per head and context token, QK^T over kv_lora_rank + rope
    // dims and PV over kv_lora_rank, 2 FLOPs per multiply-add.
    c.attn_width = 2.0 * static_cast<double>(m.num_heads) *
                   (2.0 * static_cast<double>(m.mla->kv_lora_rank) +
                    static_cast<double>(m.mla->qk_rope_head_dim));
  } else {
    // QK^T and PV each 2 x q_width FLOPs per context token (one multiply-add per query element
    // and key, and per probability and value element): 4 x q_width per token and context token,
    // i.e. 4 s^2 h per layer forward without a mask (Dao et al. 2022, FlashAttention, sec. 4
    // FLOP count; Narayanan et al. 2021 eq. 3: 72 B s L h^2 (1 + s/(6h) + ...) contains
    // 12 B s^2 L h over forward and backward = 3 x 4 B s^2 L h). Kaplan et al. 2020 table 1
    // counts only the scores (2 n_ctx d_attn), half of this.
    c.attn_width = 4.0 * static_cast<double>(m.q_width());
  }
}

// A count given as a fact (hybrid, CV, {"params": N}), with what its fields count split out
// (count_params, model.cc): the routed experts are read apart (c.expert_bytes), the head in its
// head format, the rest whole each pass in the format's dense format (mxfp4: bf16 beside
// experts), as memory keeps them (stored_weights, model_states.cc). The input embedding is a
// lookup, not read whole.
void given_weight_costs(const Model& m, const NumberFormat& weights, const ParamCounts& p,
                        ModelCosts& c) {
  const double routed_bytes = static_cast<double>(p.routed_experts) * weights.bits_per_value / 8.0;
  if (p.routed_experts > 0)
    c.expert_bytes = routed_bytes / static_cast<double>(m.num_moe_layers * m.num_experts);
  // A count smaller than its assumed embedding (a given 0) leaves no layers, not fewer than none.
  const double rest = std::max(0.0, static_cast<double>(p.other));
  c.dense_weight_bytes = rest * weights.dense_bytes_per_value(m.is_moe()) +
                         static_cast<double>(p.lm_head) * weights.lm_head_bytes_per_value();
  c.total_weight_bytes = c.dense_weight_bytes + routed_bytes +
                         static_cast<double>(p.embedding) * weights.embedding_bytes_per_value();
}

// Weight bytes one pass reads (dense part; MoE experts apart) and the model's total, held as the
// memory estimate holds them (stored_weights, src/memory/model_states.cc), so that what decode
// reads and what the memory stores are one figure (the layers by memory::held_layer_bytes, the
// rule both use; model_costs_test.cc checks every catalog model in every weights format).
void weight_costs(const Model& m, const NumberFormat& weights, const ParamCounts& p,
                  const LinearModules& mods, ModelCosts& c) {
  const double body_bits = weights.bits_per_value;
  if (!p.computed && (p.routed_experts > 0 || !m.is_moe())) {
    given_weight_costs(m, weights, p, c);
    return;
  }
  if (!p.computed || mods.empty()) {
    // Counts given as facts whose experts are not known: every active weight is read each pass.
    c.dense_weight_bytes = static_cast<double>(p.active) * body_bits / 8.0;
    c.total_weight_bytes = static_cast<double>(p.total) * body_bits / 8.0;
    return;
  }
  const double experts = static_cast<double>(p.routed_experts);
  const double layer_params = static_cast<double>(p.total - p.embedding - p.lm_head) - experts;
  const double layer_bytes = memory::held_layer_bytes(weights, m.is_moe(), layer_params, mods);
  if (m.is_moe() && experts > 0) {
    c.expert_bytes =
        experts * weights.bytes_per_value() / static_cast<double>(m.num_moe_layers * m.num_experts);
  }
  // The output head reads vocab x hidden every pass, in the format's lm_head format, or the
  // embedding table's rows in its format when the two are tied; the input embedding is a lookup.
  const double embedding_bytes =
      static_cast<double>(p.embedding) * weights.embedding_bytes_per_value();
  const double head_read =
      m.tied_embeddings ? static_cast<double>(m.vocab_size) * static_cast<double>(m.hidden_size) *
                              weights.embedding_bytes_per_value()
                        : static_cast<double>(p.lm_head) * weights.lm_head_bytes_per_value();
  c.dense_weight_bytes = layer_bytes + head_read;
  c.total_weight_bytes = layer_bytes + experts * weights.bytes_per_value() + embedding_bytes +
                         (m.tied_embeddings ? 0.0 : head_read);
}

}  // namespace

ModelCosts model_costs(const Model& m, const NumberFormat& weights, const NumberFormat& kv) {
  return model_costs(m, weights, kv, count_params(m), linear_modules(m));
}

ModelCosts model_flop_costs(const Model& m, const ParamCounts& p, const LinearModules& mods) {
  ModelCosts c;
  c.active_compute_params = static_cast<double>(p.active_compute);
  c.total_params = static_cast<double>(p.total);
  // Forward FLOPs per token = 2 x matmul parameters touched (one multiply-add per weight):
  // Kaplan et al. 2020 "Scaling Laws", sec. 2.1; Chinchilla (Hoffmann et al. 2022) appendix F.
  c.matmul_flops_per_token = 2.0 * c.active_compute_params;
  c.num_layers = m.num_layers;
  c.hidden = m.hidden_size;
  c.heads = m.num_heads;
  c.vocab = m.vocab_size;
  // MLA keeps one latent per token that every tensor-parallel rank holds whole.
  c.kv_heads = m.mla ? 1 : std::max<int64_t>(1, m.num_kv_heads);
  count_layer_spans(m, c);
  attention_width(m, c);
  // Routed experts as the weights' bytes count them: where the model's matrices are listed, or
  // split out of a given count (count_params).
  if (m.is_moe() && ((p.computed && !mods.empty()) || (!p.computed && p.routed_experts > 0))) {
    c.moe_layers = m.num_moe_layers;
    c.experts = m.num_experts;
    c.experts_per_token = m.experts_per_token;
  }
  return c;
}

ModelCosts model_costs(const Model& m, const NumberFormat& weights, const NumberFormat& kv,
                       const ParamCounts& p, const LinearModules& mods) {
  ModelCosts c = model_flop_costs(m, p, mods);
  attention_costs(m, kv, c);
  // Hidden state in and out of each layer plus the MLP intermediate, bf16 (activations never
  // dominate decode traffic; counted so that large batches are not free).
  c.activation_bytes_per_token =
      2.0 * static_cast<double>(m.num_layers) *
      (4.0 * static_cast<double>(m.hidden_size) + 2.0 * static_cast<double>(m.intermediate_size));
  weight_costs(m, weights, p, mods, c);
  return c;
}

double attention_flops_decode(const ModelCosts& c, double ctx) {
  const double windowed = c.window > 0 ? std::min(ctx, static_cast<double>(c.window)) : ctx;
  return c.attn_width * (static_cast<double>(c.full_layers) * ctx +
                         static_cast<double>(c.window_layers) * windowed);
}

double attention_flops_prefill(const ModelCosts& c, double prompt) {
  // Causal mask: token i attends to i tokens, the mean over the prompt is P/2 (FlashAttention-2,
  // Dao 2023, sec. 3.1.1, skips the masked blocks). Window w: mean of min(i, w) over i < P.
  const double full = prompt / 2.0;
  double windowed = full;
  if (c.window > 0 && prompt > static_cast<double>(c.window)) {
    const double w = static_cast<double>(c.window);
    windowed = w - w * w / (2.0 * prompt);
  }
  return c.attn_width * (static_cast<double>(c.full_layers) * full +
                         static_cast<double>(c.window_layers) * windowed);
}

double expected_distinct_experts(double experts, double k, double tokens) {
  // Each token picks k of E experts; with uniform routing an expert stays unused with
  // probability (1 - k/E)^tokens, so E (1 - (1 - k/E)^tokens) are read (balls into bins).
  if (experts <= 0) return 0;
  return experts * (1.0 - std::pow(1.0 - k / experts, std::max(tokens, 0.0)));
}

double weight_bytes_read(const ModelCosts& c, double tokens) {
  double bytes = c.dense_weight_bytes;
  if (c.experts > 0)
    bytes += static_cast<double>(c.moe_layers) * c.expert_bytes *
             expected_distinct_experts(static_cast<double>(c.experts),
                                       static_cast<double>(c.experts_per_token), tokens);
  return bytes;
}

double kv_bytes_per_sequence(const ModelCosts& c, double ctx) {
  const double windowed = c.window > 0 ? std::min(ctx, static_cast<double>(c.window)) : ctx;
  return c.kv_bytes_per_token_layer * (static_cast<double>(c.full_layers) * ctx +
                                       static_cast<double>(c.window_layers) * windowed) +
         c.linear_state_bytes;
}

}  // namespace gpusizer
