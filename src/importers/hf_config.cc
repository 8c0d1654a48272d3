// Hugging Face config.json -> Model. Key names, defaults and the bias/norm layout of each family
// follow transformers' configuration_<family>.py and modeling_<family>.py (and the remote-code
// modeling files of ChatGLM, Qwen v1, InternLM2 and Baichuan), so that count_params reproduces
// the parameter count of the module tree HF builds. docs/models-catalog-notes.md sec. 2-3.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "gpusizer/error.h"
#include "gpusizer/importers.h"
#include "gpusizer/json/importers.h"
#include "importers/json_guard.h"
#include "importers/model_guard.h"

namespace gpusizer {
namespace {

using nlohmann::json;

constexpr int64_t kMaxDim = int64_t{1} << 31;  // any one size field
constexpr int64_t kMaxLayers = 1 << 16;        // far above any real model; loops stay short

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Read access to one config object with JSON paths in errors and notes of assumed values.
class Cfg {
 public:
  Cfg(const json& j, std::string where, std::vector<std::string>& notes)
      : j_(j), where_(std::move(where)), notes_(notes) {}

  const json* find(const char* key) const {
    auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }
  bool has(const char* key) const { return find(key) != nullptr; }

  std::optional<int64_t> opt_int(std::initializer_list<const char*> keys) const {
    for (const char* k : keys)
      if (const json* v = find(k)) return to_int(*v, k);
    return std::nullopt;
  }
  int64_t req_int(std::initializer_list<const char*> keys) const {
    if (auto v = opt_int(keys)) return *v;
    throw InputError(where_ + "." + *keys.begin(), "is missing (a required config.json field)",
                     "bad_input");
  }
  // The value, or `fallback` with a note naming the assumed field when `note` is set.
  int64_t int_or(std::initializer_list<const char*> keys, int64_t fallback,
                 const char* note = nullptr) const {
    if (auto v = opt_int(keys)) return *v;
    if (note)
      notes_.push_back(std::string("assumed ") + *keys.begin() + " = " + std::to_string(fallback) +
                       " (" + note + ")");
    return fallback;
  }
  bool flag(const char* key, bool fallback) const {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean())
      throw InputError(where_ + "." + key, "must be true or false", "bad_input");
    return v->get<bool>();
  }
  std::string str(const char* key) const {
    const json* v = find(key);
    if (!v) return {};
    if (!v->is_string()) throw InputError(where_ + "." + key, "must be a string", "bad_input");
    return v->get<std::string>();
  }
  // Integer list (e.g. moe_layers, no_rope_layers); nullopt when absent.
  std::optional<std::vector<int64_t>> int_list(const char* key) const {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_array()) throw InputError(where_ + "." + key, "must be a list", "bad_input");
    std::vector<int64_t> out;
    for (const auto& e : *v) out.push_back(to_int(e, key));
    return out;
  }
  // Count of `value` in a list of strings (layer_types); nullopt when absent.
  std::optional<int64_t> count_in_list(const char* key, std::string_view value) const {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_array()) throw InputError(where_ + "." + key, "must be a list", "bad_input");
    int64_t n = 0;
    for (const auto& e : *v) {
      if (!e.is_string())
        throw InputError(where_ + "." + key, "must be a list of strings", "bad_input");
      n += e.get<std::string>() == value;
    }
    return n;
  }
  const std::string& where() const { return where_; }
  void note(std::string s) const { notes_.push_back(std::move(s)); }

 private:
  int64_t to_int(const json& v, const char* key) const {
    double d = 0;
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(kMaxDim)) bad(key, "is implausibly large");
      return static_cast<int64_t>(u);
    }
    if (v.is_number_integer()) {
      const int64_t i = v.get<int64_t>();
      if (i < 0) bad(key, "must not be negative");
      if (i > kMaxDim) bad(key, "is implausibly large");
      return i;
    }
    if (!v.is_number_float()) bad(key, "must be an integer");
    d = v.get<double>();
    if (!(d >= 0) || d > static_cast<double>(kMaxDim) || std::floor(d) != d)
      bad(key, "must be a non-negative integer");
    return static_cast<int64_t>(d);
  }
  [[noreturn]] void bad(const char* key, const std::string& what) const {
    throw InputError(where_ + "." + key, what, "bad_input");
  }

  const json& j_;
  std::string where_;
  std::vector<std::string>& notes_;
};

