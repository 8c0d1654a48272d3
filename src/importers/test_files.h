#pragma once
// Writers of small synthetic safetensors and GGUF files for tests, benchmarks and the fuzzers'
// seed corpus. Layouts as the readers expect them (safetensors README "Format"; ggml/docs/gguf.md).
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace gpusizer::testing {

struct StTensor {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
};

inline int64_t st_bytes_per(const std::string& d) {
  if (d == "F64" || d == "I64" || d == "U64") return 8;
  if (d == "F32" || d == "I32" || d == "U32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
  return 1;
}

/// A whole safetensors file: header with consecutive data_offsets, then zeroed data.
inline std::string safetensors_file(const std::vector<StTensor>& tensors) {
  nlohmann::json h = nlohmann::json::object();
  h["__metadata__"] = {{"format", "pt"}};
  uint64_t at = 0;
  for (const auto& t : tensors) {
    uint64_t n = static_cast<uint64_t>(st_bytes_per(t.dtype));
    for (int64_t d : t.shape) n *= static_cast<uint64_t>(d);
    h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {at, at + n}}};
    at += n;
  }
  const std::string text = h.dump();
  std::string out(8, '\0');
  uint64_t len = text.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((len >> (8 * i)) & 0xFF);
  return out + text + std::string(at, '\0');
}

/// A safetensors file from a raw header text (for malformed cases); `data` zero bytes follow.
inline std::string safetensors_raw(const std::string& header, uint64_t declared_len,
                                   uint64_t data = 0) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((declared_len >> (8 * i)) & 0xFF);
  return out + header + std::string(data, '\0');
}

/// Builds a GGUF v3 file: metadata, tensor infos, zeroed aligned data.
class GgufWriter {
 public:
  void u32(const std::string& key, uint32_t v) { kv(key, 4), le(meta_, v, 4); }
  void u64(const std::string& key, uint64_t v) { kv(key, 10), le(meta_, v, 8); }
  void f32(const std::string& key, float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    kv(key, 6), le(meta_, bits, 4);
  }
  void boolean(const std::string& key, bool v) { kv(key, 7), meta_.push_back(v ? 1 : 0); }
  void str(const std::string& key, const std::string& v) { kv(key, 8), string(meta_, v); }
  void str_array(const std::string& key, const std::vector<std::string>& v) {
    kv(key, 9), le(meta_, 8, 4), le(meta_, v.size(), 8);
    for (const auto& s : v) string(meta_, s);
  }
  void i32_array(const std::string& key, const std::vector<int32_t>& v) {
    kv(key, 9), le(meta_, 5, 4), le(meta_, v.size(), 8);
    for (int32_t x : v) le(meta_, static_cast<uint32_t>(x), 4);
  }
  /// Adds a tensor of ggml type `type` whose data takes `bytes` (the caller computes it).
  void tensor(const std::string& name, const std::vector<uint64_t>& dims, uint32_t type,
              uint64_t bytes) {
    string(infos_, name);
    le(infos_, dims.size(), 4);
    for (uint64_t d : dims) le(infos_, d, 8);
    le(infos_, type, 4);
    le(infos_, data_, 8);
    data_ += (bytes + kAlign - 1) / kAlign * kAlign;
    ++tensors_;
  }
  /// The whole file.
  std::string bytes(uint32_t version = 3) const {
    std::string out = "GGUF";
    le(out, version, 4);
    le(out, tensors_, 8);
    le(out, kvs_, 8);
    out += meta_;
    out += infos_;
    out.resize((out.size() + kAlign - 1) / kAlign * kAlign, '\0');
    out.resize(out.size() + data_, '\0');
    return out;
  }

 private:
  static constexpr uint64_t kAlign = 32;
  static void le(std::string& s, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }
  static void string(std::string& s, const std::string& v) {
    le(s, v.size(), 8);
    s += v;
  }
  void kv(const std::string& key, uint32_t type) {
    string(meta_, key);
    le(meta_, type, 4);
    ++kvs_;
  }
  std::string meta_, infos_;
  uint64_t kvs_ = 0, tensors_ = 0, data_ = 0;
};

/// ggml type ids and bytes per block used by the writers' callers (ggml.h, ggml-common.h).
enum GgmlId : uint32_t { kF32 = 0, kF16 = 1, kQ8_0 = 8, kQ4_K = 12, kQ6_K = 14 };

/// A tiny Llama-layout GGUF: d=256, 2 layers, 4 heads, 2 KV heads, FFN 512, vocab 1000;
/// Q4_K body, Q6_K on attn_v/ffn_down/output, F32 norms (a Q4_K_M-like mix).
inline std::string tiny_llama_gguf(int layers = 2) {
  GgufWriter w;
  w.str("general.architecture", "llama");
  w.str("general.name", "tiny-llama");
  w.u32("llama.block_count", static_cast<uint32_t>(layers));
  w.u32("llama.embedding_length", 256);
  w.u32("llama.feed_forward_length", 512);
  w.u32("llama.attention.head_count", 4);
  w.u32("llama.attention.head_count_kv", 2);
  w.u32("llama.context_length", 4096);
  w.f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  std::vector<std::string> vocab(1000);
  for (size_t i = 0; i < vocab.size(); ++i) vocab[i] = std::to_string(i);
  w.str_array("tokenizer.ggml.tokens", vocab);
  auto q4k = [](uint64_t n) { return n / 256 * 144; };
  auto q6k = [](uint64_t n) { return n / 256 * 210; };
  w.tensor("token_embd.weight", {256, 1000}, kQ4_K, q4k(256000));
  for (int i = 0; i < layers; ++i) {
    std::string b = "blk.";  // built in steps: GCC 12 -Wrestrict false positive on a + chain
    b += std::to_string(i);
    b += ".";
    w.tensor(b + "attn_norm.weight", {256}, kF32, 1024);
    w.tensor(b + "attn_q.weight", {256, 256}, kQ4_K, q4k(65536));
    w.tensor(b + "attn_k.weight", {256, 128}, kQ4_K, q4k(32768));
    w.tensor(b + "attn_v.weight", {256, 128}, kQ6_K, q6k(32768));
    w.tensor(b + "attn_output.weight", {256, 256}, kQ4_K, q4k(65536));
    w.tensor(b + "ffn_norm.weight", {256}, kF32, 1024);
    w.tensor(b + "ffn_gate.weight", {256, 512}, kQ4_K, q4k(131072));
    w.tensor(b + "ffn_up.weight", {256, 512}, kQ4_K, q4k(131072));
    w.tensor(b + "ffn_down.weight", {512, 256}, kQ6_K, q6k(131072));
  }
  w.tensor("output_norm.weight", {256}, kF32, 1024);
  w.tensor("output.weight", {256, 1000}, kQ6_K, q6k(256000));
  return w.bytes();
}

}  // namespace gpusizer::testing
