#pragma once
// Reading what users already have: vLLM and SGLang start-up logs, llama.cpp logs, llama-bench
// output (markdown table, JSON, CSV) and a small JSON/CSV of the user's own figures
// (docs/stores-and-logs.md). Each becomes runs: the settings the log states and the figures it
// measured, every figure with the line it came from.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gpusizer {

/// One measured figure. Keys (units): weights_bytes, non_torch_bytes, activation_peak_bytes,
/// kv_cache_bytes, kv_cache_tokens, max_concurrency (sequences of seq_len tokens), gpu_blocks,
/// weights_cpu_bytes (llama.cpp, not on the GPU), and the speed keys of the estimate's
/// "performance" object (prefill_tokens_per_s, decode_tokens_per_s, ...).
struct LogFigure {
  std::string key;
  double value = 0;
  int line = 0;         ///< 1-based line (or row) it was read from
  std::string text;     ///< that line, trimmed and cut to 160 characters
  int repeats = 1;      ///< identical lines folded into this one (one per worker process)
  std::string derived;  ///< non-empty when computed from other figures: how
};

/// One configuration the log measured: a server start-up, a llama-bench row, a row of figures.
struct LogRun {
  std::string source;  ///< "vllm", "sglang", "llama.cpp", "llama-bench", "figures"
  std::string label;   ///< what identifies the run in the log ("llama 7B Q4_0 pp512", ...)
  nlohmann::json scenario = nlohmann::json::object();  ///< settings the log states (contract keys)
  std::vector<LogFigure> figures;
  /// scenario.engine_version is the version the log states ("0.8.5", "0.5.4", "0.16.0"), not a
  /// release: `gpusizer check` maps it to the release whose range covers it (data/engines.json).
  /// Where the log states none, a vLLM log's version may be inferred from the form of its memory
  /// lines; this then says from which line and form, and is empty otherwise.
  std::string engine_version_inferred_from;
  /// The engine's code path where the log names it ("V1": vLLM's "Initializing a V1 LLM engine
  /// (v0.8.5)", "V0"): the rules follow the path as well as the version.
  std::string engine_path;
};

struct LogReading {
  std::string format;  ///< "vllm", "sglang", "llama.cpp", "llama-bench-markdown",
                       ///< "llama-bench-json", "llama-bench-csv", "figures-json", "figures-csv"
  std::vector<LogRun> runs;
};

/// The figure keys a figures file may hold (memory and speed), for messages and docs.
const std::vector<std::string>& log_figure_keys();

/// Reads a log or a figures file. Throws InputError naming `where` and the line when nothing in
/// it can be read, or when a figures file holds an unknown or malformed field.
LogReading read_log(std::string_view text, const std::string& where);

}  // namespace gpusizer