// model_type of a config, falling back on the architectures list (remote-code models).
std::string family_of(const json& c) {
  if (auto it = c.find("model_type"); it != c.end() && it->is_string())
    return lower(it->get<std::string>());
  if (auto it = c.find("architectures");
      it != c.end() && it->is_array() && !it->empty() && (*it)[0].is_string()) {
    const std::string a = (*it)[0].get<std::string>();
    if (a == "QWenLMHeadModel") return "qwen";
    if (a.rfind("ChatGLM", 0) == 0) return "chatglm";
  }
  return {};
}

// Gemma3TextConfig defaults (configuration_gemma3.py): the multimodal checkpoints write only the
// fields that differ from them into text_config.
void gemma3_text_defaults(json& t) {
  const std::pair<const char*, int64_t> defaults[] = {
      {"vocab_size", 262208},      {"hidden_size", 2304},
      {"intermediate_size", 9216}, {"num_hidden_layers", 26},
      {"num_attention_heads", 8},  {"num_key_value_heads", 4},
      {"head_dim", 256},           {"max_position_embeddings", 131072},
      {"sliding_window", 4096}};
  for (const auto& [k, v] : defaults)
    if (!t.contains(k) || t[k].is_null()) t[k] = v;
}

// Layers whose index i satisfies `pred`, counted.
template <class Pred>
int64_t count_layers(int64_t layers, Pred pred) {
  int64_t n = 0;
  for (int64_t i = 0; i < layers; ++i) n += pred(i) ? 1 : 0;
  return n;
}

std::string weights_format_of(const json& q, const std::string& where) {
  if (!q.is_object()) throw InputError(where, "must be an object", "bad_input");
  auto s = [&](const char* k) {
    auto it = q.find(k);
    return it != q.end() && it->is_string() ? lower(it->get<std::string>()) : std::string();
  };
  auto num = [&](const char* k) -> int64_t {
    auto it = q.find(k);
    return it != q.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
  };
  auto flag = [&](const char* k) {
    auto it = q.find(k);
    return it != q.end() && it->is_boolean() && it->get<bool>();
  };
  const std::string method = s("quant_method");
  // transformers/utils/quantization_config.py: GPTQConfig, AwqConfig, FineGrainedFP8Config,
  // BitsAndBytesConfig (load_in_4bit + bnb_4bit_quant_type), Mxfp4Config.
  if (method == "gptq") return num("bits") == 8 ? "gptq-int8" : "gptq-int4";
  if (method == "awq") return "awq-int4";
  if (method == "fp8" || method == "fbgemm_fp8") return "fp8";
  if (method == "mxfp4") return "mxfp4";
  if (method == "bitsandbytes" || flag("load_in_4bit") || flag("load_in_8bit")) {
    if (flag("load_in_8bit")) return "int8";
    return s("bnb_4bit_quant_type") == "fp4" ? "int4" : "nf4";
  }
  if (method == "compressed-tensors") {
    // Most compressed-tensors checkpoints are FP8 (float-quantized) or W4A16 (pack-quantized).
    const std::string fmt = s("format");
    if (fmt == "float-quantized" || fmt == "naive-quantized") return "fp8";
    if (fmt == "pack-quantized") return "int4";
  }
  return {};
}

// The language model's config and its family: multimodal wrappers keep the language model in
// text_config (Gemma3Config, Llama4Config, Mistral3Config, ...); some model_types read as
// another family's layout.
struct LanguageConfig {
  json text;
  std::string where, family;
};

LanguageConfig language_config(const json& config, const std::string& where,
                               std::vector<std::string>& notes) {
  LanguageConfig lc{config, where, {}};
  if (auto tc = config.find("text_config");
      tc != config.end() && tc->is_object() && !config.contains("hidden_size")) {
    lc.text = *tc;
    lc.where = where + ".text_config";
  }
  lc.family = family_of(lc.text);
  if (lc.family.empty()) lc.family = family_of(config);
  if (lc.family == "gemma3_text" || (lc.family == "gemma3" && lc.where != where)) {
    lc.family = "gemma3";
    const json before = lc.text;
    gemma3_text_defaults(lc.text);
    std::string list;
    for (const auto& [k, v] : lc.text.items())
      if (!before.contains(k) || before[k].is_null())
        list += (list.empty() ? "" : ", ") + k + "=" + v.dump();
    if (!list.empty())
      notes.emplace_back("assumed Gemma3TextConfig defaults for fields the config omits: " + list);
  }
  if (lc.family == "llama4_text") lc.family = "llama4";
  if (lc.family == "kimi_k2") lc.family = "deepseek_v3";
  if (lc.family == "qwen3_5" || lc.family == "mistral3") lc.family = "mistral";
  return lc;
}

