#include "catalog/model_record.h"

#include <algorithm>
#include <cctype>

#include "gpusizer/error.h"

namespace gpusizer {
namespace {

int64_t get_int(const nlohmann::json& r, const char* key, const std::string& where,
                int64_t fallback = 0) {
  auto it = r.find(key);
  if (it == r.end() || it->is_null()) return fallback;
  if (!it->is_number_integer() && !it->is_number_unsigned())
    throw InputError(where + "." + key, "must be an integer");
  const int64_t v = it->get<int64_t>();
  if (v < 0) throw InputError(where + "." + key, "must not be negative");
  return v;
}

bool get_bool(const nlohmann::json& r, const char* key) {
  auto it = r.find(key);
  return it != r.end() && it->is_boolean() && it->get<bool>();
}

std::string get_str(const nlohmann::json& r, const char* key) {
  auto it = r.find(key);
  return it != r.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string model_id(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

namespace {

// A vision model: its size and forward cost as published, no transformer shape.
void read_cv_record(const nlohmann::json& r, const std::string& where, Model& m) {
  m.given_params = get_int(r, "given_total_params", where);
  m.hidden_size = get_int(r, "hidden_size", where);
  m.num_layers = get_int(r, "num_layers", where, get_int(r, "layers_unfused", where));
  m.num_heads = get_int(r, "num_attention_heads", where);
  m.intermediate_size = get_int(r, "intermediate_size", where);
  if (auto it = r.find("forward_gflops"); it != r.end() && it->is_number())
    m.cv_gflops_per_image = it->get<double>();
  m.cv_resolution = get_int(r, "forward_gflops_resolution", where);
}

// The transformer's sizes and its multi-head latent attention, when it has one.
void read_shape(const nlohmann::json& r, const std::string& where, Model& m) {
  m.vocab_size = get_int(r, "vocab_size", where);
  m.hidden_size = get_int(r, "hidden_size", where);
  m.intermediate_size = get_int(r, "intermediate_size", where);
  m.num_layers = get_int(r, "num_layers", where);
  m.num_heads = get_int(r, "num_attention_heads", where);
  m.num_kv_heads = get_int(r, "num_key_value_heads", where, m.num_heads);
  m.head_dim = get_int(r, "head_dim", where, m.num_heads ? m.hidden_size / m.num_heads : 0);
  if (m.hidden_size <= 0 || m.num_layers <= 0 || m.num_heads <= 0 || m.vocab_size <= 0)
    throw InputError(where, "needs hidden_size, num_layers, num_attention_heads and vocab_size");
  m.attention_type = get_str(r, "attention_type");
  if (auto it = r.find("mla"); it != r.end() && it->is_object()) {
    MlaDims a;
    a.q_lora_rank = get_int(*it, "q_lora_rank", where + ".mla");
    a.kv_lora_rank = get_int(*it, "kv_lora_rank", where + ".mla");
    a.qk_nope_head_dim = get_int(*it, "qk_nope_head_dim", where + ".mla");
    a.qk_rope_head_dim = get_int(*it, "qk_rope_head_dim", where + ".mla");
    a.v_head_dim = get_int(*it, "v_head_dim", where + ".mla");
    m.mla = a;
  }
}

// Biases, norms, embeddings and the attention windows.
void read_layout(const nlohmann::json& r, const std::string& where, Model& m) {
  m.gated_mlp = get_str(r, "mlp_type").rfind("gated", 0) == 0 || get_str(r, "mlp_type").empty();
  m.layer_norm = get_str(r, "norm_type").rfind("LayerNorm", 0) == 0;
  m.norms_per_layer = get_int(r, "norms_per_layer", where, 2);
  m.qkv_bias = get_bool(r, "qkv_bias");
  m.o_bias = get_bool(r, "o_bias");
  m.mlp_bias = get_bool(r, "mlp_bias");
  m.lm_head_bias = get_bool(r, "lm_head_bias");
  m.tied_embeddings = get_bool(r, "tie_word_embeddings");
  m.attention_sinks = get_bool(r, "attention_sinks");
  m.qk_norm = get_str(r, "qk_norm");
  m.learned_pos_embeddings = get_int(r, "learned_pos_embeddings", where);
  m.extra_embed_norms = get_int(r, "extra_embed_norms", where);
  m.parallel_residual = get_bool(r, "parallel_residual");
  m.max_position_embeddings = get_int(r, "max_position_embeddings", where);
  m.sliding_window = get_int(r, "sliding_window", where, get_int(r, "attention_chunk_size", where));
  m.num_window_layers = m.sliding_window > 0 ? get_int(r, "num_local_attention_layers", where) : 0;
  m.num_linear_layers = get_int(r, "num_linear_attention_layers", where);
}

// Mixture of experts: routed and shared experts, and the dense layers before them.
void read_experts(const nlohmann::json& r, const std::string& where, Model& m) {
  m.num_experts = get_int(r, "num_experts", where);
  if (m.num_experts <= 0) return;
  m.experts_per_token = get_int(r, "experts_per_token", where);
  m.num_shared_experts = get_int(r, "num_shared_experts", where);
  m.moe_intermediate_size = get_int(r, "moe_intermediate_size", where);
  m.shared_expert_intermediate_size = get_int(r, "shared_expert_intermediate_size", where);
  m.num_moe_layers = get_int(r, "num_moe_layers", where, m.num_layers);
  m.num_dense_layers = get_int(r, "num_dense_layers", where, m.num_layers - m.num_moe_layers);
  m.dense_intermediate_size = get_int(r, "intermediate_size_dense", where, m.intermediate_size);
  m.router_bias = get_bool(r, "router_bias");
  m.expert_bias = get_bool(r, "expert_bias");
  if (m.experts_per_token <= 0 || m.experts_per_token > m.num_experts)
    throw InputError(where + ".experts_per_token", "must be between 1 and num_experts");
}

}  // namespace

Model model_from_record(const nlohmann::json& r, const std::string& where) {
  if (!r.is_object()) throw InputError(where, "must be a JSON object");
  Model m;
  m.name = get_str(r, "name");
  if (m.name.empty()) throw InputError(where + ".name", "is missing");
  m.id = model_id(m.name);
  m.hf_id = get_str(r, "hf_id");
  m.family = get_str(r, "family");
  m.kind = get_str(r, "kind").empty() ? "llm" : get_str(r, "kind");
  m.source = get_str(r, "source");
  m.checkpoint_format = get_str(r, "checkpoint_format");
  if (m.is_cv()) {
    read_cv_record(r, where, m);
    return m;
  }
  read_shape(r, where, m);
  read_layout(r, where, m);
  read_experts(r, where, m);
  if (auto it = r.find("given_total_params"); it != r.end() && it->is_number())
    m.given_params = it->get<int64_t>();
  if (auto it = r.find("given_active_params"); it != r.end() && it->is_number())
    m.given_active_params = it->get<int64_t>();
  return m;
}

}  // namespace gpusizer
