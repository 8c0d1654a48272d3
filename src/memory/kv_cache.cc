// KV cache: per layer the keys and values of every cached token (Pope et al. 2022, "Efficiently
// Scaling Transformer Inference", sec. 2.1): 2 x kv_heads x head_dim x bytes per token and layer.
#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/text_append.h"
#include "core/text_format.h"
#include "memory/memory_parts.h"
#include "scenario/lookups.h"

namespace gpusizer::memory {

double kv_cache(const Scenario& s, const Catalog& catalog, int64_t sequences, int64_t context,
                Explanations* why) {
  const Model& m = *s.model;
  if (m.is_cv() || sequences <= 0 || context <= 0)
    return explained(0, "no KV cache", "kv_cache_bytes", why);
  const double bytes = s.kv_cache->bytes_per_value();
  const int64_t tp = s.parallel.tp;
  const bool latent_cache = m.mla && engine_profile(s, catalog).caches_mla_latent;
  double per_token_full = 0;  // one token, one full-attention layer, this GPU
  // The text written straight into the basis, clause by clause (issue 18: a string of its own,
  // then copied).
  constexpr BasisKey figure = "kv_cache_bytes";
  const bool text = wants_basis(why);
  if (m.mla && latent_cache) {
    // MLA caches the compressed latent and the decoupled RoPE key (DeepSeek-V2 paper sec. 2.1.2);
    // every TP rank holds the whole latent (vLLM MLA backend).
    per_token_full = static_cast<double>(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim) * bytes;
    if (text)
      set_text(why->basis, figure,
               FMT_COMPILE("L x (kv_lora_rank {} + rope {}) x seq x batch x {:g} B (MLA latent)"),
               m.mla->kv_lora_rank, m.mla->qk_rope_head_dim, bytes);
  } else if (m.mla) {
    // Hugging Face's DeepseekV3Attention caches full per-head keys and values.
    const double heads = std::ceil(static_cast<double>(m.num_heads) / static_cast<double>(tp));
    per_token_full =
        heads *
        static_cast<double>(m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim + m.mla->v_head_dim) *
        bytes;
    if (text)
      why->basis.set(figure,
                     "L x heads x (qk 192 + v 128) x seq x batch x bytes (MLA expanded, HF cache)");
  } else {
    // Each TP rank holds kv_heads/tp heads; when tp exceeds kv_heads the heads are replicated.
    const double heads = std::ceil(static_cast<double>(m.num_kv_heads) / static_cast<double>(tp));
    per_token_full = 2.0 * heads * static_cast<double>(m.head_dim) * bytes;
    const char* kind = m.num_kv_heads == m.num_heads ? "MHA" : m.num_kv_heads == 1 ? "MQA" : "GQA";
    // Formatted only when explaining: numbers only builds no string, not even an empty one.
    if (text)  // appended piece by piece (core/text_append.h, issue 18)
      why->basis.set_with(figure, [&](std::string& out) {
        append_text(out, "2 x L x kv_heads x head_dim x seq x batch x bytes (",
                    std::string_view(kind), "; ", General{bytes}, " B/value");
        if (tp > 1) append_text(out, ", kv_heads/tp=", General{heads});
        out += ')';
      });
  }
  // Layers on the busiest pipeline stage, by kind.
  const int64_t layers_here = (m.num_layers + s.parallel.pp - 1) / s.parallel.pp;
  const double share = static_cast<double>(layers_here) / static_cast<double>(m.num_layers);
  const double window_layers = static_cast<double>(m.num_window_layers) * share;
  const double linear_layers = static_cast<double>(m.num_linear_layers) * share;
  const double full_layers = static_cast<double>(layers_here) - window_layers - linear_layers;
  const double window_tokens = static_cast<double>(
      std::min<int64_t>(context, m.sliding_window > 0 ? m.sliding_window : context));
  double per_sequence =
      per_token_full * (full_layers * static_cast<double>(context) + window_layers * window_tokens);
  if (text && window_layers > 0)
    append_text(why->basis, figure, FMT_COMPILE("; {:g} window layers keep min(seq, {}) tokens"),
                window_layers, m.sliding_window);
  if (linear_layers > 0) {
    // Linear (lightning) attention keeps a heads x head_dim x head_dim fp32 state per layer
    // (MiniMax-01 report, sec. 2.2), whatever the context.
    const double heads = std::ceil(static_cast<double>(m.num_heads) / static_cast<double>(tp));
    per_sequence += linear_layers * heads * static_cast<double>(m.head_dim * m.head_dim) * 4.0;
    if (text)
      append_text(why->basis, figure,
                  FMT_COMPILE("; {:g} linear-attention layers keep a constant fp32 state"),
                  linear_layers);
  }
  return per_sequence * static_cast<double>(sequences);
}

}  // namespace gpusizer::memory
