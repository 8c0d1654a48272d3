// Chinese end to end: many scenarios over every task (errors included) are answered with
// lang=zh, and every text left in English that is not an id, unit, formula or name is listed.
// When it fails, add the listed templates to data/lang/zh.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <random>
#include <set>
#include <string>

#include "embed/embedded.h"
#include "gpusizer/error.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/lang.h"
#include "gpusizer/lang.h"

namespace gpusizer {
namespace {

using nlohmann::json;

// Words that stay in a Chinese text: units, formula symbols, and the names of products, papers,
// engines, formats and hardware, as a Chinese engineer writes them.
const std::set<std::string>& kept_words() {
  static const std::set<std::string> words = [] {
    std::set<std::string> w;
    for (const char* s :
         {// units
          "B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "ms", "s", "h", "W", "kW", "kWh",
          "BTU", "PUE", "TDP", "px", "TF", "GHz", "TFLOPS", "FLOPs", "GFLOPs", "kFLOP", "x", "M",
          "N", "T", "USD", "CNY", "tokens", "token", "GPU", "GPUs", "CPU", "vCPU",
          // formula symbols
          "L", "seq", "batch", "vocab", "hidden", "heads", "bytes", "params", "eff", "max", "min",
          "prompt", "step", "allocated", "reserved", "overhead", "ubatch", "logits", "layers", "qk",
          "v", "rope", "images", "capacity", "bandwidth", "rate", "fp", "bf", "int", "nf", "f", "q",
          "k", "m", "e", "dp", "tp", "pp", "ep", "cp", "sp", "gpu", "lang", "en", "zh", "cv", "N",
          "json", "csv", "jsonl", "py", "cpp", "md",
          // names
          "KV", "TP", "PP", "DP", "EP", "SP", "CP", "MoE", "MLA", "MHA", "GQA", "MQA", "LoRA",
          "QLoRA", "NF", "AdamW", "Adam", "SGD", "ZeRO", "FSDP", "DeepSpeed", "Megatron", "vLLM",
          "SGLang", "TensorRT", "LLM", "HF", "PyTorch", "torch", "CUDA", "ROCm", "NCCL", "cuBLAS",
          "NVLink", "PCIe", "Gen", "ECC", "HBM", "GDDR", "BF", "FP", "FlashAttention", "SDPA",
          "Ampere", "Ada", "Hopper", "Blackwell", "Volta", "Turing", "NVIDIA", "AMD", "Apple",
          "Intel", "Gaudi", "AWS", "Azure", "Lambda", "CoreWeave", "MFU", "GEMM", "MAMF", "LM",
          "RoPE", "PaLM", "Korthikanti", "Dettmers", "Micikevicius", "bitsandbytes", "PEFT",
          "AutoAWQ", "AutoGPTQ", "Offload", "OAM", "SXM", "NVL", "ROCm", "Hugging", "Face",
          "config", "ModelScope", "Ollama", "VLLM", "BIS", "TPP", "HTTP", "URI", "POST", "JSON",
          "Content", "Type", "application", "NA", "cv-train", "llama", "safetensors", "gguf",
          "SkyPilot", "ReLU", "softmax", "Reuters", "Linux", "UPS", "kVA", "IB", "RDMA", "NIC",
          "GB/s", "TB/s", "et", "al", "sec", "appendix", "hf_config",
          // engine and optimizer ids, and terms Chinese engineers keep in English
          "hf", "vllm", "sglang", "trtllm", "deepspeed", "fsdp", "megatron", "adamw", "sgd", "lion",
          "adafactor", "autograd", "rank", "AWQ", "GPTQ", "graph", "Graph", "estimate", "Llama",
          "GeForce", "id", "analytic", "task", "reduce"})
      w.insert(s);
    return w;
  }();
  return words;
}

// The names and quoted source texts of the data files (GPU and model names, ids, format notes,
// instance names and price notes): they stay as the data files write them.
const std::vector<std::string>& data_texts() {
  static const std::vector<std::string> texts = [] {
    std::set<std::string> set;
    auto add = [&](const std::string& s) {
      if (s.size() >= 3) set.insert(s);
    };
    std::function<void(const json&)> walk = [&](const json& j) {
      if (j.is_string()) add(j.get<std::string>());
      if (j.is_array() || j.is_object())
        for (const auto& v : j) walk(v);
    };
    for (const auto& f : embedded::data_files()) {
      const std::string path(f.path);
      if (path.starts_with("lang/") || path.starts_with("validation/")) continue;
      if (path.ends_with(".json")) walk(json::parse(f.data.begin(), f.data.end(), nullptr, false));
      if (path.ends_with(".jsonl")) {
        size_t begin = 0;
        while (begin < f.data.size()) {
          size_t end = f.data.find('\n', begin);
          if (end == std::string_view::npos) end = f.data.size();
          const std::string_view line = f.data.substr(begin, end - begin);
          walk(json::parse(line.begin(), line.end(), nullptr, false));
          begin = end + 1;
        }
      }
      if (path.ends_with(".csv")) {  // cells, quotes aside
        std::string cell;
        bool quoted = false;
        for (char c : f.data) {
          if (c == '"') {
            quoted = !quoted;
          } else if ((c == ',' || c == '\n') && !quoted) {
            add(cell);
            cell.clear();
          } else {
            cell += c;
          }
        }
      }
    }
    for (const Model& m : Catalog::builtin().models()) {
      add(m.id);
      add(m.name);
      add(m.hf_id);
    }
    for (const Gpu& g : Catalog::builtin().gpus()) {
      add(g.id);
      add(g.name);
    }
    std::vector<std::string> out(set.begin(), set.end());
    std::sort(out.begin(), out.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    return out;
  }();
  return texts;
}

// The English words of `text` that are no id, unit, formula or name. Ids are tokens with a
// digit, '_', '-', '.', '/', '=', '*' or quotes; words in the kept list stay.
std::vector<std::string> english_words(std::string text, bool strip_data) {
  if (strip_data)
    for (const std::string& d : data_texts())
      for (size_t at = text.find(d); at != std::string::npos; at = text.find(d, at))
        text.replace(at, d.size(), " ");
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    // A token: a run of printable ASCII other than spaces and CJK-neighbouring punctuation.
    while (i < text.size() && (static_cast<unsigned char>(text[i]) >= 0x80 || text[i] == ' ' ||
                               std::string_view("(),;:?!").find(text[i]) != std::string_view::npos))
      ++i;
    size_t j = i;
    while (j < text.size() && static_cast<unsigned char>(text[j]) < 0x80 && text[j] != ' ' &&
           std::string_view("(),;:?!").find(text[j]) == std::string_view::npos)
      ++j;
    const std::string token = text.substr(i, j - i);
    i = j;
    if (token.empty()) continue;
    if (token.find_first_of("0123456789_-./=*'\"+<>[]{}$%^~|\\#@&") != std::string::npos) continue;
    if (kept_words().contains(token)) continue;
    bool letters = token.size() >= 2;
    for (char c : token) letters = letters && std::isalpha(static_cast<unsigned char>(c));
    if (letters) out.push_back(token);
  }
  return out;
}

// Keys whose strings are ids, names or data (never translated).
bool id_key(const std::string& key) {
  static const std::set<std::string> keys = {
      "scenario",  "patch",      "gpu",   "gpus",     "model",  "id",      "name",
      "gpu_name",  "instance",   "code",  "field",    "engine", "weights", "kv_cache",
      "objective", "price_date", "date",  "provider", "method", "binding", "suggestions",
      "task",      "family",     "kind",  "source",   "vendor", "segment", "currency",
      "region",    "deployment", "format"};
  return keys.contains(key);
}

void collect(const json& j, const std::string& path, std::set<std::string>& left) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      if (id_key(k)) continue;
      // An error message starts with the field it names (an id): "batch：必须 ...".
      const std::string field = j.contains("field") && j["field"].is_string() ? j["field"] : "";
      if (k == "message" && v.is_string() && !field.empty() &&
          v.get<std::string>().starts_with(field)) {
        collect(v.get<std::string>().substr(field.size()), path + "." + k, left);
        continue;
      }
      collect(v, path + "." + k, left);
    }
  } else if (j.is_array()) {
    for (const auto& v : j) collect(v, path + "[]", left);
  } else if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (english_words(s, false).empty()) return;
    const auto words = english_words(s, true);
    if (words.empty()) return;
    std::string which;
    for (const auto& w : words) which += (which.empty() ? "" : " ") + w;
    left.insert(path + ": " + s.substr(0, 300) + "   [" + which + "]");
  }
}

