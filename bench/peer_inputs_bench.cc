// gpusizer on the inputs of the side-by-side with two peers (docs/performance.md, "Side by side
// with llm-analysis and Calculon"): the same model, GPU and job each peer was given, timed here
// as a numbers-only estimate, a full estimate (every basis string) and a whole JSON answer line
// (parse, estimate, write). The peers are timed with their own Python APIs in a loop; nothing of
// theirs is built or shipped here.
#include <benchmark/benchmark.h>

#include <string>

#include "gpusizer/estimate.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/scenario.h"

namespace {

// llm-analysis's inference() input: Llama-2-7B (its NousResearch_Llama-2-7b-hf config), one
// A100-SXM-80GB, 16-bit weights and activations, batch 8, 2,048 prompt and 256 generated tokens.
constexpr const char* kLlama2Inference =
    R"({"model": "llama-2-7b", "gpu": "a100-sxm4-80gb", "batch": 8, "seq_len": 2304,)"
    R"( "prompt_len": 2048, "output_len": 256, "changes": false})";

// Calculon's shipped example: Megatron-Turing NLG 530B (models/turing-530B.json: hidden 20,480,
// feed-forward 81,920, 105 blocks, 128 heads, 2,048 tokens) on 3,072 A100-80GB in the layout of
// examples/3072_t4_p64_d12_mbs4_full.json: TP 4, PP 64, DP 12, micro-batch 4, global batch 3,072,
// fp16, full recomputation, sharded optimizer (ZeRO-1).
constexpr const char* kMegatron530bLayout =
    R"({"model": {"hf_config": {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2",)"
    R"( "n_embd": 20480, "n_inner": 81920, "n_layer": 105, "n_head": 128, "n_positions": 2048,)"
    R"( "vocab_size": 51200, "activation_function": "gelu_new", "tie_word_embeddings": true}},)"
    R"( "task": "pretrain", "engine": "megatron", "gpu": "a100-sxm4-80gb", "gpu_count": 3072,)"
    R"( "batch": 4, "seq_len": 2048, "parallel": {"tp": 4, "pp": 64, "dp": 12},)"
    R"( "training": {"mixed_precision": "fp16", "gradient_checkpointing": "full",)"
    R"( "global_batch": 3072, "zero_stage": 1}, "changes": false})";

void estimate_of(benchmark::State& state, const char* line, gpusizer::Detail detail) {
  const auto& catalog = gpusizer::Catalog::builtin();
  const gpusizer::Scenario s = gpusizer::parse_scenario(nlohmann::json::parse(line), catalog);
  for (auto _ : state) benchmark::DoNotOptimize(gpusizer::estimate(s, catalog, detail));
}

void answer_line_of(benchmark::State& state, const char* line) {
  std::string text;
  for (auto _ : state) {
    text.clear();
    gpusizer::append_estimate_json(text, nlohmann::json::parse(line));
    benchmark::DoNotOptimize(text.data());
  }
}

void BM_Llama2_7bInferenceFigures(benchmark::State& state) {
  estimate_of(state, kLlama2Inference, gpusizer::Detail::kFigures);
}
BENCHMARK(BM_Llama2_7bInferenceFigures);

void BM_Llama2_7bInferenceFull(benchmark::State& state) {
  estimate_of(state, kLlama2Inference, gpusizer::Detail::kFull);
}
BENCHMARK(BM_Llama2_7bInferenceFull);

void BM_Llama2_7bInferenceJsonLine(benchmark::State& state) {
  answer_line_of(state, kLlama2Inference);
}
BENCHMARK(BM_Llama2_7bInferenceJsonLine);

void BM_Megatron530bLayoutFigures(benchmark::State& state) {
  estimate_of(state, kMegatron530bLayout, gpusizer::Detail::kFigures);
}
BENCHMARK(BM_Megatron530bLayoutFigures);

void BM_Megatron530bLayoutFull(benchmark::State& state) {
  estimate_of(state, kMegatron530bLayout, gpusizer::Detail::kFull);
}
BENCHMARK(BM_Megatron530bLayoutFull);

void BM_Megatron530bLayoutJsonLine(benchmark::State& state) {
  answer_line_of(state, kMegatron530bLayout);
}
BENCHMARK(BM_Megatron530bLayoutJsonLine);

}  // namespace

BENCHMARK_MAIN();
