// Log and figures readers (docs/stores-and-logs.md). The wordings matched and their units, by
// source:
// - vLLM V0 worker/model_runner.py: "Loading model weights took X GB" where X is bytes / 2^30
//   (so "GB" means GiB); worker.py "Memory profiling results: ... non_torch_memory=..GiB
//   kv_cache_size=..GiB" (0.6) and "model weights take X GiB; non_torch_memory takes Y GiB;
//   PyTorch activation peak memory takes Z GiB; the rest of the memory reserved for KV Cache is
//   W GiB" (0.7); executor "# GPU blocks: N" (blocks of CacheConfig.block_size = 16 tokens by
//   default, vllm/config.py).
// - vLLM V1 v1/worker/gpu_model_runner.py "Model loading took X GiB", gpu_worker.py "Available
//   KV cache memory: X GiB", v1/core/kv_cache_utils.py "GPU KV cache size: N tokens" and
//   "Maximum concurrency for L tokens per request: C x".
// - SGLang model_executor/model_runner.py: "Load weight end. ... mem usage=X GB" and memory_pool
//   "KV Cache is allocated. #tokens: N, K size: A GB, V size: B GB", where GB is bytes / 2^30
//   (utils.get_available_gpu_memory); scheduler "max_total_num_tokens=N ... context_len=L".
// - llama.cpp src/llama-model.cpp "load_tensors: DEV model buffer size = X MiB" (older
//   llm_load_tensors "DEV buffer size"), llama-kv-cache "KV self size = X MiB" or "DEV KV buffer
//   size = X MiB", llama-context "DEV compute buffer size = X MiB", "n_ctx = N"; MiB = 2^20.
// - TensorRT-LLM's C++ runtime under trtllm-bench (0.8-0.21): "TensorRT-LLM version: 0.16.0";
//   trtGptModelInflightBatching.cpp "TRTGptModel maxNumSequences: N", "maxSequenceLen: N",
//   "maxNumTokens: N" (the PyTorch backend of 1.0: "max_seq_len=N, max_num_requests=N,
//   max_num_tokens=N"); tllmRuntime "Loaded engine size: X MiB"; "[MemUsageChange] Allocated X GiB
//   for max tokens in paged KV cache (N)." (kvCacheManager; GiB = 2^30, N tokens); trtllm-bench's
//   report (bench/dataclasses/reporting.py): "Model:", "TP Size:", "PP Size:", "Quantization:",
//   "KV Cache Dtype:", "KV Memory Percentage: 90.00%", "Number of requests:", "Average Input
//   Length (tokens):", "Average Output Length (tokens):", "Token Throughput (tokens/sec):"
//   (output tokens over the total latency).
// - llama-bench (tools/llama-bench/llama-bench.cpp): markdown columns model, size, params,
//   backend, ngl, test (pp512, tg128), t/s ("mean ± sd"); JSON/JSONL/CSV fields model_type,
//   n_prompt, n_gen, n_gpu_layers, avg_ts, gpu_info.
#include "gpusizer/log_reader.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>

#include "catalog/csv.h"
#include "gpusizer/error.h"
#include "importers/json_guard.h"

namespace gpusizer {
namespace {

using json = nlohmann::json;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr size_t kMaxLine = 64 * 1024;  // longer lines are read up to here
constexpr int kMaxRuns = 100'000;
constexpr int64_t kVllmBlockTokens = 16;  // vLLM CacheConfig.block_size default

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool contains(std::string_view s, std::string_view what) {
  return s.find(what) != s.npos;
}

// A decimal number at the start of `s` (digits, thousands commas, one point); `used` its length.
std::optional<double> leading_number(std::string_view s, size_t* used = nullptr) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  std::string digits;
  bool point = false;
  const size_t start = i;
  for (; i < s.size() && digits.size() < 40; ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9')
      digits += c;
    else if (c == '.' && !point && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9')
      point = true, digits += c;
    else if (c == ',' && !point && !digits.empty() && i + 1 < s.size() && s[i + 1] >= '0' &&
             s[i + 1] <= '9')
      continue;
    else
      break;
  }
  if (digits.empty() || i == start) return std::nullopt;
  if (used) *used = i;
  const double v = std::strtod(digits.c_str(), nullptr);
  // Beyond 10^15 no log figure is meant (and counts must convert to int64 safely).
  return std::isfinite(v) && v <= 1e15 ? std::optional<double>(v) : std::nullopt;
}

std::optional<double> number_after(std::string_view line, std::string_view marker) {
  const size_t at = line.find(marker);
  if (at == line.npos) return std::nullopt;
  return leading_number(line.substr(at + marker.size()));
}

// A size after `marker` with its unit: GiB/GB (engines that print GB divide by 2^30, see the top
// of this file), MiB/MB (llama.cpp divides by 2^20), KiB.
std::optional<double> bytes_after(std::string_view line, std::string_view marker) {
  const size_t at = line.find(marker);
  if (at == line.npos) return std::nullopt;
  const std::string_view rest = line.substr(at + marker.size());
  size_t used = 0;
  const auto v = leading_number(rest, &used);
  if (!v) return std::nullopt;
  const std::string_view unit = trim(rest.substr(used)).substr(0, 3);
  if (unit.starts_with("G")) return *v * kGiB;
  if (unit.starts_with("M")) return *v * kMiB;
  if (unit.starts_with("K")) return *v * 1024.0;
  return std::nullopt;
}

// The text after `marker` up to `end`.
std::optional<std::string> text_after(std::string_view line, std::string_view marker, char end) {
  const size_t at = line.find(marker);
  if (at == line.npos) return std::nullopt;
  const std::string_view rest = line.substr(at + marker.size());
  const size_t stop = rest.find(end);
  if (stop == rest.npos || stop == 0 || stop > 1024) return std::nullopt;
  return std::string(rest.substr(0, stop));
}

// A Hugging Face cache path (".../models--ORG--NAME/snapshots/REV") names ORG/NAME.
std::string model_from_path(const std::string& m) {
  const size_t at = m.find("models--");
  if (at == std::string::npos) return m;
  std::string rest = m.substr(at + 8);
  rest = rest.substr(0, rest.find('/'));
  const size_t sep = rest.find("--");
  return sep == std::string::npos ? rest : rest.substr(0, sep) + "/" + rest.substr(sep + 2);
}

// llama.cpp file types ("Q4_K - Medium", "Q8_0", "F16") as gpusizer weight formats.
std::optional<std::string> gguf_format(std::string_view t) {
  std::string s(trim(t));
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  struct Map {
    const char* from;
    const char* to;
  };
  for (const Map& m :
       {Map{"q4_k - medium", "q4_k_m"}, Map{"q5_k - medium", "q5_k_m"},
        Map{"q3_k - medium", "q3_k_m"}, Map{"q2_k", "q2_k"}, Map{"q6_k", "q6_k"},
        Map{"q8_0", "q8_0"}, Map{"q4_0", "q4_0"}, Map{"q4_1", "q4_1"}, Map{"q5_0", "q5_0"},
        Map{"q5_1", "q5_1"}, Map{"bf16", "bf16"}, Map{"f16", "fp16"}, Map{"f32", "fp32"}})
    if (s.ends_with(m.from)) return std::string(m.to);
  return std::nullopt;
}

std::string cut(std::string_view line) {
  line = trim(line);
  return std::string(line.substr(0, 160));
}

class Collector {
 public:
  explicit Collector(std::string source) : default_source_(std::move(source)) {}