// Sizes, under the key spellings of each family, and the Llama-style defaults of the layout.
void read_sizes(const Cfg& f, Model& m) {
  m.hidden_size = f.req_int({"hidden_size", "n_embd", "n_embed", "d_model"});
  m.num_layers = f.req_int({"num_hidden_layers", "n_layer", "num_layers"});
  m.num_heads = f.req_int({"num_attention_heads", "n_head"});
  m.vocab_size = m.family == "chatglm" ? f.req_int({"padded_vocab_size", "vocab_size"})
                                       : f.req_int({"vocab_size", "padded_vocab_size"});
  if (m.hidden_size <= 0 || m.num_layers <= 0 || m.num_heads <= 0 || m.vocab_size <= 0)
    throw InputError(f.where(),
                     "hidden_size, num_hidden_layers, num_attention_heads and vocab_size must "
                     "be positive",
                     "bad_input");
  if (m.num_layers > kMaxLayers)
    throw InputError(f.where() + ".num_hidden_layers", "is implausibly large", "bad_input");
  const int64_t d = m.hidden_size, H = m.num_heads;
  m.num_kv_heads = f.int_or({"num_key_value_heads", "num_kv_heads", "multi_query_group_num"}, H);
  m.head_dim = f.int_or({"head_dim", "kv_channels"}, d / H);
  if (!f.has("head_dim") && !f.has("kv_channels") && d % H != 0)
    f.note("hidden_size is not a multiple of num_attention_heads; head_dim = " +
           std::to_string(m.head_dim) + " assumed");
  m.max_position_embeddings = f.int_or({"max_position_embeddings", "n_positions", "seq_length"}, 0);
  m.intermediate_size = f.int_or({"intermediate_size", "ffn_hidden_size", "n_inner"}, 0);
  m.gated_mlp = true;
  m.layer_norm = false;
  m.norms_per_layer = 2;
  m.tied_embeddings = f.flag("tie_word_embeddings", false);
}

// What each family builds differently from the Llama defaults: biases, norms, MLP shape, KV
// heads. Known families that keep the defaults have no function in the table (phi3: qkv_proj
// and o_proj without bias, gate_up_proj fused, the same count; baichuan: W_pack and o_proj
// without bias, NormHead a plain V x d weight; minimax_m1).
using FamilyLayout = void (*)(const Cfg&, Model&, const std::string& family, bool attention_bias);

void llama_layout(const Cfg& f, Model& m, const std::string& family, bool attention_bias) {
  // LlamaAttention: q/k/v/o_proj bias=config.attention_bias; LlamaMLP bias=config.mlp_bias.
  m.qkv_bias = m.o_bias = attention_bias;
  m.mlp_bias = f.flag("mlp_bias", false);
  if (family == "internlm") m.qkv_bias = m.o_bias = f.flag("bias", true);
}

void qwen2_layout(const Cfg&, Model& m, const std::string&, bool) {
  m.qkv_bias = true;  // Qwen2Attention: q/k/v_proj bias=True, o_proj bias=False
}

void qwen3_layout(const Cfg&, Model& m, const std::string&, bool attention_bias) {
  m.qkv_bias = m.o_bias = attention_bias;
  m.qk_norm = "per_head";  // Qwen3Attention q_norm/k_norm: RMSNorm(head_dim)
}

void gemma_layout(const Cfg& f, Model& m, const std::string& family, bool attention_bias) {
  m.tied_embeddings = f.flag("tie_word_embeddings", true);
  m.qkv_bias = m.o_bias = attention_bias;
  if (family != "gemma") m.norms_per_layer = 4;  // pre/post attention and pre/post FFN norms
  if (family == "gemma3") m.qk_norm = "per_head";
}

