// Inspect times for large synthetic checkpoints: a 100-shard safetensors model (index + shards,
// headers only) and a GGUF with 1,000 tensors. Run: ./build/importers_bench
#include <benchmark/benchmark.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "../src/importers/test_files.h"
#include "gpusizer/importers.h"
#include "gpusizer/json/importers.h"

namespace fs = std::filesystem;
using namespace gpusizer;

namespace {

fs::path bench_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("gpusizer_bench_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d / "sharded");
    // 100 shards of a 100-layer Llama-style model, one layer (9 tensors) per shard, d=64.
    nlohmann::json index = {{"weight_map", nlohmann::json::object()}};
    for (int s = 0; s < 100; ++s) {
      const std::string p = "model.layers." + std::to_string(s) + ".";
      std::vector<testing::StTensor> t = {{p + "input_layernorm.weight", "BF16", {64}},
                                          {p + "self_attn.q_proj.weight", "BF16", {64, 64}},
                                          {p + "self_attn.k_proj.weight", "BF16", {16, 64}},
                                          {p + "self_attn.v_proj.weight", "BF16", {16, 64}},
                                          {p + "self_attn.o_proj.weight", "BF16", {64, 64}},
                                          {p + "post_attention_layernorm.weight", "BF16", {64}},
                                          {p + "mlp.gate_proj.weight", "BF16", {128, 64}},
                                          {p + "mlp.up_proj.weight", "BF16", {128, 64}},
                                          {p + "mlp.down_proj.weight", "BF16", {64, 128}}};
      if (s == 0) t.push_back({"model.embed_tokens.weight", "BF16", {1000, 64}});
      if (s == 99) {
        t.push_back({"model.norm.weight", "BF16", {64}});
        t.push_back({"lm_head.weight", "BF16", {1000, 64}});
      }
      char name[64];
      std::snprintf(name, sizeof name, "model-%05d-of-00100.safetensors", s + 1);
      std::ofstream(d / "sharded" / name, std::ios::binary) << testing::safetensors_file(t);
      for (const auto& x : t) index["weight_map"][x.name] = name;
    }
    std::ofstream(d / "sharded" / "model.safetensors.index.json") << index.dump();
    std::ofstream(d / "sharded" / "config.json")
        << R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":100,
              "num_attention_heads":4,"num_key_value_heads":1,"intermediate_size":128,
              "vocab_size":1000})";
    // 1,000 tensors: 111 layers x 9 + embedding, norm and output.
    std::ofstream(d / "big.gguf", std::ios::binary) << testing::tiny_llama_gguf(111);
    return d;
  }();
  return dir;
}

void BM_InspectSharded100(benchmark::State& state) {
  const std::string path = (bench_dir() / "sharded").string();
  for (auto _ : state) {
    ImportedModel im = import_model_path(path);
    benchmark::DoNotOptimize(imported_to_json(im, gpusizer::Catalog::builtin()));
  }
}
BENCHMARK(BM_InspectSharded100)->Unit(benchmark::kMillisecond);

void BM_InspectGguf1000Tensors(benchmark::State& state) {
  const std::string path = (bench_dir() / "big.gguf").string();
  for (auto _ : state) {
    ImportedModel im = import_model_path(path);
    if (im.weights->tensors != 1002) state.SkipWithError("unexpected tensor count");
    benchmark::DoNotOptimize(imported_to_json(im, gpusizer::Catalog::builtin()));
  }
}
BENCHMARK(BM_InspectGguf1000Tensors)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  fs::remove_all(bench_dir());
  return 0;
}