  LogRun& run() {
    if (runs_.empty()) new_run();
    return runs_.back();
  }
  void new_run() {
    LogRun r;
    r.source = default_source_;
    if (!runs_.empty()) {
      const LogRun& last = runs_.back();
      r.scenario = last.scenario, r.source = last.source;
      r.engine_version_inferred_from = last.engine_version_inferred_from;
      r.engine_path = last.engine_path;
    }
    runs_.push_back(std::move(r));
  }
  void source(const std::string& s) {
    if (run().figures.empty()) run().source = s;
  }
  LogFigure* find(const std::string& key) {
    for (auto& f : run().figures)
      if (f.key == key) return &f;
    return nullptr;
  }
  // A figure from line `n`. Weights loaded again after the start-up's last lines (KV cache
  // tokens, block count, concurrency: printed once, by the engine) begin the next start-up; the
  // same figure again with the same value is another worker process saying it (tensor
  // parallelism); with another value it is the next start-up too.
  void add(const std::string& key, double value, int n, std::string_view line) {
    const bool ended = find("kv_cache_tokens") || find("gpu_blocks") || find("max_concurrency");
    if (key == "weights_bytes" && ended) {
      new_run();
    } else if (LogFigure* f = find(key)) {
      if (std::abs(f->value - value) <= 1e-9 * std::abs(value)) {
        ++f->repeats;
        return;
      }
      new_run();
    }
    run().figures.push_back({key, value, n, cut(line), 1, ""});
  }
  // Per-device sizes of one start-up add up (llama.cpp prints one line per device).
  void add_sum(const std::string& key, double value, int n, std::string_view line) {
    if (LogFigure* f = find(key)) {
      f->value += value;
      f->derived = "sum over devices";
      return;
    }
    add(key, value, n, line);
  }
  void remove(const std::string& key) {
    auto& f = run().figures;
    f.erase(std::remove_if(f.begin(), f.end(), [&](const LogFigure& x) { return x.key == key; }),
            f.end());
  }
  void derive(const std::string& key, double value, const std::string& how) {
    if (find(key)) return;
    LogFigure f{key, value, 0, "", 1, how};
    run().figures.push_back(std::move(f));
  }
  // The engine version: the first the log states, which wins over one inferred from the form of
  // a line wherever that line is.
  void stated_version(const std::string& v) {
    if (run().scenario.contains("engine_version") && run().engine_version_inferred_from.empty())
      return;
    run().scenario["engine_version"] = v;
    run().engine_version_inferred_from.clear();
  }
  void inferred_version(const std::string& v, const std::string& how) {
    if (run().scenario.contains("engine_version")) return;
    run().scenario["engine_version"] = v;
    run().engine_version_inferred_from = how;
  }
  void set(const std::string& key, const json& v) { run().scenario[key] = v; }
  void set_if_missing(const std::string& key, const json& v) {
    if (!run().scenario.contains(key)) run().scenario[key] = v;
  }
  std::vector<LogRun> take() {
    std::vector<LogRun> out;
    for (auto& r : runs_)
      if (!r.figures.empty()) out.push_back(std::move(r));
    return out;
  }