void gpt2_layout(const Cfg& f, Model& m, const std::string& family, bool) {
  const int64_t d = m.hidden_size, H = m.num_heads;
  // GPT2Block: ln_1, Conv1D c_attn/c_proj with bias, ln_2, Conv1D c_fc/c_proj; wpe positions.
  // GPTBigCodeBlock keeps the layout; with multi_query its fused c_attn projects to
  // d + 2 x head_dim (one shared key/value head).
  if (family == "gpt_bigcode") m.num_kv_heads = f.flag("multi_query", true) ? 1 : H;
  m.intermediate_size = f.int_or({"n_inner"}, 4 * d);
  if (m.intermediate_size == 0) m.intermediate_size = 4 * d;
  m.gated_mlp = false;
  m.layer_norm = true;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.tied_embeddings = f.flag("tie_word_embeddings", true);
  m.learned_pos_embeddings = f.int_or({"n_positions", "max_position_embeddings"}, 1024);
}

void gpt_neox_layout(const Cfg& f, Model& m, const std::string&, bool) {
  // GPTNeoXLayer: query_key_value/dense bias=config.attention_bias (default True), MLP biases,
  // input_layernorm + post_attention_layernorm, untied embed_out.
  m.gated_mlp = false;
  m.layer_norm = true;
  m.qkv_bias = m.o_bias = f.flag("attention_bias", true);
  m.mlp_bias = true;
  m.parallel_residual = f.flag("use_parallel_residual", true);
}

void gptj_layout(const Cfg& f, Model& m, const std::string&, bool) {
  const int64_t d = m.hidden_size;
  // GPTJBlock: one ln_1 shared by the parallel attention and MLP; q/k/v/out_proj without
  // bias; fc_in/fc_out with bias; lm_head with bias.
  m.intermediate_size = f.int_or({"n_inner"}, 4 * d);
  if (m.intermediate_size == 0) m.intermediate_size = 4 * d;
  m.gated_mlp = false;
  m.layer_norm = true;
  m.norms_per_layer = 1;
  m.mlp_bias = true;
  m.lm_head_bias = true;
  m.parallel_residual = true;
}

void falcon_layout(const Cfg& f, Model& m, const std::string&, bool) {
  const int64_t d = m.hidden_size, H = m.num_heads;
  // FalconDecoderLayer: query_key_value/dense/dense_h_to_4h/dense_4h_to_h bias=config.bias;
  // new_decoder_architecture: num_kv_heads groups and ln_attn + ln_mlp
  // (num_ln_in_parallel_attn, default 2); else multi_query -> 1 KV head and one
  // input_layernorm when parallel_attn.
  m.gated_mlp = false;
  m.layer_norm = true;
  const bool bias = f.flag("bias", false);
  m.qkv_bias = m.o_bias = m.mlp_bias = bias;
  m.tied_embeddings = f.flag("tie_word_embeddings", true);
  m.intermediate_size = f.int_or({"ffn_hidden_size"}, 4 * d);
  const bool new_arch = f.flag("new_decoder_architecture", false);
  const bool parallel = f.flag("parallel_attn", true);
  m.parallel_residual = parallel || new_arch;
  if (new_arch) {
    m.num_kv_heads = f.int_or({"num_kv_heads", "n_head_kv"}, H);
    m.norms_per_layer = f.int_or({"num_ln_in_parallel_attn"}, 2);
  } else {
    m.num_kv_heads = f.flag("multi_query", true) ? 1 : H;
    m.norms_per_layer = parallel ? 1 : 2;
  }
}

void bloom_layout(const Cfg& f, Model& m, const std::string&, bool) {
  const int64_t d = m.hidden_size;
  // BloomBlock: LayerNorms, biased query_key_value/dense/dense_h_to_4h/dense_4h_to_h, 4h MLP;
  // word_embeddings_layernorm after the embedding; tied head; ALiBi (no position params).
  m.intermediate_size = 4 * d;
  m.gated_mlp = false;
  m.layer_norm = true;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.extra_embed_norms = 1;
  m.tied_embeddings = f.flag("tie_word_embeddings", true);
}

void gpt_oss_layout(const Cfg& f, Model& m, const std::string&, bool) {
  m.qkv_bias = m.o_bias = f.flag("attention_bias", true);
  m.attention_sinks = true;  // GptOssAttention.sinks: one learned logit per head
}

