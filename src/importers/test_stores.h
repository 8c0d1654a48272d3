#pragma once
// Fake local model stores for tests: a Hugging Face cache, a ModelScope cache and an Ollama store
// holding tiny models, laid out as those tools write them (see src/importers/model_store.cc).
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "importers/test_files.h"

namespace gpusizer::testing {

/// A tiny Llama config: d=8, 2 layers, 2 heads, 1 KV head (head_dim 4), FFN 16, vocab 32, untied.
inline const char* kStoreTinyConfig = R"({"model_type":"llama","hidden_size":8,
  "num_hidden_layers":2,"num_attention_heads":2,"num_key_value_heads":1,"intermediate_size":16,
  "vocab_size":32,"tie_word_embeddings":false})";

/// Its tensors, exactly 1,704 parameters: per layer 2 norms x 8 + q 8x8 + k 4x8 + v 4x8 + o 8x8
/// + gate, up 16x8 + down 8x16 = 16 + 192 + 384 = 592; 2 layers 1,184; embedding 32x8 = 256,
/// lm_head 256, final norm 8: 1,184 + 520 = 1,704.
inline std::vector<StTensor> store_tiny_tensors() {
  std::vector<StTensor> t;
  for (int i = 0; i < 2; ++i) {
    std::string p = "model.layers.";
    p += std::to_string(i);
    p += ".";
    t.push_back({p + "input_layernorm.weight", "BF16", {8}});
    t.push_back({p + "self_attn.q_proj.weight", "BF16", {8, 8}});
    t.push_back({p + "self_attn.k_proj.weight", "BF16", {4, 8}});
    t.push_back({p + "self_attn.v_proj.weight", "BF16", {4, 8}});
    t.push_back({p + "self_attn.o_proj.weight", "BF16", {8, 8}});
    t.push_back({p + "post_attention_layernorm.weight", "BF16", {8}});
    t.push_back({p + "mlp.gate_proj.weight", "BF16", {16, 8}});
    t.push_back({p + "mlp.up_proj.weight", "BF16", {16, 8}});
    t.push_back({p + "mlp.down_proj.weight", "BF16", {8, 16}});
  }
  t.push_back({"model.embed_tokens.weight", "BF16", {32, 8}});
  t.push_back({"model.norm.weight", "BF16", {8}});
  t.push_back({"lm_head.weight", "BF16", {32, 8}});
  return t;
}
inline constexpr int64_t kStoreTinyParams = 1704;
/// tiny_llama_gguf(): per layer norms 2 x 256 + q 256x256 + k, v 256x128 + o 256x256 + three FFN
/// 256x512 = 512 + 196,608 + 393,216 = 590,336; 2 layers 1,180,672; token_embd and output
/// 256x1000 each, output_norm 256: 1,180,672 + 512,256 = 1,692,928.
inline constexpr int64_t kStoreGgufParams = 1692928;
inline const char* kOllamaDigest =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

inline void write_file(const std::filesystem::path& p, const std::string& bytes) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

/// Under `root`: hf/ (HF_HUB_CACHE) with acme/tiny, whose snapshot files link to blobs as the
/// hub writes them; ms/ (MODELSCOPE_CACHE) with qwen/Tiny2.5-0.5B; ollama/ (OLLAMA_MODELS) with
/// tiny:q4.
inline void make_fake_stores(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  const fs::path repo = root / "hf" / "models--acme--tiny";
  write_file(repo / "refs" / "main", "c0ffee1234\n");
  write_file(repo / "blobs" / "aaa1", kStoreTinyConfig);
  write_file(repo / "blobs" / "bbb2", safetensors_file(store_tiny_tensors()));
  const fs::path snap = repo / "snapshots" / "c0ffee1234";
  fs::create_directories(snap);
  fs::create_symlink("../../blobs/aaa1", snap / "config.json");
  fs::create_symlink("../../blobs/bbb2", snap / "model.safetensors");

  const fs::path ms = root / "ms" / "hub" / "models" / "qwen" / "Tiny2___5-0___5B";
  write_file(ms / "config.json", kStoreTinyConfig);
  write_file(ms / "model.safetensors", safetensors_file(store_tiny_tensors()));

  const fs::path ol = root / "ollama";
  const std::string gguf = tiny_llama_gguf();
  write_file(ol / "blobs" / (std::string("sha256-") + kOllamaDigest), gguf);
  write_file(
      ol / "manifests" / "registry.ollama.ai" / "library" / "tiny" / "q4",
      std::string(
          R"({"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json",
  "config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"sha256:)") +
          std::string(64, 'e') + R"(","size":485},
  "layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:)" +
          kOllamaDigest + R"(","size":)" + std::to_string(gguf.size()) + R"(},
            {"mediaType":"application/vnd.ollama.image.params","digest":"sha256:)" +
          std::string(64, 'f') + R"(","size":100}]})");
}

}  // namespace gpusizer::testing
