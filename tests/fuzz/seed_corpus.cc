// Writes seed inputs for the fuzz targets: seed_corpus OUT_DIR SOURCE_DIR creates
// OUT_DIR/{gguf,safetensors,hf_config,ollama_manifest,log,scenario,http}/ with valid inputs the
// fuzzers mutate, and OUT_DIR/{scenario,http}.dict, libFuzzer dictionaries of the scenario's keys
// and names.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"

#include "importers/test_files.h"

namespace fs = std::filesystem;
using namespace gpusizer::testing;

namespace {

using nlohmann::json;

// Valid scenarios of every kind: inference on each engine, each training task, MoE and quantized
// models, inline configs, parameter counts, parallelism, vision training.
std::vector<json> scenarios(const fs::path& configs) {
  std::vector<json> all = {
      {{"model", "llama-2-7b"}},
      {{"model", "llama-3.1-8b"},
       {"gpu", "h100-sxm5-80gb"},
       {"engine", "vllm"},
       {"seq_len", 8192},
       {"batch", 16},
       {"kv_cache", "fp8"},
       {"gpu_memory_utilization", 0.85}},
      {{"model", "qwen3-30b-a3b"},
       {"gpu", "a100-sxm4-80gb"},
       {"engine", "sglang"},
       {"gpu_count", 2},
       {"weights", "fp8"}},
      {{"model", "mixtral-8x7b-v0.1"},
       {"gpu", "h100"},
       {"parallel", {{"tp", 2}, {"ep", 2}}},
       {"engine", "vllm"}},
      {{"model", "llama-2-7b"},
       {"gpu", "rtx-4090-24gb"},
       {"engine", "llama.cpp"},
       {"weights", "q4_k_m"},
       {"kv_cache", "q8_0"},
       {"prompt_len", 1000},
       {"output_len", 200}},
      {{"model", "qwen2.5-7b"}, {"engine", "trtllm"}, {"gpu", "l40s"}, {"weights", "int8"}},
      {{"model", "llama-2-7b"},
       {"task", "lora"},
       {"gpu", "a10-24gb"},
       {"training",
        {{"lora_rank", 16},
         {"lora_targets", {"q_proj", "v_proj"}},
         {"gradient_checkpointing", true}}}},
      {{"model", "qwen2.5-72b"},
       {"task", "qlora"},
       {"gpu", "a100-80g"},
       {"training", {{"optimizer", "paged-adamw-8bit"}, {"gradient_checkpointing", "selective"}}}},
      {{"model", "llama-2-13b"},
       {"task", "full"},
       {"engine", "deepspeed"},
       {"gpu_count", 8},
       {"gpu", "a100-sxm4-80gb"},
       {"training",
        {{"zero_stage", 3},
         {"mixed_precision", "bf16"},
         {"grad_accum", 4},
         {"tokens", 1e9},
         {"offload", "optimizer"}}}},
      {{"model", "llama-3.1-70b"},
       {"task", "pretrain"},
       {"engine", "megatron"},
       {"gpu", "h100-sxm5-80gb"},
       {"gpu_count", 16},
       {"parallel",
        {{"tp", 4}, {"pp", 2}, {"dp", 2}, {"sequence_parallel", true}, {"pp_interleave", 2}}},
       {"training", {{"global_batch", 512}, {"mixed_precision", "fp16"}}}},
      {{"model", "llama-2-7b"},
       {"task", "freeze"},
       {"engine", "fsdp"},
       {"gpu_count", 2},
       {"training", {{"trainable_layers", 4}, {"optimizer", "lion"}}}},
      {{"model", "yolov8m"},
       {"task", "cv-train"},
       {"gpu", "rtx-4090-24gb"},
       {"image_size", 640},
       {"dataset_items", 118287},
       {"epochs", 100},
       {"batch", 16}},
      {{"model", {{"params", 7e9}}}, {"gpu", "a100-sxm4-80gb"}, {"method", "rule-of-thumb"}},
      {{"model", "deepseek-v3"},
       {"gpu", "h200"},
       {"gpu_count", 8},
       {"engine", "vllm"},
       {"weights", "fp8"}},
  };
  // One inline {"hf_config": ...} per fixture that parses as an object.
  for (const auto& e : fs::directory_iterator(configs)) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    const json config = json::parse(in, nullptr, false);
    if (config.is_object())
      all.push_back({{"model", {{"hf_config", config}}}, {"gpu", "h100-sxm5-80gb"}});
  }
  return all;
}