void chatglm_layout(const Cfg& f, Model& m, const std::string&, bool) {
  const int64_t d = m.hidden_size, H = m.num_heads;
  if (f.has("inner_hidden_size")) {
    // ChatGLM-6B v1 (THUDM/chatglm-6b modeling_chatglm.py): GLMBlock with LayerNorm before
    // attention and MLP, query_key_value/dense/dense_h_to_4h/dense_4h_to_h all with bias, GELU
    // MLP of inner_hidden_size, MHA, word embeddings shared with the output layer.
    m.gated_mlp = false;
    m.layer_norm = true;
    m.qkv_bias = m.o_bias = m.mlp_bias = true;
    m.num_kv_heads = H;
    m.intermediate_size = f.req_int({"inner_hidden_size"});
    m.tied_embeddings = true;
    m.max_position_embeddings = f.int_or({"max_sequence_length"}, 2048);
  } else {
    // ChatGLM remote code (modeling_chatglm.py): query_key_value bias = add_bias_linear or
    // add_qkv_bias; dense and MLP bias = add_bias_linear; dense_h_to_4h is 2*ffn (SwiGLU).
    const bool linear_bias = f.flag("add_bias_linear", false);
    m.qkv_bias = linear_bias || f.flag("add_qkv_bias", false);
    m.o_bias = m.mlp_bias = linear_bias;
    m.layer_norm = !f.flag("rmsnorm", true);
    if (f.flag("multi_query_attention", false))
      m.num_kv_heads = f.int_or({"multi_query_group_num"}, 1);
    else
      m.num_kv_heads = H;
    m.head_dim = f.int_or({"kv_channels"}, d / H);
    m.intermediate_size = f.req_int({"ffn_hidden_size"});
    if (!f.flag("post_layer_norm", true)) f.note("post_layer_norm=false: final norm still counted");
  }
}

void glm_layout(const Cfg& f, Model& m, const std::string& family, bool) {
  // GlmAttention: q/k/v bias=config.attention_bias (default True), o_proj no bias; Glm4 adds
  // post_self_attn_layernorm and post_mlp_layernorm.
  m.qkv_bias = f.flag("attention_bias", true);
  if (family == "glm4") m.norms_per_layer = 4;
}

void internlm2_layout(const Cfg& f, Model& m, const std::string&, bool) {
  // InternLM2Attention: wqkv and wo bias=config.bias (default True in the class, False in
  // released configs); feed_forward w1/w3/w2 without bias.
  m.qkv_bias = m.o_bias = f.flag("bias", true);
}

void qwen_layout(const Cfg& f, Model& m, const std::string&, bool) {
  const int64_t d = m.hidden_size, H = m.num_heads;
  // Qwen v1 (modeling_qwen.py): c_attn Linear(d, 3d, bias=True), c_proj no bias, MLP w1/w2
  // each intermediate_size/2 wide, mlp.c_proj back; ln_1, ln_2 RMSNorm.
  m.qkv_bias = true;
  m.num_kv_heads = H;
  m.head_dim = f.int_or({"kv_channels"}, d / H);
  m.intermediate_size = f.req_int({"intermediate_size"}) / 2;
  // QWenLMHeadModel.forward takes CrossEntropyLoss of the 16-bit logits, no fp32 upcast.
  m.loss_upcast_fp32 = false;
}

void llama4_layout(const Cfg&, Model& m, const std::string&, bool attention_bias) {
  m.qkv_bias = m.o_bias = attention_bias;  // use_qk_norm is a parameter-free L2 norm
}

void minimax_layout(const Cfg& f, Model& m, const std::string&, bool) {
  if (f.flag("use_qk_norm", false))
    m.qk_norm = f.str("qk_norm_type") == "per_head" ? "per_head" : "per_layer";
}

void deepseek_layout(const Cfg&, Model& m, const std::string&, bool attention_bias) {
  m.qkv_bias = m.o_bias = attention_bias;
}

void phi_layout(const Cfg& f, Model& m, const std::string&, bool) {
  f.note("phi (v1/v2) uses LayerNorm with a parallel block; counted approximately");
  m.gated_mlp = false;
  m.layer_norm = true;
  m.norms_per_layer = 1;
  m.qkv_bias = m.o_bias = m.mlp_bias = m.lm_head_bias = true;
}

