// Cost of one speed estimate (decode/prefill/max-throughput, and a training step).
#include <benchmark/benchmark.h>

#include "gpusizer/speed.h"

namespace gpusizer {
namespace {

Scenario scenario(Task task) {
  const Catalog& cat = Catalog::builtin();
  Scenario s;
  s.model = cat.model("llama-3.1-70b");
  s.gpu = cat.gpu("h100-sxm5-80gb");
  s.weights = cat.format_ref("fp8", "weights", "weights");
  s.kv_cache = cat.format_ref("bf16", "kv", "kv_cache");
  s.engine = task == Task::kInference ? "vllm" : "fsdp";
  s.task = task;
  s.parallel.tp = 2;
  s.gpu_count = 8;
  s.batch = 8;
  return s;
}

void BM_InferenceSpeed(benchmark::State& state) {
  const Scenario s = scenario(Task::kInference);
  const Catalog& cat = Catalog::builtin();
  Catalog::builtin().speed();
  for (auto _ : state) {
    MemoryEstimate m;
    m.max_batch = 256;
    Explanations why;
    benchmark::DoNotOptimize(estimate_speed(s, cat, m, &why));
  }
}
BENCHMARK(BM_InferenceSpeed);

void BM_TrainingSpeed(benchmark::State& state) {
  Scenario s = scenario(Task::kFull);
  s.weights = Catalog::builtin().format_ref("bf16", "weights", "weights");
  s.training.zero_stage = 3;
  const Catalog& cat = Catalog::builtin();
  Catalog::builtin().speed();
  for (auto _ : state) {
    Explanations why;
    benchmark::DoNotOptimize(estimate_speed(s, cat, MemoryEstimate{}, &why));
  }
}
BENCHMARK(BM_TrainingSpeed);

}  // namespace
}  // namespace gpusizer

BENCHMARK_MAIN();
