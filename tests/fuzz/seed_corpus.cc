// Writes seed inputs for the fuzz targets: seed_corpus OUT_DIR SOURCE_DIR creates
// OUT_DIR/{gguf,safetensors,hf_config}/ with valid files the fuzzers mutate.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "importers/test_files.h"

namespace fs = std::filesystem;
using namespace gpusizer::testing;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: seed_corpus OUT_DIR SOURCE_DIR\n";
    return 2;
  }
  const fs::path out = argv[1];
  for (const char* d : {"gguf", "safetensors", "hf_config"}) fs::create_directories(out / d);
  auto put = [&](const fs::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary) << bytes;
  };
  put(out / "gguf" / "tiny_llama.gguf", tiny_llama_gguf(1));
  GgufWriter moe;
  moe.str("general.architecture", "qwen3moe");
  moe.u32("qwen3moe.block_count", 1);
  moe.u32("qwen3moe.embedding_length", 32);
  moe.u32("qwen3moe.attention.head_count", 2);
  moe.u32("qwen3moe.expert_count", 4);
  moe.u32("qwen3moe.expert_used_count", 2);
  moe.u32("qwen3moe.attention.sliding_window", 16);
  moe.i32_array("qwen3moe.attention.head_count_kv", {1});
  moe.boolean("general.flag", true);
  moe.u64("qwen3moe.vocab_size", 8);
  moe.tensor("token_embd.weight", {32, 8}, kF16, 512);
  moe.tensor("blk.0.ffn_gate_inp.weight", {32, 4}, kF32, 512);
  moe.tensor("blk.0.attn_q_norm.weight", {16}, kF32, 64);
  put(out / "gguf" / "moe.gguf", moe.bytes());
  put(out / "safetensors" / "dense.safetensors",
      safetensors_file({{"model.embed_tokens.weight", "BF16", {4, 4}},
                        {"model.layers.0.mlp.up_proj.weight", "F32", {2, 4}},
                        {"lm_head.weight", "F16", {4, 4}}}));
  put(out / "safetensors" / "gptq.safetensors", safetensors_file({{"a.qweight", "I32", {2, 8}},
                                                                  {"a.qzeros", "I32", {1, 1}},
                                                                  {"a.scales", "F16", {1, 8}},
                                                                  {"a.g_idx", "I32", {16}}}));
  const fs::path configs = fs::path(argv[2]) / "tests" / "fixtures" / "hf_configs";
  for (const auto& e : fs::directory_iterator(configs))
    if (e.path().extension() == ".json")
      fs::copy_file(e.path(), out / "hf_config" / e.path().filename(),
                    fs::copy_options::overwrite_existing);
  return 0;
}