// model_type -> its layout (nullptr: the Llama defaults as they are).
const std::map<std::string, FamilyLayout, std::less<>>& family_layouts() {
  static const std::map<std::string, FamilyLayout, std::less<>> table = {
      {"llama", llama_layout},
      {"yi", llama_layout},
      {"mistral", llama_layout},
      {"mixtral", llama_layout},
      {"internlm", llama_layout},
      {"qwen2", qwen2_layout},
      {"qwen2_moe", qwen2_layout},
      {"qwen3", qwen3_layout},
      {"qwen3_moe", qwen3_layout},
      {"gemma", gemma_layout},
      {"gemma2", gemma_layout},
      {"gemma3", gemma_layout},
      {"phi3", nullptr},
      {"gpt2", gpt2_layout},
      {"gpt_bigcode", gpt2_layout},
      {"gpt_neox", gpt_neox_layout},
      {"gptj", gptj_layout},
      {"falcon", falcon_layout},
      {"bloom", bloom_layout},
      {"gpt_oss", gpt_oss_layout},
      {"chatglm", chatglm_layout},
      {"glm", glm_layout},
      {"glm4", glm_layout},
      {"internlm2", internlm2_layout},
      {"baichuan", nullptr},
      {"qwen", qwen_layout},
      {"llama4", llama4_layout},
      {"minimax", minimax_layout},
      {"minimax_m2", minimax_layout},
      {"minimax_m1", nullptr},
      {"deepseek_v2", deepseek_layout},
      {"deepseek_v3", deepseek_layout},
      {"phi", phi_layout},
  };
  return table;
}

// Multi-head latent attention (DeepseekV2Attention / DeepseekV3Attention).
void read_latent_attention(const Cfg& f, Model& m) {
  if (m.family != "deepseek_v2" && m.family != "deepseek_v3") return;
  MlaDims a;
  a.q_lora_rank = f.int_or({"q_lora_rank"}, 0);
  a.kv_lora_rank = f.req_int({"kv_lora_rank"});
  a.qk_nope_head_dim = f.req_int({"qk_nope_head_dim"});
  a.qk_rope_head_dim = f.req_int({"qk_rope_head_dim"});
  a.v_head_dim = f.req_int({"v_head_dim"});
  m.mla = a;
  m.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
  m.attention_type = "MLA";
}

// Mixtral, gpt-oss and MiniMax: every layer holds num_local_experts experts.
void every_layer_experts(const Cfg& f, Model& m) {
  m.num_experts = f.req_int({"num_local_experts"});
  m.experts_per_token = f.req_int({"num_experts_per_tok", "experts_per_token"});
  m.moe_intermediate_size = f.req_int({"intermediate_size"});
  m.num_moe_layers = m.num_layers;
  if (m.family == "gpt_oss")
    m.router_bias = m.expert_bias = true;  // GptOssTopKRouter, GptOssExperts
  if (m.family == "minimax_m2") m.router_bias = f.flag("use_routing_bias", true);
  if (auto shared = f.opt_int({"shared_intermediate_size"}); shared && *shared > 0) {
    m.shared_expert_intermediate_size = *shared;
    m.num_shared_experts = 1;
  }
}

// Qwen2MoeDecoderLayer: sparse iff layer not in mlp_only_layers and num_experts > 0 and
// (i + 1) % decoder_sparse_step == 0.
void qwen_moe_experts(const Cfg& f, Model& m) {
  m.num_experts = f.int_or({"num_experts"}, 0);
  if (m.num_experts <= 0) return;
  m.experts_per_token = f.req_int({"num_experts_per_tok"});
  m.moe_intermediate_size = f.req_int({"moe_intermediate_size"});
  const int64_t step = std::max<int64_t>(1, f.int_or({"decoder_sparse_step"}, 1));
  const auto list = f.int_list("mlp_only_layers").value_or(std::vector<int64_t>{});
  const std::set<int64_t> mlp_only(list.begin(), list.end());
  m.num_moe_layers = count_layers(
      m.num_layers, [&](int64_t i) { return !mlp_only.count(i) && (i + 1) % step == 0; });
  if (m.family != "qwen2_moe") return;
  m.shared_expert_intermediate_size = f.int_or({"shared_expert_intermediate_size"}, 0);
  if (m.shared_expert_intermediate_size > 0) {
    m.num_shared_experts = 1;
    f.note("shared_expert_gate (hidden_size parameters per MoE layer, " +
           std::to_string(m.hidden_size * m.num_moe_layers) + " in all) is not counted");
  }
}

