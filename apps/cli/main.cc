// The gpusizer command: a thin face over the library. Parses flags into the contract's JSON,
// calls the library, renders. Exit codes: 0 success, 2 bad input, 1 internal error.
#include <fmt/format.h>

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <span>
#include <sstream>

#include "gpusizer/batch.h"
#include "gpusizer/calibrate.h"
#include "gpusizer/error.h"
#include "gpusizer/importers.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/calibrate.h"
#include "gpusizer/json/importers.h"
#include "gpusizer/json/json_input.h"
#include "gpusizer/json/json_text.h"
#include "gpusizer/json/lang.h"
#include "gpusizer/json/render.h"
#include "gpusizer/json/render_csv.h"
#include "gpusizer/json/scenario.h"
#include "gpusizer/json/speed_bands.h"
#include "gpusizer/json/validation.h"
#include "gpusizer/lang.h"
#include "gpusizer/model_store.h"
#include "gpusizer/progress.h"
#include "gpusizer/regular_file.h"
#include "gpusizer/scenario.h"
#include "gpusizer/server.h"
#include "gpusizer/speed_bands_fit.h"
#include "gpusizer/validation.h"
#include "local_commands.h"
#include "serve_command.h"

namespace gpusizer {
namespace {

// The language of the texts (--lang), also for the error message main() prints.
Lang g_lang = Lang::kEn;

struct Options {
  std::string format;  // empty: table on a terminal, json otherwise
  std::string data_dir;
  std::string input;
  // Scenario flags; unset ones are left to the scenario's defaults.
  std::optional<std::string> model, task, weights, kv_cache, engine, engine_version, gpu, optimizer,
      mixed_precision, gradient_checkpointing, method;
  std::optional<int64_t> batch, seq_len, prompt_len, output_len, gpu_count, gpus_per_node, tp, pp,
      dp, ep, lora_rank, zero_stage, grad_accum, global_batch, max_num_batched_tokens, max_num_seqs,
      max_model_len;
  std::optional<int64_t> cp, nodes, top, offline_requests;
  std::optional<std::string> offload;
  std::optional<double> gpu_memory_utilization, tokens;
  // Serving traffic and its service level (scenario "traffic" and "slo").
  std::optional<double> requests_per_s, prompt_len_p90, output_len_p90, ttft_ms, tpot_ms;
  std::optional<int64_t> percentile;
  std::vector<std::string> lora_targets;
  bool no_flash_attention = false;
  // Catalog filters.
  std::string vendor, segment, family, kind;
  double min_memory_gb = 0;
  double min_params_b = 0, max_params_b = 1e9;
  bool local = false;      // models --local: what the local model stores hold
  bool bands = false;      // validate --bands: the derived speed bands
  bool no_levers = false;  // fit --no-levers: the scenario as given, no standard levers
  bool no_changes =
      false;  // estimate --no-changes: no "what to change" for a scenario that does not fit
  bool no_basis = false;  // estimate --no-basis: the figures without their basis texts
  // Advisor constraints (recommend, report).
  std::optional<std::string> objective, region, costs_file;
  std::optional<int64_t> max_gpus;
  std::optional<double> budget_usd, min_tokens_per_s, max_ttft_ms, max_days, headroom,
      rack_budget_watts;
  bool cloud = false, on_prem = false, production = false, allow_quantization = false,
       allow_offload = false;
  std::vector<std::string> allowed_gpus;
  unsigned jobs = 0;  // 0: one thread per core
};

std::string output_format(const Options& o) {
  if (!o.format.empty()) return o.format;
  return isatty(STDOUT_FILENO) ? "table" : "json";
}

// The catalog of --data-dir (or GPUSIZER_DATA_DIR), else the built-in one, loaded once. Model
// names that are not catalog ids are looked up in every local store (`serve` builds its own
// catalog, reading only the stores named by --model-stores).
// The catalog is read straight into its place (not copied from Catalog::builtin(), whose
// --data-dir twin GPUSIZER_DATA_DIR the option already reads) and never destroyed: the process
// ends after its one command, and freeing every catalog row first is work for nothing.
const Catalog& catalog_for(const Options& o) {
  static Catalog* loaded = nullptr;
  if (loaded) return *loaded;
  if (!o.data_dir.empty()) check_path_text(o.data_dir, "--data-dir");
  loaded = new Catalog(o.data_dir.empty() ? Catalog::embedded() : Catalog::load(o.data_dir));
  loaded->allow_model_stores({parse_store_list("all", ""), process_env()});
  return *loaded;
}

// Flags override the scenario's keys (also those of an --input file).
void apply_flags(const Options& o, nlohmann::json& s) {
  // A scenario that is not an object, or a "parallel"/"training" that is not one, is left as it
  // came: the scenario's parser names what is wrong with it (setting a key into it would throw
  // nlohmann's type_error, answered as an internal error).
  if (!s.is_object()) return;
  auto set = [&](const char* key, const auto& v) {
    if (v) s[key] = *v;
  };
  set("model", o.model);
  set("task", o.task);
  set("weights", o.weights);
  set("kv_cache", o.kv_cache);
  set("engine", o.engine);
  set("engine_version", o.engine_version);
  set("gpu", o.gpu);
  set("method", o.method);
  if (o.no_changes) s["changes"] = false;
  if (o.no_basis) s["basis"] = false;
  set("batch", o.batch);
  set("seq_len", o.seq_len);
  set("prompt_len", o.prompt_len);
  set("output_len", o.output_len);
  set("gpu_count", o.gpu_count);
  set("gpus_per_node", o.gpus_per_node);
  set("gpu_memory_utilization", o.gpu_memory_utilization);
  set("max_num_batched_tokens", o.max_num_batched_tokens);
  set("max_num_seqs", o.max_num_seqs);
  set("max_model_len", o.max_model_len);
  set("offline_requests", o.offline_requests);
  auto sub = [&](const char* obj, const char* key, const auto& v) {
    if (!v) return;
    nlohmann::json& inner = s[obj];
    if (inner.is_null()) inner = nlohmann::json::object();
    if (inner.is_object()) inner[key] = *v;
  };
  sub("parallel", "tp", o.tp);
  sub("parallel", "pp", o.pp);
  sub("parallel", "dp", o.dp);
  sub("parallel", "ep", o.ep);
  sub("parallel", "cp", o.cp);
  sub("training", "offload", o.offload);
  // --nodes K: K whole nodes of gpus_per_node GPUs (the scenario's default unless given).
  if (o.nodes && !o.gpu_count) {
    int64_t per_node = Scenario{}.gpus_per_node;
    if (o.gpus_per_node)
      per_node = *o.gpus_per_node;
    else if (auto it = s.find("gpus_per_node"); it != s.end() && it->is_number_integer())
      per_node = std::clamp<int64_t>(it->get<int64_t>(), 1, 1024);
    s["gpu_count"] = *o.nodes * per_node;
  }
  sub("training", "optimizer", o.optimizer);
  sub("training", "mixed_precision", o.mixed_precision);
  sub("training", "lora_rank", o.lora_rank);
  sub("training", "zero_stage", o.zero_stage);
  sub("training", "grad_accum", o.grad_accum);
  sub("training", "global_batch", o.global_batch);
  sub("training", "tokens", o.tokens);
  if (o.gradient_checkpointing) {
    const std::string& g = *o.gradient_checkpointing;
    if (g == "true" || g == "false")
      s["training"]["gradient_checkpointing"] = g == "true";
    else
      s["training"]["gradient_checkpointing"] = g;
  }
  sub("traffic", "requests_per_s", o.requests_per_s);
  sub("traffic", "prompt_len_p90", o.prompt_len_p90);
  sub("traffic", "output_len_p90", o.output_len_p90);
  sub("slo", "ttft_ms", o.ttft_ms);
  sub("slo", "tpot_ms", o.tpot_ms);
  sub("slo", "percentile", o.percentile);
  if (o.no_flash_attention) s["training"]["flash_attention"] = false;
  if (!o.lora_targets.empty()) s["training"]["lora_targets"] = o.lora_targets;
}

// The --input text: stdin or a regular file (a FIFO or device is refused, never waited on), at
// most kMaxInputBytes.
std::string read_all(const std::string& path, const std::string& field = "--input") {
  if (path == "-") return read_fd_bounded(STDIN_FILENO, kMaxInputBytes, field);
  return read_regular_file(path, kMaxInputBytes, field);
}

// JSON text for output. Messages may quote the user's bytes (a parse error shows the bytes it
// stopped at), which need not be UTF-8: those are replaced rather than thrown on.
std::string dump(const nlohmann::json& value, int indent = -1) {
  return json_text(value, indent);
}

// Strict: a NUL byte, a duplicate key or a number a double cannot hold is bad input
// (gpusizer/json/json_input.h).
nlohmann::json parse_json(std::string_view text, const std::string& where) {
  return parse_json_input(text, where);
}

// One scenario (a .json --input or one JSONL line) is at most kMaxScenarioBytes, the HTTP body cap.
void check_scenario_size(std::string_view text, const std::string& where) {
  if (text.size() > kMaxScenarioBytes)
    throw InputError(where,
                     "is " + std::to_string(text.size()) + " bytes, over the limit of " +
                         byte_limit_text(kMaxScenarioBytes) + " for one scenario",
                     "bad_input");
}

nlohmann::json parse_scenario(std::string_view text, const std::string& where) {
  check_scenario_size(text, where);
  return parse_json(text, where);
}

// Whether the flags set any scenario key (apply_flags sets nothing else): a batch's lines are then
// answered from their text, without a tree (ScenarioText, issue 18).
bool flags_edit_scenarios(const Options& o) {
  nlohmann::json keys = nlohmann::json::object();
  apply_flags(o, keys);
  return !keys.empty();
}

// The result's texts in the language asked for (--lang), before any rendering.
nlohmann::json localized(nlohmann::json result) {
  localize(result, g_lang);
  return result;
}

std::string render_one(const nlohmann::json& result, const std::string& format) {
  if (format == "table") return render_estimate_table(result, g_lang);
  if (format == "markdown") return render_estimate_markdown(result, g_lang);
  if (format == "jsonl") return dump(result) + "\n";
  return dump(result, 2) + "\n";
}

// A batch answer line's usual size (7-8 kB with its basis texts and changes) and the size of
// the pieces the batch is written in.
constexpr size_t kAnswerBytes = 8 * 1024;
constexpr size_t kWriteBytes = 64 * 1024;

// Every line of a batch with its number, a blank one too, so that answer N is for input line N.
std::vector<std::pair<int, std::string_view>> batch_lines(const std::string& text) {
  std::vector<std::pair<int, std::string_view>> lines;
  int number = 0;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    lines.emplace_back(++number, std::string_view(text.data() + begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

// Answers in order to stdout, in pieces of about 64 KiB: one write call for some ten lines
// instead of about two per line through the stream's own 4 KiB buffer. A long batch shows how
// far it is on a terminal's stderr, and nothing otherwise.
void write_in_order(size_t count, const std::function<std::string(size_t)>& answer, unsigned jobs) {
  ProgressLine progress(count, "lines", isatty(STDERR_FILENO) != 0);
  size_t written = 0;
  std::string pending;
  pending.reserve(2 * kWriteBytes);
  auto write_pending = [&] {
    std::cout.write(pending.data(), static_cast<std::streamsize>(pending.size()));
    pending.clear();
  };
  map_in_order(
      count, answer,
      [&](const std::string& s) {
        pending += s;
        if (pending.size() >= kWriteBytes) write_pending();
        progress.update(++written);
      },
      jobs);
  write_pending();
  progress.finish();
  std::cout.flush();
}

// One result per line, in order; a failing line answers with an error object in its place.
// Lines are independent, so they are estimated on every core.
int run_estimate_batch(const Options& o, const Catalog& catalog, const std::string& format) {
  const std::string text = read_all(o.input);
  const auto lines = batch_lines(text);
  std::atomic<int> status{0};
  // English JSON text needs no tree: the answer is streamed as text (the same bytes).
  const bool stream = g_lang == Lang::kEn && format != "table" && format != "markdown";
  const bool edited = flags_edit_scenarios(o);
  auto answer = [&](size_t i) {
    nlohmann::json out;
    try {
      const auto [line_number, line] = lines[i];
      if (line.find_first_not_of(" \t\r") == std::string_view::npos)
        throw InputError("", fmt::format("line {} is blank", line_number), "bad_input");
      const std::string where = fmt::format("line {}", line_number);
      check_scenario_size(line, where);
      ScenarioText scenario(line, where);
      if (edited) apply_flags(o, scenario.tree());
      if (stream) {
        std::string answer_text;
        answer_text.reserve(kAnswerBytes);  // one allocation, not a dozen as it grows
        append_estimate_json(answer_text, scenario, catalog);
        answer_text += '\n';
        return answer_text;
      }
      out = localized(estimate_json(scenario.tree(), catalog));
    } catch (const InputError& e) {
      out = error_json(e.code(), e.what(), e.field(), g_lang);
      status = 2;
    } catch (const std::exception& e) {
      out = error_json("internal", e.what());
      status = 2;
    }
    if (format == "table" || format == "markdown") return render_one(out, format);
    std::string answer_text;
    append_json(answer_text, out);
    answer_text += '\n';
    return answer_text;
  };
  write_in_order(lines.size(), answer, o.jobs);
  return status.load();
}

int run_estimate(const Options& o) {
  const Catalog& catalog = catalog_for(o);
  const std::string format = output_format(o);
  const bool batch = !o.input.empty() && ((o.input.size() > 6 && o.input.ends_with(".jsonl")) ||
                                          (o.input == "-" && o.format == "jsonl"));
  if (batch) return run_estimate_batch(o, catalog, format);
  nlohmann::json scenario = nlohmann::json::object();
  if (!o.input.empty()) scenario = parse_scenario(read_all(o.input), "--input");
  apply_flags(o, scenario);
  const std::string text = render_one(localized(estimate_json(scenario, catalog)), format);
  std::cout << text << std::flush;
  return 0;
}

bool contains_ci(const std::string& haystack, const std::string& needle) {
  return needle.empty() ||
         normalize_name(haystack).find(normalize_name(needle)) != std::string::npos;
}

int run_gpus(const Options& o) {
  nlohmann::json all = gpus_json(catalog_for(o)), out = nlohmann::json::array();
  for (const auto& g : all) {
    if (!contains_ci(g.value("vendor", ""), o.vendor)) continue;
    if (!contains_ci(g.value("segment", ""), o.segment)) continue;
    if (g["memory_gb"].is_number() && g["memory_gb"].get<double>() < o.min_memory_gb) continue;
    out.push_back(g);
  }
  const std::string format = output_format(o);
  std::cout << (format == "json" || format == "jsonl" ? dump(out, 2) + "\n"
                : format == "csv"                     ? csv_table(out)
                                  : render_gpus(out, format == "markdown", g_lang));
  return 0;
}

int run_models(const Options& o) {
  if (o.local) return cli::run_local_models(output_format(o));
  nlohmann::json all = models_json(catalog_for(o)), out = nlohmann::json::array();
  for (const auto& m : all) {
    if (!contains_ci(m.value("family", ""), o.family)) continue;
    if (!o.kind.empty() && m.value("kind", "") != o.kind) continue;
    const double billions = m.value("params", 0.0) / 1e9;
    if (billions < o.min_params_b || billions > o.max_params_b) continue;
    out.push_back(m);
  }
  const std::string format = output_format(o);
  std::cout << (format == "json" || format == "jsonl" ? dump(out, 2) + "\n"
                : format == "csv"                     ? csv_table(out)
                                  : render_models(out, format == "markdown", g_lang));
  return 0;
}

int run_validate(const Options& o) {
  const Catalog& catalog = catalog_for(o);
  if (o.bands) {
    // What data/speed_bands.json holds (scripts/update_speed_bands.sh writes it).
    const std::time_t now = std::time(nullptr);
    char date[16];
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    std::cout << dump(to_json(derive_shipped_speed_bands(catalog, date)), 2) << "\n";
    return 0;
  }
  nlohmann::json report = to_json(validate_memory(catalog.memory_cases(), catalog));
  report["speed"] = validate_speed_shipped(catalog);
  const std::string format = output_format(o);
  std::cout << (format == "json" || format == "jsonl" ? dump(report, 2) + "\n"
                : format == "csv"                     ? render_validation_csv(report)
                                  : render_validation(report, format == "markdown", g_lang));
  return 0;
}

int run_inspect(const Options& o, const std::string& path) {
  const ImportedModel imported = import_model_path(path, /*shapes_only=*/true);
  const std::string format = output_format(o);
  std::cout << (format == "json" || format == "jsonl"
                    ? dump(imported_to_json(imported, catalog_for(o)), 2) + "\n"
                    : imported_to_text(imported, catalog_for(o)));
  return 0;
}

void add_scenario_flags(CLI::App* cmd, Options& o) {
  cmd->add_option("--input,-i", o.input,
                  "scenario file: .json (one) or .jsonl (one per line); - for stdin");
  cmd->add_option("--model,-m", o.model, "catalog id, HF id, path, e.g. llama-2-7b");
  cmd->add_option("--task", o.task, "inference|lora|qlora|full|freeze|pretrain|cv-train");
  cmd->add_option("--weights", o.weights,
                  "weights format: fp32 bf16 fp16 fp8 int8 int4 nf4 gptq-int4 awq-int4 q4_k_m ...");
  cmd->add_option("--kv-cache", o.kv_cache,
                  "KV cache format: fp32 bf16 fp16 fp8 q8_0 q5_1 q5_0 q4_1 q4_0");
  cmd->add_option("--batch,-b", o.batch,
                  "concurrent sequences (inference) or micro-batch (training)");
  cmd->add_option("--seq-len,-s", o.seq_len, "tokens per sequence");
  cmd->add_option("--prompt-len", o.prompt_len, "prompt tokens (inference speed)");
  cmd->add_option("--output-len", o.output_len, "output tokens (inference speed)");
  cmd->add_option("--engine", o.engine,
                  "hf|vllm|sglang|trtllm|llama.cpp|deepspeed|fsdp|megatron|torchtune (default: "
                  "vllm for serving on NVIDIA/AMD, llama.cpp on Apple or GGUF, hf for training)");
  cmd->add_option(
      "--engine-version", o.engine_version,
      "engine release whose rules apply, e.g. 0.10 or 0.6.4 for vllm (default: newest)");
  cmd->add_option("--gpu-memory-utilization", o.gpu_memory_utilization,
                  "share of the GPU a preallocating engine takes");
  cmd->add_option("--max-num-batched-tokens", o.max_num_batched_tokens,
                  "token budget of a preallocating engine");
  cmd->add_option("--max-num-seqs", o.max_num_seqs,
                  "most sequences a preallocating engine runs a step (its max_num_seqs or "
                  "max_batch_size)");
  cmd->add_option("--max-model-len", o.max_model_len,
                  "longest sequence a preallocating engine takes (its max_model_len or "
                  "max_seq_len)");
  cmd->add_option("--gpu,-g", o.gpu, "catalog GPU id, e.g. a100-sxm4-80gb, 4090");
  cmd->add_option("--gpu-count,-n", o.gpu_count, "GPUs in total");
  cmd->add_option("--gpus-per-node", o.gpus_per_node, "GPUs joined by the fast link");
  cmd->add_option("--tp", o.tp, "tensor parallel size");
  cmd->add_option("--pp", o.pp, "pipeline parallel size");
  cmd->add_option("--dp", o.dp, "data parallel size");
  cmd->add_option("--ep", o.ep, "expert parallel size");
  cmd->add_option("--cp", o.cp, "context parallel size (training)");
  cmd->add_option("--nodes", o.nodes, "nodes of --gpus-per-node GPUs (sets --gpu-count)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  cmd->add_option("--offload", o.offload, "training: none|optimizer|optimizer+params");
  cmd->add_option("--optimizer", o.optimizer,
                  "adamw|adamw-8bit|paged-adamw-8bit|paged-adamw|sgd|sgd-momentum|adafactor|lion");
  cmd->add_option("--mixed-precision", o.mixed_precision, "bf16|fp16|pure-bf16|fp32|fp8|mxfp8");
  cmd->add_option("--gradient-checkpointing", o.gradient_checkpointing,
                  "false|true|full|selective");
  cmd->add_flag("--no-flash-attention", o.no_flash_attention, "eager attention");
  cmd->add_option("--lora-rank", o.lora_rank, "LoRA rank");
  cmd->add_option("--lora-targets", o.lora_targets, "LoRA target modules (all-linear by default)");
  cmd->add_option("--zero-stage", o.zero_stage, "ZeRO stage 0-3");
  cmd->add_option("--grad-accum", o.grad_accum, "gradient accumulation steps");
  cmd->add_option("--global-batch", o.global_batch, "sequences per optimizer step");
  cmd->add_option("--tokens", o.tokens, "total training tokens");
  cmd->add_option("--method", o.method,
                  "analytic (default) or rule-of-thumb (the articles' arithmetic)");
  cmd->add_option("--requests-per-s", o.requests_per_s,
                  "serving traffic: mean request rate (lengths from --prompt-len, --output-len)");
  cmd->add_option("--offline-requests", o.offline_requests,
                  "serving: an offline job of N requests queued at once (time and rate to finish)");
  cmd->add_option("--prompt-len-p90", o.prompt_len_p90, "traffic: 90th percentile prompt tokens");
  cmd->add_option("--output-len-p90", o.output_len_p90, "traffic: 90th percentile output tokens");
  cmd->add_option("--ttft-ms", o.ttft_ms, "SLO: time to first token at the percentile");
  cmd->add_option("--tpot-ms", o.tpot_ms, "SLO: time per output token at the percentile");
  cmd->add_option("--percentile", o.percentile, "SLO percentile: 50, 90 (default) or 99");
}

void add_constraint_flags(CLI::App* cmd, Options& o) {
  cmd->add_option("--objective", o.objective, "cost|speed|power (default cost)");
  cmd->add_option("--max-gpus", o.max_gpus, "at most this many GPUs");
  cmd->add_option("--top", o.top, "options printed (default 20)");
  cmd->add_option("--budget-usd", o.budget_usd, "USD per hour (cloud) or purchase (--on-prem)");
  cmd->add_option("--vendor", o.vendor, "only this vendor");
  cmd->add_option("--segment", o.segment, "consumer|workstation|datacenter");
  cmd->add_flag("--cloud", o.cloud, "rent: cloud prices");
  cmd->add_flag("--on-prem", o.on_prem, "buy: purchase prices");
  cmd->add_option("--region", o.region, "cn: leave out export-controlled GPUs");
  cmd->add_option("--min-tokens-per-s", o.min_tokens_per_s, "at least this throughput");
  cmd->add_option("--max-ttft-ms", o.max_ttft_ms, "at most this time to first token");
  cmd->add_option("--max-days", o.max_days, "training: at most this many days");
  cmd->add_flag("--production", o.production, "ECC and datacenter cards only");
  cmd->add_flag("--allow-quantization", o.allow_quantization, "try int8/int4/fp8 weights, fp8 KV");
  cmd->add_flag("--allow-offload", o.allow_offload,
                "training: try CPU offload of the optimizer (and parameters)");
  cmd->add_option("--headroom", o.headroom, "share of memory kept free (default 0.10)");
  cmd->add_option("--gpus", o.allowed_gpus, "allowed GPU ids");
  cmd->add_option("--costs", o.costs_file, "JSON file overriding data/costs.json");
  cmd->add_option("--rack-budget-watts", o.rack_budget_watts,
                  "rack power budget in W: no node may exceed it with its margin (fewer GPUs per "
                  "node, more racks); default data/facility.json, a warning only");
}

// The request of recommend/report: the scenario flags plus the constraints.
nlohmann::json advisor_request(const Options& o) {
  nlohmann::json r = nlohmann::json::object();
  if (!o.input.empty()) r = parse_scenario(read_all(o.input), "--input");
  apply_flags(o, r);
  auto set = [&](const char* key, const auto& v) {
    if (v) r[key] = *v;
  };
  set("objective", o.objective);
  set("region", o.region);
  set("max_gpus", o.max_gpus);
  set("top", o.top);
  set("budget_usd", o.budget_usd);
  set("min_tokens_per_s", o.min_tokens_per_s);
  set("max_ttft_ms", o.max_ttft_ms);
  set("max_days", o.max_days);
  set("headroom", o.headroom);
  if (!o.vendor.empty()) r["vendor"] = o.vendor;
  if (!o.segment.empty()) r["segment"] = o.segment;
  if (o.cloud) r["cloud"] = true;
  if (o.on_prem) r["on_prem"] = true;
  if (o.production) r["production"] = true;
  if (o.allow_quantization) r["allow_quantization"] = true;
  if (o.allow_offload) r["allow_offload"] = true;
  if (!o.allowed_gpus.empty()) r["gpus"] = o.allowed_gpus;
  if (o.costs_file) r["costs"] = parse_json(read_all(*o.costs_file, "--costs"), "--costs");
  if (o.rack_budget_watts) r["facility"]["rack_budget_watts"] = *o.rack_budget_watts;
  return r;
}

int run_recommend(const Options& o) {
  const nlohmann::json out = localized(recommend_json(advisor_request(o), catalog_for(o)));
  const std::string format = output_format(o);
  std::cout << (format == "json" || format == "jsonl" ? dump(out, format == "json" ? 2 : -1) + "\n"
                : format == "csv"                     ? render_recommendation_csv(out)
                                  : render_recommendation(out, format == "markdown", g_lang))
            << std::flush;
  return 0;
}

int run_fit(const Options& o) {
  nlohmann::json request = advisor_request(o);
  if (o.no_levers) request["levers"] = false;
  const nlohmann::json out = localized(fit_models_json(request, catalog_for(o)));
  const std::string format = output_format(o);
  std::cout << (format == "json" || format == "jsonl"
                    ? dump(out, 2) + "\n"
                    : render_fit(out, format == "markdown", g_lang))
            << std::flush;
  return 0;
}

// The buyer's document is markdown unless JSON is asked for, on a terminal or not (so that
// `gpusizer report ... > request.md` writes markdown).
int run_report(const Options& o) {
  const nlohmann::json out = localized(report_json(advisor_request(o), catalog_for(o)));
  const std::string format = o.format.empty() ? "markdown" : o.format;
  std::cout << (format == "json" || format == "jsonl" ? dump(out, 2) + "\n"
                                                      : render_report_markdown(out, g_lang))
            << std::flush;
  return 0;
}

// The subcommands and the arguments of their own (CLI11 writes into these while parsing, so the
// object stays where main_impl made it).
struct Commands {
  CLI::App *estimate = nullptr, *gpus = nullptr, *models = nullptr, *inspect = nullptr,
           *validate = nullptr, *serve = nullptr, *calibrate = nullptr, *check = nullptr,
           *recommend = nullptr, *fit = nullptr, *report = nullptr;
  std::string inspect_path, cases_path, calibrated_output, log_path;
  std::string lang = "en";
  ServerOptions serve_options;
  /// The arguments whose commands get their scenario and constraint flags (empty: every
  /// command's): CLI11 spends about a million instructions adding them to each of six commands,
  /// and a run uses the one it names (main_impl).
  std::span<char* const> named;
  bool complete(const CLI::App* cmd) const {
    if (named.empty()) return true;
    for (const char* arg : named)
      if (cmd->get_name() == arg) return true;
    return false;
  }
};

void add_format(CLI::App* cmd, Options& o) {
  cmd->add_option("--format,-f", o.format, "table|markdown|json|jsonl")
      ->check(CLI::IsMember(std::vector<std::string>{"table", "markdown", "json", "jsonl"}));
}

// Tables open in a spreadsheet as CSV (RFC 4180).
void add_table_format(CLI::App* cmd, Options& o) {
  cmd->add_option("--format,-f", o.format, "table|markdown|json|jsonl|csv")
      ->check(CLI::IsMember(std::vector<std::string>{"table", "markdown", "json", "jsonl", "csv"}));
}

// estimate, gpus, models, inspect, validate: one scenario and the catalogs.
void add_catalog_commands(CLI::App& app, Options& o, Commands& c) {
  c.estimate = app.add_subcommand("estimate", "memory, speed, cost and power of one scenario");
  add_format(c.estimate, o);
  if (c.complete(c.estimate)) add_scenario_flags(c.estimate, o);
  c.estimate->add_flag("--no-changes", o.no_changes,
                       "no \"changes\" for a scenario that does not fit (JSON \"changes\": false)");
  c.estimate->add_flag(
      "--no-basis", o.no_basis,
      "no \"basis\" texts: the figures and warnings alone (JSON \"basis\": false)");
  c.estimate->add_option("--jobs,-j", o.jobs, "threads for a .jsonl batch (default: one per core)")
      ->check(CLI::Range(1, 256));
  c.gpus = app.add_subcommand("gpus", "list the GPU catalog");
  add_table_format(c.gpus, o);
  c.gpus->add_option("--vendor", o.vendor, "filter by vendor");
  c.gpus->add_option("--segment", o.segment, "datacenter|workstation|consumer|apple-soc");
  c.gpus->add_option("--min-memory", o.min_memory_gb, "at least this many GB");
  c.models = app.add_subcommand("models", "list the model catalog");
  add_table_format(c.models, o);
  c.models->add_flag("--local", o.local,
                     "list the models in the local stores (Hugging Face, ModelScope, Ollama)");
  c.models->add_option("--family", o.family, "filter by family");
  c.models->add_option("--kind", o.kind, "llm|cv");
  c.models->add_option("--min-params", o.min_params_b, "at least this many billion parameters");
  c.models->add_option("--max-params", o.max_params_b, "at most this many billion parameters");
  c.inspect = app.add_subcommand(
      "inspect", "read a config.json, model folder, .safetensors (or index) or .gguf file");
  c.inspect->add_option("path", c.inspect_path, "file or folder")->required();
  add_format(c.inspect, o);
  c.validate = app.add_subcommand("validate", "error against the shipped measurements");
  add_table_format(c.validate, o);
  c.validate->add_flag(
      "--bands", o.bands,
      "print the speed bands derived from the check-half rows (data/speed_bands.json)");
}

// serve, calibrate, check: the server and the user's own measurements.
void add_measurement_commands(CLI::App& app, Options& o, Commands& c) {
  c.serve = cli::add_serve_command(app, c.serve_options);
  c.calibrate = app.add_subcommand(
      "calibrate", "fit the speed efficiencies to your measurements, logs or llama-bench output");
  c.calibrate
      ->add_option("cases", c.cases_path,
                   "throughput_cases.jsonl rows, a vLLM/SGLang/llama.cpp log, llama-bench output "
                   "or a figures file (docs/stores-and-logs.md)")
      ->required();
  c.calibrate->add_option("--output,-o", c.calibrated_output,
                          "write the fitted profile here (nothing is written without it)");
  if (c.complete(c.calibrate)) add_scenario_flags(c.calibrate, o);
  c.check = app.add_subcommand(
      "check", "the estimate beside what a start-up log or llama-bench measured, with the error");
  c.check
      ->add_option("log", c.log_path, "vLLM, SGLang or llama.cpp log, llama-bench output, figures")
      ->required();
  add_format(c.check, o);
  if (c.complete(c.check)) add_scenario_flags(c.check, o);
}

// recommend, fit, report: the advisor.
void add_advisor_commands(CLI::App& app, Options& o, Commands& c) {
  c.recommend = app.add_subcommand("recommend", "rank the GPUs for a scenario");
  add_table_format(c.recommend, o);
  if (c.complete(c.recommend)) add_scenario_flags(c.recommend, o);
  if (c.complete(c.recommend)) add_constraint_flags(c.recommend, o);
  c.fit = app.add_subcommand("fit", "the largest models, contexts and batches that fit");
  add_format(c.fit, o);
  if (c.complete(c.fit)) add_scenario_flags(c.fit, o);
  c.fit->add_flag("--no-levers", o.no_levers,
                  "no standard levers (training: ZeRO-3 over the GPUs, gradient checkpointing)");
  c.report = app.add_subcommand("report", "the buyer's checklist as one document");
  add_format(c.report, o);
  if (c.complete(c.report)) add_scenario_flags(c.report, o);
  if (c.complete(c.report)) add_constraint_flags(c.report, o);
}

// The command that was parsed, run.
int run_command(Options& o, Commands& c) {
  if (*c.estimate) return run_estimate(o);
  if (*c.gpus) return run_gpus(o);
  if (*c.models) return run_models(o);
  if (*c.validate) return run_validate(o);
  if (*c.inspect) return run_inspect(o, c.inspect_path);
  if (*c.serve) {
    c.serve_options.data_dir = o.data_dir;
    return run_server(c.serve_options);
  }
  if (*c.calibrate || *c.check) {
    nlohmann::json flags = nlohmann::json::object();
    apply_flags(o, flags);
    if (*c.check) return cli::run_check(c.log_path, flags, catalog_for(o), output_format(o));
    return cli::run_calibrate(c.cases_path, flags, catalog_for(o), c.calibrated_output);
  }
  if (*c.recommend) return run_recommend(o);
  if (*c.fit) return run_fit(o);  // without --model, fit searches the catalog
  if (*c.report) return run_report(o);
  return 2;
}

// Parses and runs; with `lazy`, only the commands an argument names get their flags
// (Commands::named). nullopt when a lazy parse failed or asked for every command's help, so that
// the caller parses again with every command complete and errors and help read as they always
// did.
std::optional<int> parse_and_run(int argc, char** argv, bool lazy) {
  Options o;
  Commands c;
  if (lazy) c.named = std::span<char* const>(argv + 1, static_cast<size_t>(argc - 1));
  CLI::App app{"gpusizer: which GPUs, how many, how fast, at what cost, for a large model"};
  app.require_subcommand(1);
  app.add_option("--data-dir", o.data_dir, "read data files from this directory (else built-in)")
      ->envname("GPUSIZER_DATA_DIR");
  add_catalog_commands(app, o, c);
  add_measurement_commands(app, o, c);
  add_advisor_commands(app, o, c);
  // --lang on every command (before or after the command's name).
  app.add_option("--lang", c.lang, "language of the texts: en|zh (default en)");
  for (CLI::App* sub : app.get_subcommands({}))
    sub->add_option("--lang", c.lang, "language of the texts: en|zh (default en)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    if (lazy) return std::nullopt;
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (lazy) return std::nullopt;
    std::cerr << "gpusizer: error: " << e.what() << "\n";
    return 2;
  }
  g_lang = parse_lang(c.lang, "--lang");
  return run_command(o, c);
}

}  // namespace

int main_impl(int argc, char** argv) {
  if (argc > 1)
    if (const std::optional<int> code = parse_and_run(argc, argv, true)) return *code;
  return *parse_and_run(argc, argv, false);
}

}  // namespace gpusizer

int main(int argc, char** argv) {
  try {
    return gpusizer::main_impl(argc, argv);
  } catch (const gpusizer::InputError& e) {
    const nlohmann::json error =
        gpusizer::error_json(e.code(), e.what(), e.field(), gpusizer::g_lang);
    std::cerr << "gpusizer: error: " << error["error"]["message"].get<std::string>() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "gpusizer: internal error: " << e.what() << "\n";
    return 1;
  }
}