 private:
  std::string default_source_;
  std::vector<LogRun> runs_;
};

// --- line-oriented logs -----------------------------------------------------------------------

bool is_cpu_device(std::string_view dev) {
  return dev.starts_with("CPU") || dev.starts_with("CUDA_Host") || dev.empty();
}

// The device name before `marker` in "load_tensors:      CUDA0 model buffer size = ...".
std::string device_before(std::string_view line, std::string_view marker) {
  const size_t at = line.find(marker);
  std::string_view head = trim(line.substr(0, at));
  const size_t sp = head.find_last_of(" :");
  return std::string(sp == head.npos ? head : head.substr(sp + 1));
}

// Marks the line as vLLM's: the log is a vLLM start-up.
void mark_vllm(Collector& c, bool& seen) {
  seen = true;
  c.source("vllm");
  c.set_if_missing("engine", "vllm");
}

// A stated version as the dotted numbers data/engines.json's ranges compare: "0.8.5" from
// "v0.8.5", "0.6.3" from "0.6.3.post1", "0.4.6" from "0.4.6.post5-cu124", "1.0.0" from
// "1.0.0rc4" (the suffix names a build of that release, not other rules); nullopt without a
// "major.minor" number ("vdev": a build from source).
std::optional<std::string> dotted_version(std::string_view v) {
  if (!v.empty() && (v.front() == 'v' || v.front() == 'V')) v.remove_prefix(1);
  auto digit = [&](size_t i) { return i < v.size() && v[i] >= '0' && v[i] <= '9'; };
  size_t end = 0;
  auto point = [&](size_t i) { return i > 0 && i < v.size() && v[i] == '.' && digit(i + 1); };
  while (end < 32 && (digit(end) || point(end))) ++end;
  const std::string_view number = v.substr(0, end);
  if (number.empty() || number.find('.') == number.npos) return std::nullopt;
  return std::string(number);
}

// A vLLM line that states the version and the engine path: "Initializing a V1 LLM engine
// (v0.8.5) with config" (V0 likewise; before 0.8 "Initializing an LLM engine (v0.6.4.post1)").
// Without it, the form of the memory lines still tells the code path and so the release whose
// rules it follows: 0.6.4's one-line key=value "Memory profiling results" (vLLM PR #9352, replaced
// in 0.6.5), V0 worker.py's "model weights take ..." summary (PR #12126's memory_profiling,
// release 0.7), V1's gpu_worker.py (the oldest V1 release, 0.10). These are inferred, and say so.
void scan_vllm_version(Collector& c, std::string_view line, int n, bool& seen) {
  if (const size_t at = line.find("LLM engine (v"); at != std::string_view::npos) {
    const auto version = dotted_version(line.substr(at + 12));
    const char* path = contains(line, "V1 LLM engine")   ? "V1"
                       : contains(line, "V0 LLM engine") ? "V0"
                                                         : "";
    if (!version && !*path) return;
    mark_vllm(c, seen);
    if (version) c.stated_version(*version);
    if (*path && c.run().engine_path.empty()) c.run().engine_path = path;
    return;
  }
  struct Form {
    const char* version;
    const char* what;
  };
  std::optional<Form> form;
  if (contains(line, "Memory profiling results:") && contains(line, "non_torch_memory="))
    form = Form{"0.6.4", "0.6.4's one-line key=value 'Memory profiling results', vLLM PR #9352"};
  else if (contains(line, "gpu_worker.py") || contains(line, "Available KV cache memory:"))
    form = Form{"0.10", "V1's gpu_worker.py lines: the oldest V1 release modelled"};
  else if (contains(line, "worker.py") && contains(line, "model weights take"))
    form = Form{"0.7", "V0 worker.py's 'model weights take' summary, vLLM PR #12126"};
  if (!form) return;
  mark_vllm(c, seen);
  c.inferred_version(form->version, "line " + std::to_string(n) + ": " + form->what);
}

// Weights, non-torch memory and the activation peak: V0 worker.py's "model weights take ...",
// 0.6's "Memory profiling results: ...", the loaders' "Loading model weights took" (V0) and
// "Model loading took" (V1).
void scan_vllm_memory(Collector& c, std::string_view line, int n, bool& seen) {
  if (auto v = bytes_after(line, "Loading model weights took")) {
    mark_vllm(c, seen), c.add("weights_bytes", *v, n, line);
  } else if (auto v1 = bytes_after(line, "Model loading took")) {
    mark_vllm(c, seen), c.add("weights_bytes", *v1, n, line);
  }
  if (contains(line, "model weights take")) {
    mark_vllm(c, seen);
    if (auto v = bytes_after(line, "model weights take")) c.add("weights_bytes", *v, n, line);
    if (auto v = bytes_after(line, "non_torch_memory takes")) c.add("non_torch_bytes", *v, n, line);
    if (auto v = bytes_after(line, "activation peak memory takes"))
      c.add("activation_peak_bytes", *v, n, line);
    if (auto v = bytes_after(line, "reserved for KV Cache is"))
      c.add("kv_cache_bytes", *v, n, line);
  }
  if (contains(line, "Memory profiling results:")) {
    mark_vllm(c, seen);
    if (auto v = bytes_after(line, "non_torch_memory=")) c.add("non_torch_bytes", *v, n, line);
    if (auto v = bytes_after(line, "kv_cache_size=")) c.add("kv_cache_bytes", *v, n, line);
    if (auto u = number_after(line, "gpu_memory_utilization=")) c.set("gpu_memory_utilization", *u);
    const auto peak = bytes_after(line, "peak_torch_memory=");
    const LogFigure* w = c.find("weights_bytes");
    if (peak && w && *peak >= w->value)
      c.derive("activation_peak_bytes", *peak - w->value,
               "peak_torch_memory - weights (vLLM 0.6 worker.py profile)");
  }
  // "the current vLLM instance can use total_gpu_memory (23.58GiB) x gpu_memory_utilization (0.99)"
  if (auto u = number_after(line, "x gpu_memory_utilization (")) {
    mark_vllm(c, seen);
    c.set("gpu_memory_utilization", *u);
  }
}

// The KV cache the start-up ends with: its bytes (V1), blocks (V0), tokens and concurrency.
void scan_vllm_kv(Collector& c, std::string_view line, int n, bool& seen) {
  if (auto v = bytes_after(line, "Available KV cache memory:"))
    mark_vllm(c, seen), c.add("kv_cache_bytes", *v, n, line);
  if (contains(line, "GPU blocks:") && !contains(line, "KV cache")) {
    if (auto v = number_after(line, "GPU blocks:"))
      mark_vllm(c, seen), c.add("gpu_blocks", *v, n, line);
  }
  if (auto v = number_after(line, "GPU KV cache size:"))
    mark_vllm(c, seen), c.add("kv_cache_tokens", *v, n, line);
  if (contains(line, "Maximum concurrency for")) {
    const auto len = number_after(line, "Maximum concurrency for");
    const auto x = number_after(line, "per request:");
    if (len && x) {
      mark_vllm(c, seen);
      c.add("max_concurrency", *x, n, line);
      c.set("seq_len", static_cast<int64_t>(*len));
    }
  }
}

// vLLM's quantization= value as a weights format of data/formats.csv.
void set_vllm_weights(Collector& c, std::string_view line) {
  const auto q = text_after(line, "quantization=", ',');
  if (q && *q != "None") {
    if (*q == "fp8") c.set("weights", "fp8");
    if (q->starts_with("awq")) c.set("weights", "awq-int4");
    if (q->starts_with("gptq")) c.set("weights", "gptq-int4");
    if (*q == "bitsandbytes") c.set("weights", "nf4");
  } else if (contains(line, "dtype=torch.float16")) {
    c.set("weights", "fp16");
  }
}

// Engine configuration: "Initializing an LLM engine (...) with config: model='...', ..." (V0)
// and "non-default args: {'model': '...', ...}" (V1).
void scan_vllm_config(Collector& c, std::string_view line, bool& seen) {
  if (!contains(line, "with config: model=") && !contains(line, "non-default args:")) return;
  mark_vllm(c, seen);
  auto model = text_after(line, "with config: model='", '\'');
  if (!model) model = text_after(line, "'model': '", '\'');
  if (model) c.set("model", model_from_path(*model));
  for (const char* key : {"max_seq_len=", "'max_model_len': "})
    if (auto v = number_after(line, key)) c.set("seq_len", static_cast<int64_t>(*v));
  for (const char* key : {"tensor_parallel_size=", "'tensor_parallel_size': "})
    if (auto v = number_after(line, key))
      c.run().scenario["parallel"]["tp"] = static_cast<int64_t>(*v);
  if (auto v = number_after(line, "'gpu_memory_utilization': "))
    c.set("gpu_memory_utilization", *v);
  // The scheduler's limits when set (V1 lists only the arguments that differ from the default).
  for (const char* key : {"max_num_seqs", "max_num_batched_tokens"})
    if (auto v = number_after(line, "'" + std::string(key) + "': "))
      c.set(key, static_cast<int64_t>(*v));
  if (auto kv = text_after(line, "kv_cache_dtype=", ','); kv && kv->starts_with("fp8"))
    c.set("kv_cache", "fp8");
  set_vllm_weights(c, line);
}

void scan_vllm(Collector& c, std::string_view line, int n, bool& seen) {
  scan_vllm_version(c, line, n, seen);
  scan_vllm_memory(c, line, n, seen);
  scan_vllm_kv(c, line, n, seen);
  scan_vllm_config(c, line, seen);
}

// The version an SGLang log states: the pip pin "sglang==0.5.4" that python -m sglang.check_env
// prints, "sglang version 0.5.4", an image tag of lmsysorg/sglang ("sglang:v0.4.6.post5-cu124").
std::optional<std::string> sglang_version(std::string_view line) {
  for (std::string_view marker :
       {"sglang==", "sglang version ", "SGLang version ", "sglang:v", "SGLang v", "sglang v"}) {
    const size_t at = line.find(marker);
    if (at == line.npos) continue;
    if (auto v = dotted_version(line.substr(at + marker.size()))) return v;
  }
  return std::nullopt;
}

void scan_sglang(Collector& c, std::string_view line, int n, bool& seen) {
  auto mark = [&] {
    seen = true;
    c.source("sglang");
    c.set_if_missing("engine", "sglang");
  };
  if (auto version = sglang_version(line)) mark(), c.stated_version(*version);
  if (contains(line, "Load weight end.")) {
    if (auto v = bytes_after(line, "mem usage=")) mark(), c.add("weights_bytes", *v, n, line);
  }
  if (contains(line, "KV Cache is allocated.")) {
    mark();
    if (auto t = number_after(line, "#tokens:")) c.add("kv_cache_tokens", *t, n, line);
    const auto k = bytes_after(line, "K size:"), v = bytes_after(line, "V size:");
    if (k && v) c.add("kv_cache_bytes", *k + *v, n, line);
  }
  if (auto t = number_after(line, "max_total_num_tokens=")) {
    mark();
    if (!c.find("kv_cache_tokens")) c.add("kv_cache_tokens", *t, n, line);
    if (auto l = number_after(line, "context_len=")) c.set("seq_len", static_cast<int64_t>(*l));
  }
  if (contains(line, "server_args=ServerArgs(")) {
    mark();
    if (auto m = text_after(line, "model_path='", '\'')) c.set("model", model_from_path(*m));
    if (auto v = number_after(line, "tp_size="))
      c.run().scenario["parallel"]["tp"] = static_cast<int64_t>(*v);
    if (auto v = number_after(line, "mem_fraction_static=")) c.set("gpu_memory_utilization", *v);
    if (auto v = number_after(line, "context_length=")) c.set("seq_len", static_cast<int64_t>(*v));
    if (auto v = number_after(line, "max_running_requests="))
      c.set("max_num_seqs", static_cast<int64_t>(*v));
    if (auto v = number_after(line, "chunked_prefill_size="); v && *v > 0)
      c.set("max_num_batched_tokens", static_cast<int64_t>(*v));
  }
}

// The value of a trtllm-bench report line "Name:<tabs>value", trimmed; empty when absent.
std::string_view report_value(std::string_view line, std::string_view name) {
  line = trim(line);
  if (!line.starts_with(name)) return {};
  return trim(line.substr(name.size()));
}

// The engine's limits and its KV pool from the runtime's own start-up lines.
void scan_trtllm_runtime(Collector& c, std::string_view line, int n, bool& seen) {
  auto mark = [&] {
    seen = true;
    c.source("trtllm");
    c.set_if_missing("engine", "trtllm");
  };
  if (auto at = line.find("TensorRT-LLM version: "); at != line.npos)
    if (auto v = dotted_version(trim(line.substr(at + 22)))) mark(), c.stated_version(*v);
  // The engine's limits, each a number after its marker: the C++ runtime's (max_num_seqs,
  // max_model_len, max_num_batched_tokens in turn) and the PyTorch backend's (1.0:
  // "max_seq_len=157, max_num_requests=4096, max_num_tokens=23552").
  using Markers = std::array<const char*, 3>;
  auto read_limits = [&](const Markers& markers) {
    const char* keys[] = {"max_num_seqs", "max_model_len", "max_num_batched_tokens"};
    for (size_t i = 0; i < markers.size(); ++i)
      if (auto v = number_after(line, markers[i])) mark(), c.set(keys[i], static_cast<int64_t>(*v));
  };
  read_limits({"TRTGptModel maxNumSequences: ", "TRTGptModel maxSequenceLen: ",
               "TRTGptModel maxNumTokens: "});
  if (contains(line, "max_num_requests=") && contains(line, "max_num_tokens="))
    read_limits({"max_num_requests=", "max_seq_len=", "max_num_tokens="});
  // Without trtllm-bench's report the sequences are taken as long as the engine allows.
  if (const json& s = c.run().scenario; s.contains("max_model_len"))
    c.set_if_missing("seq_len", s["max_model_len"]);
  // Each rank loads its own engine file (sizes differ by a few MiB): the first is kept.
  if (auto v = bytes_after(line, "Loaded engine size:"); v && !c.find("weights_bytes"))
    mark(), c.add("weights_bytes", *v, n, line);
  if (contains(line, "for max tokens in paged KV cache (")) {
    mark();
    if (auto b = bytes_after(line, "Allocated ")) c.add("kv_cache_bytes", *b, n, line);
    if (auto t = number_after(line, "paged KV cache (")) c.add("kv_cache_tokens", *t, n, line);
  }
}

// trtllm-bench's closing report: the scenario of the run and its throughput.
void scan_trtllm_report(Collector& c, std::string_view line, int n, bool& seen) {
  if (!seen) return;  // only after the runtime's own lines
  if (auto m = report_value(line, "Model:"); !m.empty()) c.set("model", std::string(m));
  const std::pair<const char*, const char*> sizes[] = {{"TP Size:", "tp"}, {"PP Size:", "pp"}};
  for (const auto& [name, key] : sizes)
    if (auto v = leading_number(report_value(line, name)))
      c.run().scenario["parallel"][key] = static_cast<int64_t>(*v);
  if (report_value(line, "Quantization:") == "FP8") c.set("weights", "fp8");
  if (report_value(line, "KV Cache Dtype:") == "FP8") c.set("kv_cache", "fp8");
  if (auto v = leading_number(report_value(line, "KV Memory Percentage:")))
    c.set("gpu_memory_utilization", *v / 100.0);
  if (auto v = leading_number(report_value(line, "Number of requests:")))
    c.set("offline_requests", static_cast<int64_t>(*v));
  for (const char* name : {"Average Input Length (tokens):", "Average Output Length (tokens):"})
    if (auto v = leading_number(report_value(line, name))) {
      const bool input = name[8] == 'I';
      c.set(input ? "prompt_len" : "output_len", static_cast<int64_t>(std::llround(*v)));
      const json& s = c.run().scenario;
      if (s.contains("prompt_len") && s.contains("output_len"))
        c.set("seq_len", s["prompt_len"].get<int64_t>() + s["output_len"].get<int64_t>());
    }
  if (auto v = leading_number(report_value(line, "Token Throughput (tokens/sec):")))
    c.add("offline_output_tokens_per_s", *v, n, line);
}

void scan_llama_cpp(Collector& c, std::string_view line, int n, bool& seen,
                    std::vector<std::string>& gpu_devices) {
  auto mark = [&] {
    seen = true;
    c.source("llama.cpp");
    c.set_if_missing("engine", "llama.cpp");
  };
  const bool tensors = contains(line, "load_tensors:");
  for (const char* marker : {"model buffer size =", "buffer size ="}) {
    if (!tensors || !contains(line, marker)) continue;
    if (contains(line, "KV buffer") || contains(line, "compute buffer")) break;
    const auto v = bytes_after(line, marker);
    if (!v) break;
    mark();
    const std::string dev =
        device_before(line, contains(line, "model buffer") ? "model buffer" : "buffer size");
    if (is_cpu_device(dev)) {
      c.add_sum("weights_cpu_bytes", *v, n, line);
    } else {
      c.add_sum("weights_bytes", *v, n, line);
      if (std::find(gpu_devices.begin(), gpu_devices.end(), dev) == gpu_devices.end())
        gpu_devices.push_back(dev);
    }
    break;
  }
  // The total ("KV self size", newer "llama_kv_cache...: size = X MiB (cells...)") follows the
  // per-device "KV buffer size" lines; without it the per-device sizes add up.
  std::optional<double> kv_total = bytes_after(line, "KV self size =");
  if (!kv_total && contains(line, "llama_kv_cache") && contains(line, " cells"))
    kv_total = bytes_after(line, ": size =");
  if (kv_total) {
    mark();
    c.remove("kv_buffer_bytes");
    c.add("kv_cache_bytes", *kv_total, n, line);
  } else if (contains(line, "KV buffer size =")) {
    const std::string dev = device_before(line, "KV buffer size");
    if (auto v = bytes_after(line, "KV buffer size ="); v && !is_cpu_device(dev))
      mark(), c.add_sum("kv_buffer_bytes", *v, n, line);
  }
  if (contains(line, "compute buffer size =")) {
    const std::string dev = device_before(line, "compute buffer size");
    if (auto v = bytes_after(line, "compute buffer size ="); v && !is_cpu_device(dev))
      mark(), c.add_sum("activation_peak_bytes", *v, n, line);
  }
  if (const size_t at = line.find("n_ctx");
      at != line.npos && (contains(line, "context") || contains(line, "llama_"))) {
    const std::string_view rest = line.substr(at + 5);
    const std::string_view after = trim(rest);
    if (!rest.empty() && (rest[0] == ' ' || rest[0] == '=') && after.starts_with("="))
      if (auto v = leading_number(after.substr(1))) c.set("seq_len", static_cast<int64_t>(*v));
  }
  for (const char* key : {"file type   =", "model ftype      =", "file type =", "model ftype ="})
    if (auto t = text_after(std::string(line) + "\n", key, '\n'))
      if (auto f = gguf_format(*t)) c.set("weights", *f);
}

// A GPU as a log names it, without the vendor and brand words, so that the catalog's aliases
// ("RTX 4090") match.
std::string gpu_name(std::string name) {
  for (const char* word : {"NVIDIA ", "GeForce "})
    if (name.starts_with(word)) name.erase(0, std::string_view(word).size());
  return name;
}

// "Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes" (ggml-cuda).
std::optional<std::string> cuda_device(std::string_view line) {
  const size_t at = line.find("Device 0: ");
  if (at == line.npos || !contains(line, "compute capability")) return std::nullopt;
  auto name = text_after(line.substr(at), "Device 0: ", ',');
  if (name) *name = gpu_name(*name);
  return name;
}

// --- llama-bench ------------------------------------------------------------------------------

// A string field of a JSON object, or "" when absent or not a string.
std::string str_field(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> md_cells(std::string_view line) {
  std::vector<std::string> cells;
  line = trim(line);
  if (!line.starts_with("|")) return cells;
  line.remove_prefix(1);
  while (!line.empty()) {
    const size_t bar = line.find('|');
    cells.emplace_back(trim(line.substr(0, bar)));
    if (bar == line.npos) break;
    line.remove_prefix(bar + 1);
  }
  if (!cells.empty() && cells.back().empty()) cells.pop_back();
  return cells;
}

// A llama-bench test as a scenario: "pp512" = prefill of 512 tokens, "tg128" = 128 tokens
// generated one at a time from an empty context; both at batch 1.
void bench_row(LogRun& r, const std::string& model_type, int64_t n_prompt, int64_t n_gen, double ts,
               std::optional<int64_t> ngl) {
  r.source = "llama-bench";
  r.scenario["engine"] = "llama.cpp";
  r.scenario["batch"] = 1;
  if (auto f = gguf_format(model_type)) r.scenario["weights"] = *f;
  std::string test;
  std::string key;
  if (n_prompt > 0 && n_gen == 0) {
    test = "pp" + std::to_string(n_prompt), key = "prefill_tokens_per_s";
    r.scenario["prompt_len"] = n_prompt, r.scenario["output_len"] = 1;
  } else if (n_gen > 0 && n_prompt == 0) {
    test = "tg" + std::to_string(n_gen), key = "decode_tokens_per_s";
    r.scenario["prompt_len"] = 0, r.scenario["output_len"] = n_gen;
  } else {
    test = "pp" + std::to_string(n_prompt) + "+tg" + std::to_string(n_gen);
    key = "pp_tg_tokens_per_s";  // no single estimate counterpart; shown as read
  }
  r.label = model_type + " " + test + (ngl ? " ngl " + std::to_string(*ngl) : "");
  r.figures.back().key = key;
  r.figures.back().value = ts;
}

// "pp512", "pp 512", "tg128", "pp4096+tg128" -> prompt and generated tokens.
bool parse_bench_test(std::string_view t, int64_t& n_prompt, int64_t& n_gen) {
  n_prompt = n_gen = 0;
  std::string s;
  for (char ch : t)
    if (ch != ' ') s += ch;
  for (size_t at = 0; at < s.size();) {
    const bool pp = s.compare(at, 2, "pp") == 0, tg = s.compare(at, 2, "tg") == 0;
    if (!pp && !tg) return false;
    size_t used = 0;
    const auto v = leading_number(std::string_view(s).substr(at + 2), &used);
    if (!v) return false;
    (pp ? n_prompt : n_gen) = static_cast<int64_t>(*v);
    at += 2 + used;
    if (at < s.size() && s[at] == '+') ++at;
  }
  return n_prompt > 0 || n_gen > 0;
}

bool bench_markdown(std::string_view text, std::vector<LogRun>& out, const std::string& where) {
  std::vector<std::string> header;
  int n = 0;
  bool found = false;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == text.npos) end = text.size();
    const std::string_view line = text.substr(begin, std::min(end - begin, kMaxLine));
    begin = end + 1;
    ++n;
    auto cells = md_cells(line);
    if (cells.empty()) {
      if (end == text.size()) break;
      continue;
    }
    if (std::find(cells.begin(), cells.end(), "t/s") != cells.end() &&
        std::find(cells.begin(), cells.end(), "test") != cells.end()) {
      header = cells;
      continue;
    }
    if (header.empty() || cells[0].starts_with("-") || cells[0].starts_with(":")) continue;
    auto col = [&](const char* name) -> std::string {
      for (size_t i = 0; i < header.size() && i < cells.size(); ++i)
        if (header[i] == name) return cells[i];
      return "";
    };
    int64_t pp = 0, tg = 0;
    const auto ts = leading_number(col("t/s"));
    if (!parse_bench_test(col("test"), pp, tg) || !ts)
      throw InputError(where + ": line " + std::to_string(n),
                       "llama-bench row without a test (pp512, tg128) and t/s", "bad_file");
    LogRun r;
    r.figures.push_back({"", 0, n, cut(line), 1, ""});
    std::optional<int64_t> ngl;
    if (auto g = leading_number(col("ngl"))) ngl = static_cast<int64_t>(*g);
    bench_row(r, col("model"), pp, tg, *ts, ngl);
    out.push_back(std::move(r));
    found = true;
    if (static_cast<int>(out.size()) > kMaxRuns) break;
    if (end == text.size()) break;
  }
  return found;
}

LogRun bench_object(const json& o, int n, const std::string& where) {
  auto num = [&](const char* key) -> double {
    const auto it = o.find(key);
    if (it == o.end() || !it->is_number() || !(it->get<double>() >= 0) || it->get<double>() > 1e12)
      throw InputError(where + ": row " + std::to_string(n) + "." + key,
                       "must be a number from 0 to 10^12 (llama-bench -o json)", "bad_file");
    return it->get<double>();
  };
  LogRun r;
  r.figures.push_back({"", 0, n, "", 1, ""});
  if (!o.is_object())
    throw InputError(where + ": row " + std::to_string(n), "must be an object", "bad_file");
  const std::string type = str_field(o, "model_type");
  std::optional<int64_t> ngl;
  if (const auto g = o.find("n_gpu_layers");
      g != o.end() && g->is_number() && g->get<double>() >= 0 && g->get<double>() <= 1e6)
    ngl = static_cast<int64_t>(g->get<double>());
  bench_row(r, type, static_cast<int64_t>(num("n_prompt")), static_cast<int64_t>(num("n_gen")),
            num("avg_ts"), ngl);
  if (const std::string gpu = str_field(o, "gpu_info"); !gpu.empty())
    r.scenario["gpu"] = gpu_name(gpu);
  r.figures.back().text = type;
  return r;
}

// --- the user's own figures --------------------------------------------------------------------

const std::vector<std::string> kScenarioColumns = {"model",      "gpu",
                                                   "engine",     "task",
                                                   "weights",    "kv_cache",
                                                   "batch",      "seq_len",
                                                   "prompt_len", "output_len",
                                                   "gpu_count",  "tp",
                                                   "pp",         "gpu_memory_utilization"};

LogRun figures_object(const json& o, const std::string& at) {
  if (!o.is_object())
    throw InputError(at, "must be an object {\"scenario\", \"measured\"}", "bad_file");
  for (const auto& [k, v] : o.items())
    if (k != "scenario" && k != "measured" && k != "label")
      throw InputError(at + "." + k, "is not a field of a figures file (scenario, measured, label)",
                       "bad_file");
  LogRun r;
  r.source = "figures";
  r.label = str_field(o, "label");
  if (o.contains("scenario")) {
    if (!o["scenario"].is_object())
      throw InputError(at + ".scenario", "must be an object", "bad_file");
    r.scenario = o["scenario"];
  }
  if (!o.contains("measured") || !o["measured"].is_object() || o["measured"].empty()) {
    std::string names;
    for (const auto& k : log_figure_keys()) names += (names.empty() ? "" : ", ") + k;
    throw InputError(at + ".measured", "must be an object of figures (" + names + ")", "bad_file");
  }
  const auto& keys = log_figure_keys();
  for (const auto& [k, v] : o["measured"].items()) {
    if (std::find(keys.begin(), keys.end(), k) == keys.end())
      throw InputError(at + ".measured." + k, "is not a known figure", "bad_file");
    if (!v.is_number() || v.get<double>() <= 0 || !std::isfinite(v.get<double>()))
      throw InputError(at + ".measured." + k, "must be a positive number", "bad_file");
    r.figures.push_back({k, v.get<double>(), 0, "", 1, ""});
  }
  return r;
}

std::vector<LogRun> figures_csv(const std::vector<CsvRecord>& rows, const std::string& where) {
  const auto& keys = log_figure_keys();
  std::vector<LogRun> out;
  for (const auto& row : rows) {
    const std::string at = where + ": line " + std::to_string(row.line);
    LogRun r;
    r.source = "figures";
    for (const auto& [name, value] : row.columns) {
      if (value.empty()) continue;
      const bool figure = std::find(keys.begin(), keys.end(), name) != keys.end();
      const bool setting = std::find(kScenarioColumns.begin(), kScenarioColumns.end(), name) !=
                           kScenarioColumns.end();
      if (name == "label") {
        r.label = value;
        continue;
      }
      if (!figure && !setting)
        throw InputError(at + ": column " + name, "is neither a scenario field nor a figure",
                         "bad_file");
      const bool text = name == "model" || name == "gpu" || name == "engine" || name == "task" ||
                        name == "weights" || name == "kv_cache";
      if (text) {
        r.scenario[name] = value;
        continue;
      }
      size_t used = 0;
      const auto v = leading_number(value, &used);
      if (!v || used != value.size() || (figure && *v <= 0))
        throw InputError(at + ": column " + name, "'" + value + "' is not a number", "bad_file");
      if (figure)
        r.figures.push_back({name, *v, static_cast<int>(row.line), "", 1, ""});
      else if (name == "tp" || name == "pp")
        r.scenario["parallel"][name] = static_cast<int64_t>(*v);
      else if (name == "gpu_memory_utilization")
        r.scenario[name] = *v;
      else
        r.scenario[name] = static_cast<int64_t>(*v);
    }
    if (r.figures.empty()) throw InputError(at, "holds no figure", "bad_file");
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

const std::vector<std::string>& log_figure_keys() {
  static const std::vector<std::string> keys = {"weights_bytes",
                                                "non_torch_bytes",
                                                "activation_peak_bytes",
                                                "kv_cache_bytes",
                                                "kv_cache_tokens",
                                                "max_concurrency",
                                                "prefill_tokens_per_s",
                                                "decode_tokens_per_s",
                                                "max_output_tokens_per_s",
                                                "ttft_ms",
                                                "tpot_ms",
                                                "train_tokens_per_s",
                                                "train_tokens_per_s_per_gpu",
                                                "step_time_s",
                                                "offline_output_tokens_per_s"};
  return keys;
}

namespace {

// `text` with every byte that is not part of a well-formed UTF-8 sequence (RFC 3629: no
// overlongs, no surrogates, at most U+10FFFF) replaced by '?', one byte for one, so that names
// taken from a stranger's log can be written as JSON; line and column positions stay the same.
std::string valid_utf8(std::string_view text) {
  std::string out(text);
  size_t i = 0;
  while (i < out.size()) {
    const auto b = static_cast<unsigned char>(out[i]);
    size_t len = b < 0x80           ? 1
                 : (b >> 5) == 0x6  ? 2
                 : (b >> 4) == 0xE  ? 3
                 : (b >> 3) == 0x1E ? 4
                                    : 0;
    bool ok = len > 0 && i + len <= out.size();
    for (size_t k = 1; ok && k < len; ++k)
      ok = (static_cast<unsigned char>(out[i + k]) & 0xC0) == 0x80;
    if (ok && len > 1) {
      uint32_t cp = b & (0xFF >> (len + 1));
      for (size_t k = 1; k < len; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(out[i + k]) & 0x3F);
      const uint32_t min_of_len[] = {0, 0, 0x80, 0x800, 0x10000};
      ok = cp >= min_of_len[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    }
    if (!ok) {
      out[i] = '?';
      len = 1;
    }
    i += len;
  }
  return out;
}

}  // namespace

namespace {

// JSON: llama-bench -o json, or a figures file. False when the text does not parse, with the
// error kept: a log whose lines start with "[time]" is not JSON, and the JSON error is the answer
// only if reading it as a log finds nothing.
bool read_json_document(std::string_view text, const std::string& where, LogReading& out,
                        std::optional<InputError>& json_error) {
  std::optional<json> doc;
  try {
    doc = parse_json_guarded(text, where);
  } catch (const InputError& e) {
    json_error = e;
  }
  if (!doc) return false;
  const json items = doc->is_array() ? *doc : json::array({*doc});
  if (!items.empty() && items[0].is_object() && items[0].contains("avg_ts")) {
    out.format = "llama-bench-json";
    for (size_t i = 0; i < items.size(); ++i)
      out.runs.push_back(bench_object(items[i], static_cast<int>(i + 1), where));
  } else {
    out.format = "figures-json";
    for (size_t i = 0; i < items.size(); ++i)
      out.runs.push_back(figures_object(
          items[i], doc->is_array() ? where + "[" + std::to_string(i) + "]" : where));
  }
  if (out.runs.empty()) throw InputError(where, "holds no run", "bad_file");
  return true;
}

// llama-bench -o jsonl: one object per line.
void read_bench_jsonl(std::string_view text, const std::string& where, LogReading& out) {
  out.format = "llama-bench-json";
  int n = 0;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == text.npos) end = text.size();
    const std::string_view line = trim(text.substr(begin, end - begin));
    begin = end + 1;
    ++n;
    if (line.empty()) continue;
    const json o = parse_json_guarded(line, where + ": line " + std::to_string(n));
    out.runs.push_back(bench_object(o, n, where + ": line " + std::to_string(n)));
  }
}

// CSV with a header: llama-bench -o csv, or a figures file.
void read_csv_log(std::string_view text, std::string_view head, const std::string& where,
                  LogReading& out) {
  const auto rows = parse_csv_records(text, where);
  if (contains(head, "avg_ts")) {
    out.format = "llama-bench-csv";
    for (const auto& row : rows) {
      json o = json::object();
      o["model_type"] = row["model_type"];
      for (const char* k : {"n_prompt", "n_gen", "avg_ts", "n_gpu_layers"}) {
        size_t used = 0;
        const auto v = leading_number(row[k], &used);
        if (v && used == row[k].size()) o[k] = *v;
      }
      if (!row["gpu_info"].empty()) o["gpu_info"] = row["gpu_info"];
      LogRun r =
          bench_object(o, static_cast<int>(row.line), where + ": line " + std::to_string(row.line));
      r.figures.back().line = static_cast<int>(row.line);
      out.runs.push_back(std::move(r));
    }
  } else {
    out.format = "figures-csv";
    out.runs = figures_csv(rows, where);
  }
  if (out.runs.empty()) throw InputError(where, "holds a header but no row", "bad_file");
}

// The GPU the first llama.cpp or llama-bench device line names.
std::optional<std::string> first_cuda_device(std::string_view text) {
  std::optional<std::string> gpu;
  for (size_t begin = 0; begin < text.size() && !gpu;) {
    size_t end = text.find('\n', begin);
    if (end == text.npos) end = text.size();
    gpu = cuda_device(text.substr(begin, std::min(end - begin, kMaxLine)));
    begin = end + 1;
  }
  return gpu;
}

// vLLM V0 counts blocks; V1 prints tokens. Blocks hold 16 tokens unless --block-size. llama.cpp
// over several devices runs on that many GPUs.
void finish_line_runs(std::vector<LogRun>& runs, const std::vector<std::string>& devices) {
  for (auto& r : runs) {
    const LogFigure* blocks = nullptr;
    bool tokens = false;
    for (const auto& f : r.figures) {
      if (f.key == "gpu_blocks") blocks = &f;
      if (f.key == "kv_cache_tokens") tokens = true;
    }
    for (auto& f : r.figures)
      if (f.key == "kv_buffer_bytes") f.key = "kv_cache_bytes";
    if (blocks && !tokens) {
      const double t = blocks->value * static_cast<double>(kVllmBlockTokens);
      r.figures.push_back({"kv_cache_tokens", t, 0, "", 1, "# GPU blocks x 16 tokens per block"});
    }
    if (devices.size() > 1 && r.source == "llama.cpp") r.scenario["gpu_count"] = devices.size();
  }
}

// Start-up logs: every line through the vLLM, SGLang, llama.cpp and TensorRT-LLM scanners.
void read_line_log(std::string_view text, LogReading& out) {
  Collector c("log");
  bool vllm = false, sglang = false, llama = false, trtllm = false;
  std::vector<std::string> devices;
  int n = 0;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == text.npos) end = text.size();
    const std::string_view line = text.substr(begin, std::min(end - begin, kMaxLine));
    begin = end + 1;
    ++n;
    scan_vllm(c, line, n, vllm);
    scan_sglang(c, line, n, sglang);
    scan_llama_cpp(c, line, n, llama, devices);
    scan_trtllm_runtime(c, line, n, trtllm);
    scan_trtllm_report(c, line, n, trtllm);
  }
  out.runs = c.take();
  out.format = vllm ? "vllm" : sglang ? "sglang" : trtllm ? "trtllm" : "llama.cpp";
  finish_line_runs(out.runs, devices);
}

}  // namespace

