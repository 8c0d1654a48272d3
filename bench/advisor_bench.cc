// Cost of a full-catalog recommendation with every lever (aim: under 50 ms on 2 cores, Release),
// of "what to change" and of the reverse fit. Prints Google Benchmark's table.
#include <benchmark/benchmark.h>

#include "gpusizer/advisor.h"
#include "gpusizer/api.h"

namespace {

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
  const nlohmann::json s = {{"model", "llama-2-7b"}, {"task", "full"}, {"gpu", "a10-24gb"}};
  for (auto _ : state)
    benchmark::DoNotOptimize(gpusizer::changes_to_fit(s, gpusizer::Catalog::builtin()));
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