// DeepseekV3DecoderLayer: MoE iff n_routed_experts and i >= first_k_dense_replace and
// i % moe_layer_freq == 0; shared experts n_shared_experts x moe_intermediate_size wide.
void deepseek_experts(const Cfg& f, Model& m) {
  m.num_experts = f.int_or({"n_routed_experts"}, 0);
  if (m.num_experts <= 0) return;
  m.experts_per_token = f.req_int({"num_experts_per_tok"});
  m.moe_intermediate_size = f.req_int({"moe_intermediate_size"});
  m.num_shared_experts = f.int_or({"n_shared_experts"}, 0);
  m.shared_expert_intermediate_size = m.num_shared_experts * m.moe_intermediate_size;
  const int64_t first_dense = f.int_or({"first_k_dense_replace"}, 0);
  const int64_t freq = std::max<int64_t>(1, f.int_or({"moe_layer_freq"}, 1));
  m.num_moe_layers =
      count_layers(m.num_layers, [&](int64_t i) { return i >= first_dense && i % freq == 0; });
  // DeepseekV3TopkRouter always holds e_score_correction_bias; V2's MoEGate only with
  // topk_method "noaux_tc".
  m.router_bias = m.family == "deepseek_v3" || f.str("topk_method") == "noaux_tc";
}

// Llama4TextConfig: moe_layers default range(step-1, L, step); Llama4TextMoe has one shared
// expert of intermediate_size; dense layers use intermediate_size_mlp.
void llama4_experts(const Cfg& f, Model& m) {
  const int64_t L = m.num_layers;
  m.num_experts = f.req_int({"num_local_experts"});
  m.experts_per_token = f.req_int({"num_experts_per_tok"});
  m.moe_intermediate_size = m.intermediate_size;
  m.shared_expert_intermediate_size = m.intermediate_size;
  m.num_shared_experts = 1;
  const int64_t step = std::max<int64_t>(1, f.int_or({"interleave_moe_layer_step"}, 1));
  if (auto layers = f.int_list("moe_layers"); layers && !layers->empty()) {
    std::set<int64_t> uniq;
    for (int64_t i : *layers)
      if (i < L) uniq.insert(i);
    m.num_moe_layers = static_cast<int64_t>(uniq.size());
  } else {
    m.num_moe_layers = count_layers(L, [&](int64_t i) { return i % step == step - 1; });
  }
  m.dense_intermediate_size = f.int_or({"intermediate_size_mlp"}, m.intermediate_size);
}

// Mixture of experts: which layers, how many experts, how wide.
void read_experts(const Cfg& f, Model& m) {
  const std::string& family = m.family;
  if (family == "mixtral" || family == "gpt_oss" || family == "minimax" || family == "minimax_m2" ||
      family == "minimax_m1")
    every_layer_experts(f, m);
  else if (family == "qwen2_moe" || family == "qwen3_moe")
    qwen_moe_experts(f, m);
  else if (family == "deepseek_v2" || family == "deepseek_v3")
    deepseek_experts(f, m);
  else if (family == "llama4")
    llama4_experts(f, m);
  if (m.num_experts > 0) {
    if (m.experts_per_token <= 0 || m.experts_per_token > m.num_experts)
      throw InputError(f.where() + ".num_experts_per_tok",
                       "must be between 1 and the number of experts", "bad_input");
    m.num_dense_layers = m.num_layers - m.num_moe_layers;
    if (m.dense_intermediate_size == 0) m.dense_intermediate_size = m.intermediate_size;
  }
}

// Sliding windows by family when layer_types does not list them.
int64_t window_layers_of_family(const Cfg& f, const Model& m) {
  const std::string& family = m.family;
  const int64_t L = m.num_layers;
  if (family == "mistral" || family == "mixtral" || family == "phi3") return L;
  if (family == "qwen2" || family == "qwen2_moe" || family == "qwen3" || family == "qwen3_moe") {
    // Qwen2Config: sliding_attention iff use_sliding_window and i >= max_window_layers.
    if (!f.flag("use_sliding_window", false)) return 0;
    const int64_t first = f.int_or({"max_window_layers"}, L);
    return count_layers(L, [&](int64_t i) { return i >= first; });
  }
  if (family == "gemma2" || family == "gpt_oss")
    return count_layers(L, [](int64_t i) { return i % 2 == 0; });
  if (family == "gemma3") {
    const int64_t pattern = std::max<int64_t>(1, f.int_or({"sliding_window_pattern"}, 6));
    return count_layers(L, [&](int64_t i) { return (i + 1) % pattern != 0; });
  }
  return 0;
}

