// GGUF -> ImportedModel: the Model from the "{arch}.*" metadata keys (llama.cpp
// src/llama-arch.cpp LLM_KV_NAMES) and from which tensors exist (llama.cpp tensor names:
// token_embd, output, blk.N.attn_q, ...); the weights from the tensor infos.
#include <algorithm>
#include <cstdio>
#include <regex>
#include <set>

#include "gpusizer/catalog.h"
#include "gpusizer/error.h"
#include "gpusizer/importers.h"
#include "gpusizer/regular_file.h"
#include "importers/gguf.h"
#include "importers/model_guard.h"

namespace gpusizer {
namespace {

using nlohmann::json;

constexpr int64_t kMaxLayers = 1 << 16;  // far above any real model; loops stay short

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// An integer metadata value; for per-layer arrays the largest entry. 0 when absent.
int64_t meta_int(const json& md, const std::string& key) {
  auto it = md.find(key);
  if (it == md.end()) return 0;
  auto one = [](const json& v) -> int64_t {
    if (v.is_number_unsigned())
      return static_cast<int64_t>(std::min<uint64_t>(v.get<uint64_t>(), uint64_t{1} << 31));
    if (v.is_number_integer()) return std::clamp<int64_t>(v.get<int64_t>(), 0, int64_t{1} << 31);
    return 0;
  };
  if (it->is_array()) {
    int64_t best = 0;
    for (const auto& v : *it) best = std::max(best, one(v));
    return best;
  }
  return one(*it);
}

std::string meta_str(const json& md, const std::string& key) {
  auto it = md.find(key);
  return it != md.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// llama_ftype (llama.cpp include/llama.h) -> gpusizer format id, where one fits.
std::string format_of_ftype(int64_t ftype) {
  switch (ftype) {
    case 0:
      return "fp32";
    case 1:
      return "fp16";
    case 2:
      return "q4_0";
    case 3:
      return "q4_1";
    case 7:
      return "q8_0";
    case 8:
      return "q5_0";
    case 9:
      return "q5_1";
    case 10:
    case 21:
      return "q2_k";
    case 11:
    case 12:
    case 13:
      return "q3_k_m";
    case 14:
      return "q4_k";
    case 15:
      return "q4_k_m";
    case 16:
      return "q5_k";
    case 17:
      return "q5_k_m";
    case 18:
      return "q6_k";
    case 32:
      return "bf16";
    case 38:
      return "mxfp4";
    default:
      return {};
  }
}

std::string infer_gguf_format(const GgufHeader& h) {
  if (auto it = h.metadata.find("general.file_type"); it != h.metadata.end() && it->is_number()) {
    const std::string f = format_of_ftype(it->get<int64_t>());
    if (!f.empty()) return f;
  }
  std::map<std::string, uint64_t> body;
  for (const auto& t : h.tensors)
    if (t.shape.size() >= 2 && !is_embedding_tensor(t.name) && !is_lm_head_tensor(t.name))
      body[t.dtype] += t.bytes;
  std::string top;
  uint64_t most = 0;
  for (const auto& [dtype, bytes] : body)
    if (bytes > most) {
      top = dtype;
      most = bytes;
    }
  const bool mixed_up = body.count("Q6_K") || body.count("Q5_K");
  if (top == "Q4_K") return mixed_up ? "q4_k_m" : "q4_k";
  if (top == "Q5_K") return body.count("Q6_K") ? "q5_k_m" : "q5_k";
  if (top == "Q3_K") return "q3_k_m";
  if (top == "Q2_K") return "q2_k";
  if (top == "Q6_K") return "q6_k";
  if (top == "Q8_0") return "q8_0";
  if (top == "Q4_0") return "q4_0";
  if (top == "Q4_1") return "q4_1";
  if (top == "Q5_0") return "q5_0";
  if (top == "Q5_1") return "q5_1";
  if (top == "F16") return "fp16";
  if (top == "BF16") return "bf16";
  if (top == "F32") return "fp32";
  if (top == "MXFP4") return "mxfp4";
  // Anything else (IQ*, TQ*, ...): left to the catalog, which knows the GGUF format
  // closest in bits per weight (Catalog::closest_format).
  return {};
}

// The tensors of a file by name, to ask which exist (llama.cpp LLM_TENSOR_NAMES).
class TensorIndex {
 public:
  explicit TensorIndex(const std::vector<TensorEntry>& tensors) {
    for (const auto& t : tensors) by_name_[t.name] = &t;
  }
  bool has(const std::string& name) const { return by_name_.count(name) > 0; }
  // The tensor's shape; empty when there is no such tensor.
  const std::vector<int64_t>& shape(const std::string& name) const {
    static const std::vector<int64_t> kNone;
    auto it = by_name_.find(name);
    return it == by_name_.end() ? kNone : it->second->shape;
  }

 private:
  std::map<std::string, const TensorEntry*> by_name_;
};

// general.architecture, general.name: the family and the id (the name in lower case).
Model model_identity(const json& md, const std::string& where) {
  const std::string arch = meta_str(md, "general.architecture");
  if (arch.empty()) throw InputError(where + ": general.architecture", "is missing", "bad_file");
  Model m;
  m.family = arch;
  m.source = "GGUF metadata";
  m.name = meta_str(md, "general.name");
  if (m.name.empty()) m.name = arch;
  m.id = m.name;
  std::transform(m.id.begin(), m.id.end(), m.id.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return m;
}

// The "{arch}.*" sizes: hidden, layers, heads, head dim, MLP, context and vocabulary.
void read_dimensions(const GgufHeader& h, const TensorIndex& tensors, const std::string& a,
                     const std::string& where, Model& m) {
  const json& md = h.metadata;
  m.hidden_size = meta_int(md, a + "embedding_length");
  m.num_layers = meta_int(md, a + "block_count");
  m.num_heads = meta_int(md, a + "attention.head_count");
  if (m.hidden_size <= 0 || m.num_layers <= 0 || m.num_heads <= 0)
    throw InputError(where,
                     "GGUF metadata lacks " + a +
                         "embedding_length, block_count or "
                         "attention.head_count",
                     "bad_file");
  if (m.num_layers > kMaxLayers)
    throw InputError(where + ": " + a + "block_count", "is implausibly large", "bad_file");
  m.num_kv_heads = meta_int(md, a + "attention.head_count_kv");
  if (m.num_kv_heads == 0) m.num_kv_heads = m.num_heads;
  m.head_dim = meta_int(md, a + "attention.key_length");
  if (m.head_dim == 0) m.head_dim = m.hidden_size / m.num_heads;
  m.intermediate_size = meta_int(md, a + "feed_forward_length");
  m.max_position_embeddings = meta_int(md, a + "context_length");
  m.vocab_size = meta_int(md, a + "vocab_size");
  if (m.vocab_size == 0) {
    auto it = h.array_lengths.find("tokenizer.ggml.tokens");
    if (it != h.array_lengths.end())
      m.vocab_size = static_cast<int64_t>(std::min<uint64_t>(it->second, uint64_t{1} << 31));
  }
  if (const auto& embd = tensors.shape("token_embd.weight"); embd.size() == 2)
    m.vocab_size = embd[1];  // ggml ne = [n_embd, n_vocab]; the table is the truth
  if (m.vocab_size <= 0) throw InputError(where, "cannot tell the vocabulary size", "bad_file");
}

// Norms per layer: the blk.N.*norm.weight tensors, less the q/k and latent norms inside attention.
int64_t count_layer_norms(const std::vector<TensorEntry>& tensors) {
  int64_t norms = 0;
  for (const auto& t : tensors) {
    if (t.name.rfind("blk.", 0) != 0 || !ends_with(t.name, "norm.weight")) continue;
    if (t.name.find("attn_q_norm") != std::string::npos ||
        t.name.find("attn_k_norm") != std::string::npos ||
        t.name.find("attn_q_a_norm") != std::string::npos ||
        t.name.find("attn_kv_a_norm") != std::string::npos)
      continue;
    ++norms;
  }
  return norms;
}

// The layout from the tensors present (llama.cpp LLM_TENSOR_NAMES): tied head, gated MLP,
// biases, norms, learned positions.
void read_tensor_layout(const GgufHeader& h, const TensorIndex& t, Model& m) {
  m.tied_embeddings = !t.has("output.weight");
  m.gated_mlp = t.has("blk.0.ffn_gate.weight") || t.has("blk.0.ffn_gate_exps.weight") ||
                t.has("blk.0.ffn_gate_shexp.weight");
  if (const auto& up = t.shape("blk.0.ffn_up.weight");
      !m.gated_mlp && m.intermediate_size > 0 && up.size() == 2 && up[1] == 2 * m.intermediate_size)
    m.gated_mlp = true;  // fused gate_up (Phi-3)
  m.layer_norm = t.has("blk.0.attn_norm.bias");
  m.qkv_bias = t.has("blk.0.attn_q.bias") || t.has("blk.0.attn_qkv.bias");
  m.o_bias = t.has("blk.0.attn_output.bias");
  m.mlp_bias = t.has("blk.0.ffn_up.bias") || t.has("blk.0.ffn_down.bias");
  m.lm_head_bias = t.has("output.bias");
  m.attention_sinks = t.has("blk.0.attn_sinks.weight") || t.has("blk.0.attn_sinks");
  m.extra_embed_norms = t.has("token_embd_norm.weight") ? 1 : 0;
  if (const auto& pos = t.shape("position_embd.weight"); pos.size() == 2)
    m.learned_pos_embeddings = pos[1];
  if (t.has("blk.0.attn_q_norm.weight")) {
    const auto& q_norm = t.shape("blk.0.attn_q_norm.weight");
    m.qk_norm = !q_norm.empty() && q_norm[0] == m.head_dim ? "per_head" : "per_layer";
  }
  if (const int64_t norms = count_layer_norms(h.tensors); norms > 0)
    m.norms_per_layer = norms / m.num_layers;
}

// Mixture of experts (deepseek2 names: leading_dense_block_count, expert_shared_count).
void read_experts(const GgufHeader& h, const TensorIndex& t, const std::string& a, Model& m) {
  const json& md = h.metadata;
  m.num_experts = meta_int(md, a + "expert_count");
  if (m.num_experts <= 0) return;
  m.experts_per_token =
      std::clamp<int64_t>(meta_int(md, a + "expert_used_count"), 1, m.num_experts);
  m.moe_intermediate_size = meta_int(md, a + "expert_feed_forward_length");
  if (m.moe_intermediate_size == 0) m.moe_intermediate_size = m.intermediate_size;
  m.num_shared_experts = meta_int(md, a + "expert_shared_count");
  m.shared_expert_intermediate_size = meta_int(md, a + "expert_shared_feed_forward_length");
  if (m.shared_expert_intermediate_size == 0 && m.num_shared_experts > 0)
    m.shared_expert_intermediate_size = m.num_shared_experts * m.moe_intermediate_size;
  int64_t moe_layers = 0;  // layers with a router (blk.N.ffn_gate_inp.weight)
  for (const auto& tensor : h.tensors)
    moe_layers +=
        tensor.name.rfind("blk.", 0) == 0 && ends_with(tensor.name, ".ffn_gate_inp.weight");
  moe_layers = std::min(moe_layers, m.num_layers);
  m.num_moe_layers = moe_layers > 0 ? moe_layers : m.num_layers;
  m.num_dense_layers = m.num_layers - m.num_moe_layers;
  m.dense_intermediate_size = m.intermediate_size;
  const std::string first_moe = "blk." + std::to_string(m.num_dense_layers);
  m.router_bias = t.has(first_moe + ".exp_probs_b.bias") || t.has(first_moe + ".ffn_gate_inp.bias");
  m.expert_bias = t.has(first_moe + ".ffn_up_exps.bias");
}

// Multi-head latent attention (deepseek2: attention.kv_lora_rank, rope.dimension_count).
void read_latent_attention(const json& md, const std::string& a, Model& m) {
  const int64_t kv_rank = meta_int(md, a + "attention.kv_lora_rank");
  if (kv_rank <= 0) return;
  MlaDims mla;
  mla.kv_lora_rank = kv_rank;
  mla.q_lora_rank = meta_int(md, a + "attention.q_lora_rank");
  mla.qk_rope_head_dim = meta_int(md, a + "rope.dimension_count");
  int64_t key = meta_int(md, a + "attention.key_length_mla");
  if (key == 0) key = meta_int(md, a + "attention.key_length");
  int64_t value = meta_int(md, a + "attention.value_length_mla");
  if (value == 0) value = meta_int(md, a + "attention.value_length");
  mla.qk_nope_head_dim = std::max<int64_t>(0, key - mla.qk_rope_head_dim);
  mla.v_head_dim = value;
  m.mla = mla;
  m.head_dim = key;
  m.attention_type = "MLA";
}

// Sliding-window layers: gemma2 and gpt-oss alternate, gemma3 has one global layer in six.
void read_sliding_window(const json& md, const std::string& a, Model& m,
                         std::vector<std::string>& notes) {
  const int64_t window = meta_int(md, a + "attention.sliding_window");
  if (window <= 0) return;
  m.sliding_window = window;
  const int64_t L = m.num_layers;
  if (m.family == "gemma2" || m.family == "gpt-oss")
    m.num_window_layers = (L + 1) / 2;
  else if (m.family == "gemma3")
    m.num_window_layers = L - L / 6;
  else {
    m.num_window_layers = L;
    notes.emplace_back("attention.sliding_window set: assumed on every layer");
  }
}

Model model_from_gguf(const GgufHeader& h, const std::string& where,
                      std::vector<std::string>& notes) {
  Model m = model_identity(h.metadata, where);
  const std::string a = m.family + ".";
  const TensorIndex tensors(h.tensors);
  read_dimensions(h, tensors, a, where, m);
  read_tensor_layout(h, tensors, m);
  read_experts(h, tensors, a, m);
  read_latent_attention(h.metadata, a, m);
  read_sliding_window(h.metadata, a, m, notes);
  if (m.attention_type.empty())
    m.attention_type =
        m.num_kv_heads == m.num_heads ? "MHA" : (m.num_kv_heads == 1 ? "MQA" : "GQA");
  if (m.intermediate_size == 0 && m.num_experts == 0)
    notes.emplace_back("feed_forward_length missing: the MLP is not counted");
  check_countable(m, where, "bad_file");
  return m;
}

// Split GGUF names: <prefix>-00001-of-00003.gguf (llama.cpp llama_split_path).
std::vector<std::string> split_parts(const std::string& path) {
  static const std::regex kSplit(R"((.*)-(\d{5})-of-(\d{5})\.gguf$)");
  std::smatch mt;
  if (!std::regex_match(path, mt, kSplit)) return {path};
  const int count = std::stoi(mt[3].str());
  if (count < 1) return {path};
  std::vector<std::string> parts;
  for (int i = 1; i <= count; ++i) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, "-%05d-of-%05d.gguf", i, count);
    parts.push_back(mt[1].str() + suffix);
  }
  return parts;
}

ImportedModel import_headers(const std::vector<GgufHeader>& headers, const std::string& where,
                             const std::string& path) {
  ImportedModel out;
  std::vector<TensorEntry> all;
  for (const auto& h : headers) all.insert(all.end(), h.tensors.begin(), h.tensors.end());
  out.model = model_from_gguf(headers.front(), where, out.warnings);
  WeightsFile w = summarize_gguf(all, path);
  w.files = static_cast<int64_t>(headers.size());
  GgufHeader merged = headers.front();
  merged.tensors = all;
  w.weights_format = infer_gguf_format(merged);
  out.weights_format = w.weights_format;
  out.weights = std::move(w);
  return out;
}

}  // namespace

ImportedModel import_gguf_bytes(std::string_view bytes, const std::string& where) {
  MemorySource src(bytes);
  return import_headers({read_gguf_header(src, where)}, where, where);
}

ImportedModel import_gguf_path(const std::string& path) {
  check_path_text(path, "model");
  std::vector<GgufHeader> headers;
  for (const auto& part : split_parts(path)) {
    FileSource src(part, part, kMaxGgufHeaderBytes);
    headers.push_back(read_gguf_header(src, part));
  }
  return import_headers(headers, path, path);
}

}  // namespace gpusizer