LogReading read_log(std::string_view raw, const std::string& where) {
  const std::string clean = valid_utf8(raw);
  const std::string_view text = clean;
  LogReading out;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == text.npos) throw InputError(where, "is empty", "bad_file");
  const char lead = text[first];
  std::optional<InputError> json_error;
  if ((lead == '[' || lead == '{') && read_json_document(text, where, out, json_error)) return out;
  if (lead == '{') {
    read_bench_jsonl(text, where, out);
    return out;
  }
  const size_t eol = text.find('\n', first);
  const std::string_view head = text.substr(first, eol == text.npos ? text.npos : eol - first);
  if (head.find(',') != head.npos && head.find('|') == head.npos && head.find(' ') == head.npos) {
    read_csv_log(text, head, where, out);
    return out;
  }
  // Line logs (and a llama-bench markdown table, possibly after the device lines).
  const std::optional<std::string> gpu = first_cuda_device(text);
  if (bench_markdown(text, out.runs, where))
    out.format = "llama-bench-markdown";
  else
    read_line_log(text, out);
  if (gpu)
    for (auto& r : out.runs)
      if (!r.scenario.contains("gpu")) r.scenario["gpu"] = *gpu;
  if (out.runs.empty() && json_error) throw *json_error;
  if (out.runs.empty())
    throw InputError(where,
                     "holds no figure gpusizer reads: not a vLLM, SGLang or llama.cpp start-up "
                     "log, llama-bench output or figures file (see docs/stores-and-logs.md)",
                     "bad_file");
  return out;
}

}  // namespace gpusizer
