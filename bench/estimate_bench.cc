// Cost of one estimate (aim: under 20 microseconds) and of a 10,000-line JSONL batch through the
// library (aim: under one second on 2 cores). Prints Google Benchmark's table.
#include <benchmark/benchmark.h>

#include "gpusizer/batch.h"
#include "gpusizer/estimate.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/json_text.h"
#include "gpusizer/json/scenario.h"

namespace {

void BM_EstimateInference(benchmark::State& state) {
  const nlohmann::json input = {{"model", "llama-3.1-8b"}, {"gpu", "a100-sxm4-80gb"}, {"batch", 8}};
  const gpusizer::Scenario s = gpusizer::parse_scenario(input, gpusizer::Catalog::builtin());
  for (auto _ : state)
    benchmark::DoNotOptimize(gpusizer::estimate(s, gpusizer::Catalog::builtin()));
}
BENCHMARK(BM_EstimateInference);

void BM_EstimateTraining(benchmark::State& state) {
  const nlohmann::json input = {{"model", "llama-2-70b"},
                                {"task", "lora"},
                                {"gpu", "h100"},
                                {"gpu_count", 8},
                                {"training", {{"zero_stage", 3}}}};
  const gpusizer::Scenario s = gpusizer::parse_scenario(input, gpusizer::Catalog::builtin());
  for (auto _ : state)
    benchmark::DoNotOptimize(gpusizer::estimate(s, gpusizer::Catalog::builtin()));
}
BENCHMARK(BM_EstimateTraining);

// The numbers-only estimate searches use (Detail::kFigures: memory and speed, no text); issue 18
// asks for about a million a second per core.
void BM_EstimateFiguresInference(benchmark::State& state) {
  const nlohmann::json input = {{"model", "llama-3.1-8b"}, {"gpu", "a100-sxm4-80gb"}, {"batch", 8}};
  const gpusizer::Scenario s = gpusizer::parse_scenario(input, gpusizer::Catalog::builtin());
  for (auto _ : state)
    benchmark::DoNotOptimize(
        gpusizer::estimate(s, gpusizer::Catalog::builtin(), gpusizer::Detail::kFigures));
}
BENCHMARK(BM_EstimateFiguresInference);

void BM_EstimateJsonRoundTrip(benchmark::State& state) {
  const std::string line =
      R"({"model": "qwen2.5-7b", "gpu": "l40s", "engine": "vllm", "seq_len": 8192, "batch": 16})";
  for (auto _ : state) {
    const auto out = gpusizer::estimate_json(nlohmann::json::parse(line));
    benchmark::DoNotOptimize(gpusizer::json_text(out));
  }
}
BENCHMARK(BM_EstimateJsonRoundTrip);

// The batch: two scenarios that fit and two that do not (each of those also answers what to
// change, one estimate per candidate change).
constexpr const char* kBatchLines[] = {
    R"({"model": "llama-2-7b", "gpu": "rtx-4090-24gb", "batch": 4})",
    R"({"model": "llama-3.1-70b", "task": "qlora", "gpu": "a100-80g"})",
    R"({"model": "mixtral-8x7b-v0.1", "engine": "vllm", "gpu": "h100", "gpu_count": 2})",
    R"({"model": "qwen3-32b", "task": "full", "gpu": "h100", "gpu_count": 8, "training": {"zero_stage": 3}})"};

std::string answer_line(size_t i) {
  return gpusizer::json_text(gpusizer::estimate_json(nlohmann::json::parse(kBatchLines[i % 4])));
}

void BM_Jsonl10000Lines(benchmark::State& state) {
  for (auto _ : state) {
    size_t bytes = 0;
    for (size_t i = 0; i < 10000; ++i) bytes += answer_line(i).size();
    benchmark::DoNotOptimize(bytes);
  }
}
BENCHMARK(BM_Jsonl10000Lines)->Unit(benchmark::kMillisecond)->Iterations(3);

// The same batch as `gpusizer estimate --input FILE.jsonl` runs it: lines on every core, answers
// written in order as JSON text. Wall-clock time.
void BM_Jsonl10000LinesAllCores(benchmark::State& state) {
  for (auto _ : state) {
    size_t bytes = 0;
    gpusizer::map_in_order(10000, answer_line,
                           [&](const std::string& text) { bytes += text.size(); });
    benchmark::DoNotOptimize(bytes);
  }
}
BENCHMARK(BM_Jsonl10000LinesAllCores)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
