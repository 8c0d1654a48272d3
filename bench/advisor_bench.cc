// Cost of a full-catalog recommendation with every lever (aim: under 50 ms on 2 cores, Release),
// of "what to change" and of the reverse fit. Prints Google Benchmark's table.
#include <benchmark/benchmark.h>

#include "gpusizer/advisor.h"
#include "gpusizer/json/advisor.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/scenario.h"

namespace {

// instruction_counts' recommend_inference_catalog in time (issue 18's aim: under 2 ms).
void BM_RecommendInferenceCatalog(benchmark::State& state) {
  const nlohmann::json request = {{"model", "llama-3.1-8b"}, {"engine", "vllm"}};
  for (auto _ : state)
    benchmark::DoNotOptimize(gpusizer::recommend(request, gpusizer::Catalog::builtin()));
}
BENCHMARK(BM_RecommendInferenceCatalog)->Unit(benchmark::kMillisecond);

void BM_RecommendInference13BAllLevers(benchmark::State& state) {
  const nlohmann::json request = {
      {"model", "llama-2-13b"}, {"engine", "vllm"}, {"allow_quantization", true}, {"batch", 8}};
  for (auto _ : state)
    benchmark::DoNotOptimize(gpusizer::recommend(request, gpusizer::Catalog::builtin()));
}
BENCHMARK(BM_RecommendInference13BAllLevers)->Unit(benchmark::kMillisecond);

void BM_RecommendInference70BAllLevers(benchmark::State& state) {
  const nlohmann::json request = {{"model", "llama-3.1-70b"}, {"allow_quantization", true}};
  for (auto _ : state)
    benchmark::DoNotOptimize(gpusizer::recommend(request, gpusizer::Catalog::builtin()));
}
BENCHMARK(BM_RecommendInference70BAllLevers)->Unit(benchmark::kMillisecond);

// The fleet search for a traffic target over the whole catalog (aim: under 100 ms): every GPU x
// replica layout x weights/KV format, replicas from the load model's highest rate per replica.
void BM_RecommendTrafficWholeCatalog(benchmark::State& state) {
  const nlohmann::json request = {
      {"model", "llama-3.1-8b"},
      {"engine", "vllm"},
      {"traffic",
       {{"requests_per_s", 100},
        {"prompt_len", 1000},
        {"output_len", 200},
        {"prompt_len_p90", 2500},
        {"output_len_p90", 450}}},
      {"slo", {{"ttft_ms", 1000}, {"tpot_ms", 50}, {"percentile", 90}}}};
  for (auto _ : state)
    benchmark::DoNotOptimize(gpusizer::recommend(request, gpusizer::Catalog::builtin()));
}
BENCHMARK(BM_RecommendTrafficWholeCatalog)->Unit(benchmark::kMillisecond);

void BM_RecommendTrafficWholeCatalogAllLevers(benchmark::State& state) {
  const nlohmann::json request = {
      {"model", "llama-3.1-70b"},
      {"engine", "vllm"},
      {"allow_quantization", true},
      {"traffic", {{"requests_per_s", 20}, {"prompt_len", 1000}, {"output_len", 200}}},
      {"slo", {{"ttft_ms", 2000}, {"tpot_ms", 100}}}};
  for (auto _ : state)
    benchmark::DoNotOptimize(gpusizer::recommend(request, gpusizer::Catalog::builtin()));
}
BENCHMARK(BM_RecommendTrafficWholeCatalogAllLevers)->Unit(benchmark::kMillisecond);

void BM_RecommendFullFineTune7B(benchmark::State& state) {
  const nlohmann::json request = {{"model", "llama-2-7b"}, {"task", "full"}};
  for (auto _ : state)
    benchmark::DoNotOptimize(gpusizer::recommend(request, gpusizer::Catalog::builtin()));
}
BENCHMARK(BM_RecommendFullFineTune7B)->Unit(benchmark::kMillisecond);

void BM_RecommendJsonPretrain(benchmark::State& state) {
  const nlohmann::json request = {{"model", "llama-2-7b"},
                                  {"task", "pretrain"},
                                  {"training", {{"tokens", 1e12}}},
                                  {"max_days", 30}};
  for (auto _ : state) benchmark::DoNotOptimize(gpusizer::recommend_json(request).dump());
}
BENCHMARK(BM_RecommendJsonPretrain)->Unit(benchmark::kMillisecond);

void BM_ChangesToFit(benchmark::State& state) {
  const gpusizer::Catalog& catalog = gpusizer::Catalog::builtin();
  gpusizer::ScenarioGiven given;
  const gpusizer::Scenario s = gpusizer::parse_scenario(
      {{"model", "llama-2-7b"}, {"task", "full"}, {"gpu", "a10-24gb"}}, catalog, given);
  for (auto _ : state) benchmark::DoNotOptimize(gpusizer::changes_to_fit(s, given, catalog));
}
BENCHMARK(BM_ChangesToFit)->Unit(benchmark::kMillisecond);

void BM_ReverseFit(benchmark::State& state) {
  const nlohmann::json s = {
      {"model", "llama-2-7b"}, {"gpu", "l40s"}, {"gpu_count", 2}, {"task", "qlora"}};
  for (auto _ : state)
    benchmark::DoNotOptimize(gpusizer::fit_json(s, gpusizer::Catalog::builtin()));
}
BENCHMARK(BM_ReverseFit)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
