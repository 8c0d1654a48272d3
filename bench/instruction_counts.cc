// Instructions per item of the hot paths, counted by callgrind rather than timed, so that the
// figure is the same on a busy 2-core CI machine as on an idle workstation. Run it through
// scripts/check_instructions.sh, which starts it under `valgrind --tool=callgrind
// --collect-atstart=no` once per measure and divides the collected instruction count by the
// number of items. Outside valgrind the collection macros do nothing and the program only
// runs the work (useful to check that it runs at all).
//
//   instruction_counts MEASURE ITEMS
//
// MEASURE is one of the names printed by `instruction_counts --list`.
#include <valgrind/callgrind.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "gpusizer/advisor.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/advisor.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/json_text.h"
#include "gpusizer/json/scenario.h"

namespace {

using gpusizer::Catalog;

struct Measure {
  const char* name;
  const char* what;
  std::function<size_t(size_t)> run;  // runs `items` items, returns a value the work depends on
};

gpusizer::Scenario scenario_of(const nlohmann::json& input) {
  return gpusizer::parse_scenario(input, Catalog::builtin());
}

size_t estimates(const gpusizer::Scenario& s, gpusizer::Detail detail, size_t items) {
  size_t sum = 0;
  for (size_t i = 0; i < items; ++i)
    sum += static_cast<size_t>(gpusizer::estimate(s, Catalog::builtin(), detail).memory.total);
  return sum;
}

// The JSONL batch's four lines (bench/estimate_bench.cc): two fit, two do not (those also answer
// what to change).
constexpr const char* kBatchLines[] = {
    R"({"model": "llama-2-7b", "gpu": "rtx-4090-24gb", "batch": 4})",
    R"({"model": "llama-3.1-70b", "task": "qlora", "gpu": "a100-80g"})",
    R"({"model": "mixtral-8x7b-v0.1", "engine": "vllm", "gpu": "h100", "gpu_count": 2})",
    R"({"model": "qwen3-32b", "task": "full", "gpu": "h100", "gpu_count": 8, "training": {"zero_stage": 3}})"};

// The four lines with the keys of `extra` added to each line's text (as a grid sweep writes them).
std::vector<std::string> lines_with(const nlohmann::json& extra) {
  std::vector<std::string> lines;
  for (const char* line : kBatchLines) {
    std::string text(line);
    text.pop_back();  // the closing brace
    for (const auto& [key, value] : extra.items())
      text += ", " + nlohmann::json(key).dump() + ": " + value.dump();
    lines.push_back(text + "}");
  }
  return lines;
}

// `n` of those lines answered as `estimate --input FILE.jsonl` writes an English line: read from
// their text as the CLI and the server read a line (ScenarioText), streamed, no answer tree.
// Returns the bytes written.
size_t answer_lines(size_t n, const std::vector<std::string>& lines) {
  size_t bytes = 0;
  std::string text;
  const std::string where = "line";
  for (size_t i = 0; i < n; ++i) {
    text.clear();
    const gpusizer::ScenarioText line(lines[i % lines.size()], where);
    gpusizer::append_estimate_json(text, line);
    bytes += text.size();
  }
  return bytes;
}

std::vector<Measure> measures() {
  static const gpusizer::Scenario inference =
      scenario_of({{"model", "llama-3.1-8b"}, {"gpu", "a100-sxm4-80gb"}, {"batch", 8}});
  static const gpusizer::Scenario training = scenario_of({{"model", "llama-2-70b"},
                                                          {"task", "lora"},
                                                          {"gpu", "h100"},
                                                          {"gpu_count", 8},
                                                          {"training", {{"zero_stage", 3}}}});
  return {
      {"estimate_figures_inference", "numbers-only estimate, Llama-3.1-8B on an A100, batch 8",
       [](size_t n) { return estimates(inference, gpusizer::Detail::kFigures, n); }},
      {"estimate_figures_training", "numbers-only estimate, Llama-2-70B LoRA, ZeRO-3 on 8 H100",
       [](size_t n) { return estimates(training, gpusizer::Detail::kFigures, n); }},
      {"estimate_full_inference", "estimate with every basis string, the same inference",
       [](size_t n) { return estimates(inference, gpusizer::Detail::kFull, n); }},
      {"jsonl_line", "one JSONL answer line: parse, estimate, what to change, JSON text",
       [](size_t n) {
         static const auto lines = lines_with({});
         return answer_lines(n, lines);
       }},
      {"jsonl_line_no_changes", "the same JSONL lines with \"changes\": false (a grid sweep)",
       [](size_t n) {
         static const auto lines = lines_with({{"changes", false}});
         return answer_lines(n, lines);
       }},
      {"jsonl_line_figures",
       "the same JSONL lines with \"changes\": false and \"basis\": false (figures only)",
       [](size_t n) {
         static const auto lines = lines_with({{"changes", false}, {"basis", false}});
         return answer_lines(n, lines);
       }},
      {"jsonl_line_hf_config", "one JSONL answer line whose model is an inline config.json",
       [](size_t n) {
         // Llama-2-7B's config.json (tests/fixtures/hf_configs/llama-2-7b.json) on every line,
         // as a grid sweep sends it: imported once, not once a line.
         static const std::string line =
             R"({"model": {"hf_config": {"architectures": ["LlamaForCausalLM"], )"
             R"("hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 11008, )"
             R"("max_position_embeddings": 4096, "model_type": "llama", )"
             R"("num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32, )"
             R"("rms_norm_eps": 1e-05, "tie_word_embeddings": false, "torch_dtype": "float16", )"
             R"("vocab_size": 32000}}, "gpu": "rtx-4090-24gb", "batch": 4})";
         size_t bytes = 0;
         std::string text;
         const std::string where = "line";
         for (size_t i = 0; i < n; ++i) {
           text.clear();
           gpusizer::append_estimate_json(text, gpusizer::ScenarioText(line, where));
           bytes += text.size();
         }
         return bytes;
       }},
      {"catalog_read", "the built-in catalog read as a command starts, and one model looked up",
       [](size_t n) {
         size_t layers = 0;
         for (size_t i = 0; i < n; ++i)
           layers += static_cast<size_t>(Catalog::embedded().model("llama-3.1-8b").num_layers);
         return layers;
       }},
      {"recommend_inference_catalog", "recommend over the whole catalog, Llama-3.1-8B serving",
       [](size_t n) {
         const nlohmann::json request = {{"model", "llama-3.1-8b"}, {"engine", "vllm"}};
         size_t options = 0;
         for (size_t i = 0; i < n; ++i)
           options += gpusizer::recommend(request, Catalog::builtin()).options.size();
         return options;
       }},
  };
}

}  // namespace

int main(int argc, char** argv) {
  const auto all = measures();
  if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
    for (const auto& m : all) std::printf("%s\t%s\n", m.name, m.what);
    return 0;
  }
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s MEASURE ITEMS | --list\n", argv[0]);
    return 2;
  }
  const long items = std::strtol(argv[2], nullptr, 10);
  for (const auto& m : all) {
    if (std::strcmp(m.name, argv[1]) != 0) continue;
    if (items < 1) {
      std::fprintf(stderr, "ITEMS must be a positive count\n");
      return 2;
    }
    // One round of every input first (the JSONL measure cycles through four lines): function
    // statics (a GPU's link pattern, the catalog's tables) are built once per process and are not
    // a line's cost.
    m.run(4);
    CALLGRIND_TOGGLE_COLLECT;
    const size_t keep = m.run(static_cast<size_t>(items));
    CALLGRIND_TOGGLE_COLLECT;
    std::printf("%s %ld %zu\n", m.name, items, keep);
    return 0;
  }
  std::fprintf(stderr, "unknown measure '%s' (see --list)\n", argv[1]);
  return 2;
}
