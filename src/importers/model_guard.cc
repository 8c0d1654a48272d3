#include "importers/model_guard.h"

#include "gpusizer/error.h"

namespace gpusizer {

void check_countable(const Model& m, const std::string& where, const std::string& code) {
  // Every product count_params forms is bounded by one of these terms (all factors >= 1, or the
  // product is 0), so bounding their sum in floating point bounds every int64 intermediate.
  auto p = [](auto... v) { return (1.0 * ... * static_cast<double>(v)); };
  const double d = static_cast<double>(m.hidden_size);
  double n = p(2, m.vocab_size, d) + p(m.vocab_size, 1) + p(m.learned_pos_embeddings, d);
  for (const auto& mod : linear_modules(m)) n += p(mod.in, mod.out, mod.count);
  n += p(m.num_layers, m.num_heads, m.head_dim, 4) + p(m.num_layers, m.num_kv_heads, m.head_dim, 4);
  n += p(m.num_layers, m.norms_per_layer + m.extra_embed_norms + 1, 2, d);
  n +=
      p(m.num_layers, 3, d, m.intermediate_size) + p(m.num_layers, 3, d, m.dense_intermediate_size);
  n += p(m.num_moe_layers, m.num_experts, 3, d, m.moe_intermediate_size) +
       p(m.num_moe_layers, m.num_experts, 2, m.moe_intermediate_size + m.hidden_size);
  n += p(m.num_moe_layers, 3, d, m.shared_expert_intermediate_size);
  if (m.mla)
    n += p(m.num_layers, m.mla->q_lora_rank + m.mla->kv_lora_rank + 1, m.num_heads,
           m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim + m.mla->v_head_dim + 1, d);
  if (!(n < 1e16))
    throw InputError(where, "sizes give more than 1e16 parameters; not a real model", code);
}

}  // namespace gpusizer
