#pragma once
// The buffers TensorRT-LLM's C++ runtime allocates besides the weights, the engine's activation
// workspace and the KV pool (trt_runtime.cc).
#include <cstdint>

#include "gpusizer/engine_profile.h"
#include "gpusizer/scenario.h"

namespace gpusizer::memory {

/// The limits trtllm-bench builds a TensorRT engine with for a scenario (tuning.py
/// finetune_setting): its estimate of the requests the KV cache holds, fraction f of the memory
/// `free_after_weights` per GPU over `kv_one_sequence` bytes per request, at most 4,096, over
/// the `pp` pipeline stages; max_batch rounded up as it rounds and at most the release's
/// runtime_max_batch; max_num_tokens that x (1 + ISL / OSL), at most 32,768, rounded up as it
/// rounds (at least 2,048; zero without an output length). Both zero for releases it does not
/// build a TensorRT engine for.
struct TrtBenchBuild {
  int64_t max_batch = 0;
  int64_t max_num_tokens = 0;
};
TrtBenchBuild trt_bench_build(const EngineRelease& release, double f, double free_after_weights,
                              double kv_one_sequence, int64_t pp, int64_t prompt_len,
                              int64_t output_len);

/// What the runtime of a TensorRT-engine release (engines.json trtllm releases[] runtime_*)
/// allocates per GPU for `max_batch` sequence slots before the KV pool is sized: max_batch x
/// (padded vocabulary x bytes per logit + max_seq_len x bytes per token + bytes per slot). The
/// engine is taken as built for the scenario's seq_len. Zero for releases without such figures.
double trt_runtime_bytes(const Scenario& s, const EngineRelease& release, int64_t max_batch);

/// The same for an engine built for `max_batch` slots of `max_seq_len` tokens over a vocabulary
/// of `vocab` entries split over `world` GPUs (TP x PP: the runtime pads it to a multiple).
double trt_runtime_bytes(const EngineRelease& release, int64_t max_batch, int64_t max_seq_len,
                         int64_t vocab, int64_t world);

}  // namespace gpusizer::memory