// Local attention: which layers see a window (or chunk) rather than the whole context; and
// MiniMax's linear-attention layers.
void read_local_attention(const Cfg& f, Model& m) {
  const int64_t L = m.num_layers;
  const int64_t window = f.int_or({"sliding_window"}, 0);
  if (m.family == "llama4") {
    // Llama4TextConfig: no_rope_layers[i] == 1 marks a RoPE layer, which uses chunked attention;
    // default: every no_rope_layer_interval-th (4th) layer is a global NoPE layer.
    m.sliding_window = f.int_or({"attention_chunk_size"}, 0);
    if (m.sliding_window > 0) {
      const int64_t interval = std::max<int64_t>(1, f.int_or({"no_rope_layer_interval"}, 4));
      auto nope = f.int_list("no_rope_layers");
      if (nope && !nope->empty())
        m.num_window_layers = std::count(nope->begin(), nope->end(), int64_t{1});
      else
        m.num_window_layers = count_layers(L, [&](int64_t i) { return (i + 1) % interval != 0; });
    }
  } else if (auto typed = f.count_in_list("layer_types", "sliding_attention");
             typed && window > 0) {
    m.sliding_window = window;
    m.num_window_layers = *typed;
  } else if (window > 0) {
    m.sliding_window = window;
    m.num_window_layers = window_layers_of_family(f, m);
    if (m.num_window_layers == 0) m.sliding_window = 0;
  }
  if (m.family == "minimax" || m.family == "minimax_m1") {
    // MiniMaxConfig.layer_types / attn_type_list: 0 = lightning (linear) attention.
    if (auto lin = f.count_in_list("layer_types", "linear_attention"))
      m.num_linear_layers = *lin;
    else if (auto types = f.int_list("attn_type_list"))
      m.num_linear_layers = std::count(types->begin(), types->end(), int64_t{0});
    if (m.num_linear_layers > 0)
      f.note(
          "lightning-attention layers have parameters the counter does not model; the "
          "count is approximate");
  }
}

// Cross-field checks, the attention type and the model's name.
void finish_model(const Cfg& f, Model& m, const json& config) {
  const int64_t H = m.num_heads;
  if (m.attention_type.empty())
    m.attention_type = m.num_kv_heads == H ? "MHA" : (m.num_kv_heads == 1 ? "MQA" : "GQA");
  if (m.num_kv_heads <= 0 || m.head_dim <= 0)
    throw InputError(f.where() + ".num_key_value_heads", "KV heads and head_dim must be positive",
                     "bad_input");
  if (H % m.num_kv_heads != 0)
    f.note("num_attention_heads is not a multiple of num_key_value_heads");
  if (m.intermediate_size == 0 && m.num_experts == 0)
    throw InputError(f.where() + ".intermediate_size", "is missing (a required config.json field)",
                     "bad_input");
  check_countable(m, f.where(), "bad_input");
  m.name = m.id = m.family.empty() ? "imported" : m.family;
  if (auto it = config.find("_name_or_path");
      it != config.end() && it->is_string() && !it->get<std::string>().empty()) {
    m.name = it->get<std::string>();
    m.id = lower(m.name);
  }
}

}  // namespace

ImportedModel import_hf_config(const json& config, const std::string& where) {
  if (!config.is_object())
    throw InputError(where, "must be a JSON object (a Hugging Face config.json)", "bad_input");
  ImportedModel out;
  const LanguageConfig lc = language_config(config, where, out.warnings);
  const Cfg f(lc.text, lc.where, out.warnings);
  Model m;
  m.family = lc.family;
  m.source = "Hugging Face config.json";
  m.kind = "llm";
  const auto& layouts = family_layouts();
  const auto layout = layouts.find(m.family);
  if (layout == layouts.end())
    f.note("unknown model_type '" + m.family +
           "': read as a Llama-style decoder (gated SiLU MLP, RMSNorm, 2 norms per layer, "
           "no biases) from hidden_size, num_hidden_layers, num_attention_heads, "
           "num_key_value_heads, intermediate_size and vocab_size");
  read_sizes(f, m);
  const bool attention_bias = f.flag("attention_bias", false);
  if (layout == layouts.end())
    llama_layout(f, m, m.family, attention_bias);
  else if (layout->second)
    layout->second(f, m, m.family, attention_bias);
  read_latent_attention(f, m);
  read_experts(f, m);
  read_local_attention(f, m);
  finish_model(f, m, config);
  if (auto q = config.find("quantization_config"); q != config.end() && !q->is_null())
    out.weights_format = weights_format_of(*q, where + ".quantization_config");
  out.model = std::move(m);
  return out;
}

ImportedModel import_hf_config_text(std::string_view text, const std::string& where) {
  return import_hf_config(parse_json_guarded(text, where, "bad_file"), where);
}

}  // namespace gpusizer