json zh_answer(const json& request, bool recommend) {
  json out;
  try {
    out = recommend ? recommend_json(request, Catalog::builtin())
                    : estimate_json(request, Catalog::builtin());
    localize(out, Lang::kZh);
  } catch (const InputError& e) {
    out = error_json(e.code(), e.what(), e.field(), Lang::kZh);
  }
  return out;
}

// Scenarios over every task, engine family, weights format and GPU kind, with the kinds of
// mistake people make, drawn the same way every run.
std::vector<std::pair<json, bool>> scenarios() {
  std::mt19937 rng(20261201);
  auto pick = [&](const auto& v) {
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
  };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  std::vector<std::string> llms, cvs, gpus;
  for (const Model& m : Catalog::builtin().models()) (m.is_cv() ? cvs : llms).push_back(m.id);
  for (const Gpu& g : Catalog::builtin().gpus()) gpus.push_back(g.id);
  const std::vector<std::string> tasks = {"inference", "inference", "inference", "lora",    "qlora",
                                          "full",      "freeze",    "pretrain",  "cv-train"};
  const std::vector<std::string> serving = {"hf", "vllm", "sglang", "trtllm", "llama.cpp"};
  const std::vector<std::string> training = {"hf", "deepspeed", "fsdp", "megatron"};
  const std::vector<std::string> weights = {"fp8",       "int8",   "int4", "awq-int4",
                                            "gptq-int4", "q4_k_m", "nf4",  "fp32"};
  const std::vector<int> batches = {1, 2, 8, 64, 512};
  const std::vector<int> seqs = {512, 4096, 32768, 200000};
  const std::vector<int> counts = {1, 1, 2, 4, 8, 16};
  std::vector<std::pair<json, bool>> out;
  for (int n = 0; n < 260; ++n) {
    const std::string task = pick(tasks);
    json s = {{"model", task == "cv-train" ? pick(cvs) : pick(llms)}, {"task", task}};
    if (chance(0.92)) s["gpu"] = pick(gpus);
    s["batch"] = pick(batches);
    if (task != "cv-train") s["seq_len"] = pick(seqs);
    if (const int c = pick(counts); c > 1) s["gpu_count"] = c;
    if (task == "inference") {
      s["engine"] = pick(serving);
      if (chance(0.4)) s["weights"] = pick(weights);
      if (chance(0.3)) s["kv_cache"] = chance(0.5) ? "fp8" : "q8_0";
      if (chance(0.1)) s["method"] = "rule-of-thumb";
    } else if (task != "cv-train") {
      s["engine"] = pick(training);
      if (chance(0.4)) s["training"]["zero_stage"] = pick(std::vector<int>{0, 1, 2, 3});
      if (chance(0.3)) s["training"]["gradient_checkpointing"] = chance(0.5) ? "selective" : "full";
      if (chance(0.3))
        s["training"]["optimizer"] = pick(
            std::vector<std::string>{"adamw-8bit", "sgd", "lion", "adafactor", "paged-adamw-8bit"});
      if (chance(0.2)) s["training"]["offload"] = chance(0.5) ? "optimizer" : "optimizer+params";
    }
    // A few recommends (the slowest call): without a GPU, sometimes with quantization.
    const bool recommend = n % 40 == 0;
    if (recommend) {
      s.erase("gpu");
      s.erase("gpu_count");
      s["allow_quantization"] = true;
    }
    out.emplace_back(s, recommend);
  }
  const json mistakes = json::parse(R"([
    {"model": "llama-2-7b", "gpu": "h1000"}, {"model": "lama-2-7b"},
    {"model": "llama-2-7b", "batch": -1}, {"model": "llama-2-7b", "task": "dance"},
    {"model": "llama-2-7b", "engine": "vlm"}, {"model": "llama-2-7b", "weights": "int3"},
    {"model": "llama-2-7b", "seq_len": 0}, {"model": "llama-2-7b", "colour": 1},
    {"model": "llama-2-7b", "batch": "x"}, {"model": "llama", "gpu": "a100"}, {"model": ""}, {},
    {"model": 12}, {"model": {"params": 5}}, {"model": {"x": 1}}, {"model": "24B", "gpu": "h100"},
    {"model": "meta-llama/Meta-Llama-3-70B", "gpu": "h100"},
    {"model": "llama-2-7b", "gpu": "h100", "gpu_count": 0},
    {"model": "llama-2-7b", "task": "full", "training": {"zero_stage": 7}},
    {"model": "llama-2-7b", "kv_cache": "int2"}, {"model": "llama-2-7b", "gpu_memory_utilization": 2},
    {"model": "llama-2-7b", "task": "full", "training": {"optimizer": "adamx"}},
    {"model": "llama-2-7b", "task": "full", "engine": "megatron", "gpu": "a100", "gpu_count": 3},
    {"model": "llama-2-7b", "task": "lora", "engine": "megatron"},
    {"model": "llama-2-7b", "prompt_len": 5000, "seq_len": 100, "gpu": "h100"},
    {"model": "llama-2-7b", "method": "magic"}, {"model": "yolov8n", "gpu": "h100"},
    {"model": "llama-2-7b", "task": "cv-train", "gpu": "h100"},
    {"model": "llama-2-70b", "gpu": "rtx-4090-24gb", "gpu_count": 8, "engine": "vllm"},
    {"model": "llama-2-7b", "gpu": "v100-sxm2-16gb", "task": "full", "gpu_count": 4},
    {"model": "llama-2-7b", "engine": "vllm", "gpu": "h100", "batch": 96, "max_num_seqs": 64,
     "max_model_len": 4096},
    {"model": "llama-2-7b", "engine": "vllm", "seq_len": 8192, "max_model_len": 4096},
    {"model": "llama-2-7b", "engine": "hf", "max_num_seqs": 64, "max_model_len": 4096},
    {"model": "llama-3.1-8b", "engine": "trtllm", "engine_version": "0.16", "gpu": "h100",
     "max_num_seqs": 512, "max_model_len": 8192}
  ])");
  for (const auto& m : mistakes) out.emplace_back(m, false);
  return out;
}

TEST(LangCoverage, EveryTextOfEveryTaskIsChinese) {
  std::set<std::string> left;
  for (const auto& [request, recommend] : scenarios())
    collect(zh_answer(request, recommend), recommend ? "recommend" : "estimate", left);
  std::string list;
  size_t shown = 0;
  for (const auto& l : left)
    if (++shown <= 150) list += "  " + l + "\n";
  EXPECT_TRUE(left.empty()) << left.size()
                            << " texts are still English (add templates to data/lang/zh.json):\n"
                            << list;
}

TEST(LangCoverage, TheCheckFindsEnglish) {
  // The detector itself: an English sentence is found, ids, units and names are not.
  EXPECT_FALSE(english_words("does not fit on this GPU", true).empty());
  EXPECT_TRUE(
      english_words("显存放不下：每块 GPU 需要 137.7 GiB，H100 SXM5 80GB 可用 79.2 GiB", true)
          .empty());
  EXPECT_TRUE(
      english_words("2 x L x kv_heads x head_dim x seq x batch x bytes（GQA；每值 2 B）", true)
          .empty());
}

}  // namespace
}  // namespace gpusizer