template <class Put>
void write_scenario_seeds(const fs::path& out, const fs::path& configs, Put put) {
  const auto all = scenarios(configs);
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string body = all[i].dump();
    put(out / "scenario" / ("scenario_" + std::to_string(i) + ".json"), body);
    if (i < 8)
      put(out / "http" / ("estimate_" + std::to_string(i)),
          "POST\n/api/v1/estimate\nHost: 127.0.0.1:8080\nContent-Type: application/json\n\n" +
              body);
  }
  put(out / "http" / "recommend",
      "POST\n/api/v1/recommend\nHost: localhost\nContent-Type: application/json\n\n" +
          json{{"model", "llama-2-7b"}, {"seq_len", 4096}}.dump());
  put(out / "http" / "gpus", "GET\n/api/v1/gpus\nHost: 127.0.0.1:8080\n\n");
  put(out / "http" / "no_host", "GET\n/api/v1/gpus\n\n");
  put(out / "http" / "two_hosts", "GET\n/api/v1/gpus\nHost: localhost\nHost: evil.example\n\n");
  put(out / "http" / "rebinding", "GET\n/api/v1/gpus\nHost: 127.0.0.1.nip.io:8080\n\n");
  put(out / "http" / "healthz", "GET\n/healthz\nHost: localhost:8080\n\n");
  put(out / "http" / "metrics", "GET\n/metrics\nHost: localhost:8080\n\n");
  put(out / "http" / "text_plain",
      "POST\n/api/v1/estimate\nHost: localhost\nContent-Type: text/plain\n\n{\"model\": 1}");
  put(out / "http" / "models", "GET\n/api/v1/models\nHost: [::1]:80\n\n");
  put(out / "http" / "openapi", "GET\n/api/v1/openapi.json\nHost: localhost\n\n");
  put(out / "http" / "page", "GET\n/\nHost: localhost\n\n");
  put(out / "http" / "preflight",
      "OPTIONS\n/api/v1/estimate\nHost: localhost:8080\nOrigin: http://x\n\n");
  put(out / "http" / "foreign_host", "GET\n/api/v1/gpus\nHost: attacker.example\n\n");
  put(out / "http" / "put", "PUT\n/api/v1/estimate\nHost: localhost\n\n{}");
  put(out / "http" / "path_model",
      "POST\n/api/v1/estimate\nHost: localhost\nContent-Type: application/json\n\n{\"model\": "
      "\"../../etc/passwd.json\"}");
  put(out / "http" / "nul_path",
      "POST\n/api/v1/estimate\nHost: localhost\nContent-Type: application/json\n\n{\"model\": "
      "\"/etc/passwd\\u0000.json\"}");

  // Dictionaries: every scenario key (as parse_scenario knows them) and name, quoted as they
  // appear in JSON.
  std::set<std::string> words = {"inference", "lora",     "qlora",         "full",
                                 "freeze",    "pretrain", "cv-train",      "hf",
                                 "vllm",      "sglang",   "trtllm",        "llama.cpp",
                                 "deepspeed", "fsdp",     "megatron",      "bf16",
                                 "fp16",      "fp32",     "fp8",           "int8",
                                 "int4",      "nf4",      "q4_k_m",        "q8_0",
                                 "selective", "adamw",    "rule-of-thumb", "all-linear",
                                 "q_proj",    "lm_head",  "embed_tokens",  "optimizer+params"};
  const gpusizer::ScenarioKeys& keys = gpusizer::scenario_keys();
  for (const auto* section : {&keys.top, &keys.model, &keys.training, &keys.parallel})
    words.insert(section->begin(), section->end());
  const gpusizer::Catalog& catalog = gpusizer::Catalog::builtin();
  size_t n = 0;
  for (const auto& m : catalog.models())
    if (n++ % 4 == 0) words.insert(m.id);
  n = 0;
  for (const auto& g : catalog.gpus())
    if (n++ % 4 == 0) words.insert(g.id);
  std::string dict;
  for (const auto& w : words) dict += json(w).dump() + "\n";
  for (const char* number :
       {"0", "-1", "1e308", "-0", "0.5", "1e-9", "9007199254740993", "null", "true", "[]", "{}"})
    dict += json(number).dump() + "\n";
  put(out / "scenario.dict", dict);
  std::string http_dict = dict;
  for (const char* w : {"POST", "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "/api/v1/estimate",
                        "/api/v1/recommend", "/api/v1/gpus", "/api/v1/models", "/healthz",
                        "/metrics", "Host: ", "Content-Type: application/json", "localhost",
                        "127.0.0.1", "[::1]", ":8080", "\\u0000"})
    http_dict += json(w).dump() + "\n";
  put(out / "http.dict", http_dict);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: seed_corpus OUT_DIR SOURCE_DIR\n";
    return 2;
  }
  const fs::path out = argv[1];
  for (const char* d :
       {"gguf", "safetensors", "hf_config", "scenario", "http", "ollama_manifest", "log"})
    fs::create_directories(out / d);
  auto put = [&](const fs::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary) << bytes;
  };
  put(out / "ollama_manifest" / "manifest.json",
      R"({"schemaVersion":2,"layers":[{"mediaType":"application/vnd.ollama.image.model",)"
      R"("digest":"sha256:)" +
          std::string(64, 'a') + R"(","size":4000}]})");
  put(out / "log" / "vllm.log",
      "Loading model weights took 14.9888 GB\n# GPU blocks: 1952, # CPU blocks: 2048\n"
      "Maximum concurrency for 20000 tokens per request: 1.56x\n");
  put(out / "log" / "sglang.log",
      "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB\n");
  put(out / "log" / "llama.log",
      "llm_load_tensors:      CUDA0 buffer size =  5434.38 MiB\n"
      "llama_new_context_with_model: KV self size  = 5120.00 MiB\n");
  put(out / "log" / "bench.md",
      "| model | size | params | backend | ngl | test | t/s |\n| --- | --- | --- | --- | --- | --- "
      "| --- |\n| llama 7B F16 | 12.55 GiB | 6.74 B | CUDA | 99 | pp 512 | 11048.22 ± 269.74 |\n");
  put(out / "log" / "figures.csv", "model,gpu,decode_tokens_per_s\nllama-2-7b,rtx-4090,61\n");
  put(out / "log" / "figures.json",
      R"({"scenario": {"model": "llama-2-7b"}, "measured": {"weights_bytes": 13476831232}})");
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
  write_scenario_seeds(out, configs, put);
  return 0;
}
