// Layouts evaluated per second by the training layout search (src/advisor/training_layouts.cc)
// on the Megatron-Turing NLG 530B job (h 20480, ffn 81920, 128 heads, 105 layers, vocab 51200,
// seq 2048, global batch 2520) on A100 80GB; each candidate costs a memory estimate and, when it
// fits, a step-time estimate. Prints the best layout once.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "advisor/training_layouts.h"

namespace gpusizer {
namespace {

Scenario mt_nlg(int64_t gpus) {
  const nlohmann::json j = {{"model",
                             {{"hf_config",
                               {{"architectures", {"GPT2LMHeadModel"}},
                                {"model_type", "gpt2"},
                                {"n_embd", 20480},
                                {"n_layer", 105},
                                {"n_head", 128},
                                {"n_inner", 81920},
                                {"vocab_size", 51200},
                                {"n_positions", 2048},
                                {"tie_word_embeddings", true}}}}},
                            {"engine", "megatron"},
                            {"gpu", "a100-sxm4-80gb"},
                            {"gpu_count", gpus},
                            {"task", "pretrain"},
                            {"weights", "bf16"},
                            {"seq_len", 2048},
                            {"training", {{"global_batch", 2520}}}};
  return parse_scenario(j, Catalog::builtin());
}

void BM_LayoutSearch530B(benchmark::State& state) {
  const Scenario s = mt_nlg(state.range(0));
  const Catalog& cat = Catalog::builtin();
  const SpeedProfile& profile = Catalog::builtin().speed();
  int64_t evaluated = 0, memory = 0, timed = 0;
  LayoutSearchResult last;
  LayoutSearchOptions o;
  o.allow_fewer_gpus = state.range(1) != 0;
  o.prune = state.range(2) != 0;
  for (auto _ : state) {
    last = search_training_layouts(s, cat, profile, o);
    evaluated += last.candidates;
    memory += last.memory_estimates;
    timed += last.fitting;
    benchmark::DoNotOptimize(last);
  }
  // Layouts decided per CPU second (estimated, or excluded by a memory bound or because a
  // cheaper lever already fits), and the estimator calls behind them.
  state.counters["layouts_per_s"] =
      benchmark::Counter(static_cast<double>(evaluated), benchmark::Counter::kIsRate);
  state.counters["memory_estimates_per_s"] =
      benchmark::Counter(static_cast<double>(memory), benchmark::Counter::kIsRate);
  state.counters["timed_per_s"] =
      benchmark::Counter(static_cast<double>(timed), benchmark::Counter::kIsRate);
  state.counters["candidates"] = static_cast<double>(last.candidates);
  state.counters["fitting"] = static_cast<double>(last.fitting);
  if (!last.top.empty()) {
    const TrainingLayout& b = last.top.front();
    std::printf(
        "best of %lld on up to %lld GPUs (%lld used): tp %lld pp %lld v %lld dp %lld mb %lld ga "
        "%lld zero %d "
        "sp %d recompute %d: %.2f s/step, MFU %.3f (%lld candidates, %lld memory estimates)\n",
        static_cast<long long>(last.candidates), static_cast<long long>(state.range(0)),
        static_cast<long long>(b.gpus), static_cast<long long>(b.parallel.tp),
        static_cast<long long>(b.parallel.pp), static_cast<long long>(b.parallel.pp_interleave),
        static_cast<long long>(b.parallel.dp), static_cast<long long>(b.micro_batch),
        static_cast<long long>(b.grad_accum), b.zero_stage, b.parallel.sequence_parallel ? 1 : 0,
        static_cast<int>(b.recompute), b.step_time_s, b.mfu,
        static_cast<long long>(last.candidates), static_cast<long long>(last.memory_estimates));
  }
}
// {GPUs, allow fewer, prune}: the published 2240, and Calculon's 5128 (8 x 641: some GPUs stay
// idle), with and without the bounds.
BENCHMARK(BM_LayoutSearch530B)
    ->Args({2240, 0, 1})
    ->Args({5128, 1, 1})
    ->Args({5128, 1, 0})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpusizer

BENCHMARK_MAIN();
