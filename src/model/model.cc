// Parameter counting from the architecture. Layout and formulas: docs/models-catalog-notes.md
// sec. 3, which follows the Hugging Face module layout (modeling_llama.py, modeling_deepseek_v3.py,
// modeling_gpt_oss.py, ...) and reproduces every exact published count in the catalog.
#include "gpusizer/model.h"

#include <algorithm>
#include <string_view>

namespace gpusizer {
namespace {

int64_t norm_params(const Model& m) {
  return m.layer_norm ? 2 * m.hidden_size : m.hidden_size;
}

bool has_matrices(const Model& m) {
  return !m.is_cv() && m.hidden_size != 0;
}

// The attention projections of one layer in the order linear_modules lists them: `matrix(name,
// in, out, role)` for each. One definition for the module list and for count_params' arithmetic
// sum.
template <typename Matrix>
void each_attention_matrix(const Model& m, Matrix&& matrix) {
  const int64_t d = m.hidden_size;
  if (m.mla) {
    const MlaDims& a = *m.mla;
    const int64_t qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    if (a.q_lora_rank > 0) {
      matrix("q_a_proj", d, a.q_lora_rank, MatrixRole::kColumn);
      matrix("q_b_proj", a.q_lora_rank, m.num_heads * qk, MatrixRole::kColumn);
    } else {
      matrix("q_proj", d, m.num_heads * qk, MatrixRole::kColumn);
    }
    matrix("kv_a_proj_with_mqa", d, a.kv_lora_rank + a.qk_rope_head_dim, MatrixRole::kColumn);
    matrix("kv_b_proj", a.kv_lora_rank, m.num_heads * (a.qk_nope_head_dim + a.v_head_dim),
           MatrixRole::kColumn);
    matrix("o_proj", m.num_heads * a.v_head_dim, d, MatrixRole::kRow);
  } else {
    matrix("q_proj", d, m.q_width(), MatrixRole::kColumn);
    matrix("k_proj", d, m.kv_width(), MatrixRole::kColumn);
    matrix("v_proj", d, m.kv_width(), MatrixRole::kColumn);
    matrix("o_proj", m.q_width(), d, MatrixRole::kRow);
  }
}

// The attention projections, the first modules linear_modules lists.
void add_attention_modules(const Model& m, LinearModules& mods) {
  each_attention_matrix(m, [&](std::string_view name, int64_t in, int64_t out, MatrixRole role) {
    mods.push_back({name, in, out, m.num_layers, false, true, role});
  });
}

// The weights of those projections in one layer, summed without listing the modules: count_params
// runs on every estimate, and building the list to sum it cost a third of it (issue 18).
int64_t attention_matrix_params(const Model& m) {
  int64_t n = 0;
  if (has_matrices(m))
    each_attention_matrix(
        m, [&](std::string_view, int64_t in, int64_t out, MatrixRole) { n += in * out; });
  return n;
}

// Attention projections of one layer, including biases, QK-norms and sinks.
int64_t attention_params_per_layer(const Model& m) {
  const int64_t d = m.hidden_size;
  int64_t n = attention_matrix_params(m);
  if (m.mla) {
    // q_a_layernorm and kv_a_layernorm (DeepseekV3Attention).
    n += m.mla->q_lora_rank + m.mla->kv_lora_rank;
  } else {
    if (m.qkv_bias) n += m.q_width() + 2 * m.kv_width();
    if (m.qk_norm == "per_head") n += 2 * m.head_dim;               // Qwen3, Gemma 3
    if (m.qk_norm == "per_layer") n += m.q_width() + m.kv_width();  // MiniMax-M2
  }
  if (m.o_bias) n += d;
  if (m.attention_sinks) n += m.num_heads;  // gpt-oss learned sinks
  return n;
}

int64_t mlp_params(const Model& m, int64_t ff) {
  const int64_t d = m.hidden_size;
  if (m.gated_mlp) return 3 * d * ff + (m.mlp_bias ? 2 * ff + d : 0);
  return 2 * d * ff + (m.mlp_bias ? ff + d : 0);
}

// The routed experts of all MoE layers: gate, up and down projections (and their biases) of every
// expert (MixtralSparseMoeBlock, DeepseekV3MoE, MiniMaxM1SparseMoeBlock).
int64_t routed_expert_params(const Model& m) {
  const int64_t d = m.hidden_size, ffe = m.moe_intermediate_size;
  const int64_t per_expert = 3 * d * ffe + (m.expert_bias ? 2 * ffe + d : 0);
  return m.num_moe_layers * m.num_experts * per_expert;
}

// A count given as a fact (a hybrid whose attention blocks the fields do not describe) still has
// parts the fields do describe exactly: the routed experts of an MoE model and an untied output
// head. They are split out of `other` so that a format applies to each as it does to a counted
// model (mxfp4 quantizes the routed experts only; a head keeps the format's head format) and
// expert parallelism has experts to shard. MiniMax-M1-80k: 80 x 32 x 3 x 6144 x 9216 =
// 434,865,438,720 of its given 456B, and a 200,064 x 6144 head. Split only where they fit in the
// given total beside the embedding (else the fields and the count disagree, and nothing is split).
void split_given_count(const Model& m, ParamCounts& c) {
  const int64_t experts = m.is_moe() && m.num_moe_layers > 0 ? routed_expert_params(m) : 0;
  const int64_t head = m.tied_embeddings ? 0 : m.vocab_size * m.hidden_size;
  if (experts < 0 || head < 0 || experts + head > c.other) return;
  c.routed_experts = experts;
  c.lm_head = head;
  c.other -= experts + head;
}

}  // namespace

LinearModules linear_modules(const Model& m) {
  LinearModules mods;
  if (!has_matrices(m)) return mods;
  const int64_t d = m.hidden_size, L = m.num_layers;
  add_attention_modules(m, mods);
  const int64_t dense_layers = m.is_moe() ? m.num_dense_layers : L;
  const int64_t dense_ff =
      m.is_moe() && m.dense_intermediate_size > 0 ? m.dense_intermediate_size : m.intermediate_size;
  if (dense_layers > 0) {
    if (m.gated_mlp) {
      mods.push_back({"gate_proj", d, dense_ff, dense_layers, false, false});
      mods.push_back({"up_proj", d, dense_ff, dense_layers, false, false});
    } else {
      mods.push_back({"up_proj", d, dense_ff, dense_layers, false, false});
    }
    mods.push_back({"down_proj", dense_ff, d, dense_layers, false, false, MatrixRole::kRow});
  }
  if (m.is_moe() && m.num_moe_layers > 0) {
    const int64_t n = m.num_moe_layers * m.num_experts, ffe = m.moe_intermediate_size;
    mods.push_back({"experts.gate_proj", d, ffe, n, true, false});
    mods.push_back({"experts.up_proj", d, ffe, n, true, false});
    mods.push_back({"experts.down_proj", ffe, d, n, true, false, MatrixRole::kRow});
    if (m.shared_expert_intermediate_size > 0) {
      const int64_t ffs = m.shared_expert_intermediate_size;
      mods.push_back({"shared_experts.gate_proj", d, ffs, m.num_moe_layers, false, false});
      mods.push_back({"shared_experts.up_proj", d, ffs, m.num_moe_layers, false, false});
      mods.push_back(
          {"shared_experts.down_proj", ffs, d, m.num_moe_layers, false, false, MatrixRole::kRow});
    }
    mods.push_back(
        {"router", d, m.num_experts, m.num_moe_layers, false, false, MatrixRole::kRouter});
  }
  return mods;
}

ParamCounts count_params(const Model& m) {
  ParamCounts c;
  if (m.given_params) {
    c.computed = false;
    c.total = *m.given_params;
    c.active = m.given_active_params.value_or(c.total);
    const int64_t embedding = m.vocab_size * m.hidden_size;
    c.embedding = embedding;
    c.other = c.total - embedding;
    c.active_compute = c.active - embedding > 0 ? c.active - embedding : c.active;
    split_given_count(m, c);
    return c;
  }
  const int64_t d = m.hidden_size, L = m.num_layers;
  c.embedding = m.vocab_size * d + m.learned_pos_embeddings * d;
  c.lm_head = (m.tied_embeddings ? 0 : m.vocab_size * d) + (m.lm_head_bias ? m.vocab_size : 0);
  c.attention = attention_params_per_layer(m) * L;
  const int64_t dense_layers = m.is_moe() ? m.num_dense_layers : L;
  const int64_t dense_ff =
      m.is_moe() && m.dense_intermediate_size > 0 ? m.dense_intermediate_size : m.intermediate_size;
  c.dense_mlp = dense_layers * mlp_params(m, dense_ff);
  if (m.is_moe()) {
    c.routed_experts = routed_expert_params(m);
    c.shared_experts = m.num_moe_layers * 3 * d * m.shared_expert_intermediate_size;
    c.router = m.num_moe_layers * (d * m.num_experts + (m.router_bias ? m.num_experts : 0));
  }
  c.norms = L * m.norms_per_layer * norm_params(m) + norm_params(m) +
            m.extra_embed_norms * norm_params(m);
  c.total = c.embedding + c.lm_head + c.attention + c.dense_mlp + c.routed_experts +
            c.shared_experts + c.router + c.norms;
  const int64_t routed_active =
      m.is_moe() ? c.routed_experts / m.num_experts * m.experts_per_token : 0;
  c.active = c.total - c.routed_experts + routed_active;
  c.active_compute = c.active - c.embedding;
  return c;
}

AttentionSpan layer_span(const Model& m, int64_t layer) {
  // Spread the special layers evenly; the per-family order (Gemma 3's 5:1, gpt-oss's
  // alternation) does not change any total, only which pipeline stage holds them.
  auto spread = [&](int64_t special) {
    return special > 0 && (layer + 1) * special / m.num_layers > layer * special / m.num_layers;
  };
  if (spread(m.num_linear_layers)) return AttentionSpan::kLinear;
  if (m.num_linear_layers == 0 && spread(m.num_window_layers)) return AttentionSpan::kWindow;
  return AttentionSpan::kFull;
}

LayerSpans layer_spans(const Model& m) {
  // layer_span's spread marks the layers where floor(l x s / L) steps up. For 0 < s <= L it
  // steps by 0 or 1 from 0 to s, so s layers are marked; for s > L it steps at every layer.
  LayerSpans n;
  if (m.num_layers <= 0) return n;
  auto marked = [&](int64_t special) { return special > 0 ? std::min(special, m.num_layers) : 0; };
  n.linear = marked(m.num_linear_layers);
  if (m.num_linear_layers == 0) n.window = marked(m.num_window_layers);
  n.full = m.num_layers - n.linear - n.window;
  return n;
}

namespace {

// The row of a ModelRef that was never set: shared by every such one.
const std::shared_ptr<const Model>& unset_model() {
  static const auto unset = std::make_shared<const Model>();
  return unset;
}

}  // namespace

ModelRef::ModelRef() : row_(unset_model()) {}

ModelRef::ModelRef(Model&& model) {
  auto row = std::make_shared<Model>(std::move(model));
  own_ = row.get();
  row_ = std::move(row);
}

Model& ModelRef::edit() {
  // use_count() == 1: no other ref holds this row, so no one else can see the change (nor race
  // with it: a second thread would need this very ref). A weak_ptr is never made of a row.
  if (own_ != row_.get() || row_.use_count() != 1) *this = ModelRef(Model(*row_));
  return *own_;
}

}  // namespace gpusizer
