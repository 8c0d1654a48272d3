// TensorRT-LLM's C++ runtime (releases 0.8-0.21, TensorRT engines, the executor's in-flight
// batching, beam width 1, no draft tokens): what it allocates for every sequence slot of the
// engine's max_batch_size before it sizes the KV pool, and so what the pool's share of the free
// memory no longer sees. trtGptModelInflightBatching.cpp logs the two groups ("[MemUsageChange]
// Allocated ... GPU memory for runtime buffers" after createBuffers, "... for decoder" after
// createDecoder; MemoryCounters::bytesToString divides by 1024 per unit, so "GB" is GiB).
// With B slots, a vocabulary of V entries padded to a multiple of the GPUs
// (ModelConfig::getVocabSizePadded) and an engine max_seq_len (and attention window) of S:
//
// runtime buffers (batch_manager/runtimeBuffers.cpp, transformerBuffers.cpp, decoderBuffers.cpp)
//   logits [B, V] in the engine's logits dtype, fp32 (setMaxBufferSizes: every slot in
//   generation, one logit row each)                                                 4 B x V
//   cache indirection [B, 1, S] int32 of the engine input and the decoder's input and output
//                                                                                  12 B x S
//   the decoder buffers' log-probabilities [B, 1, S] fp32                            4 B x S
// decoder (runtime/gptDecoderBatched.cpp setup; decoderState.cpp reshapeBuffers in later
// releases; layers/topKSamplingLayer with kernels/samplingTopKKernels.h getTopKWorkspaceSizes)
//   output ids and parent ids [B, 1, S] int32, log-probabilities [B, 1, S] and their tiled copy
//   [S, B, 1] fp32                                                                  16 B x S
//   embedding bias [B, V] fp32                                                       4 B x V
//   top-k sampling workspace: an fp32 copy of the log-probabilities [B, V]           4 B x V
//   and 8 blocks x TOP_K_MAX 1,024 candidates of int32 id and fp32 value per slot   65,536 B
//
// The figures are data (engines.json trtllm releases[] runtime_*); this applies them.
#include "memory/trt_runtime.h"

#include <algorithm>
#include <cmath>

namespace gpusizer::memory {

double trt_runtime_bytes(const EngineRelease& release, int64_t max_batch, int64_t max_seq_len,
                         int64_t vocab, int64_t world) {
  if (release.runtime_max_batch <= 0) return 0;
  const int64_t gpus = std::max<int64_t>(1, world);
  const int64_t padded = (std::max<int64_t>(0, vocab) + gpus - 1) / gpus * gpus;
  return static_cast<double>(max_batch) *
         (static_cast<double>(padded) * release.runtime_bytes_per_seq_logit +
          static_cast<double>(max_seq_len) * release.runtime_bytes_per_seq_token +
          release.runtime_bytes_per_seq);
}

// trtllm-bench build with a dataset tunes the engine's max_batch_size and max_num_tokens
// together (bench/build/build.py get_benchmark_engine_settings -> bench/build/tuning.py
// calc_engine_setting and finetune_setting; worked in docs/engines-notes.md): requests = f x
// (memory - weights) / (KV bytes of one request of ISL + OSL tokens), at most 4,096, over the
// pipeline stages ("cap total batch size to avoid decoder buffer size becoming too large");
// the batch rounded up to 32 (at least 64) below 256, to 128 below 1,024, to 256 above; the
// tokens requests x (1 + ISL / OSL), at most 32,768 ("to avoid TRT activation buffer becoming
// too large"), rounded up to 256 below 4,096 and at least 2,048 ("to ensure Ctx/Gen overlap
// efficiency"), to 512 below 8,192, else to 1,024. Its memory is NVML's total over all GPUs and
// its KV counts max(tp, kv_heads) heads; per GPU that is the usable capacity and the per-GPU KV
// of one sequence. Without a dataset it keeps BuildConfig's 2,048 slots (the 0.16 logs), which
// caps the tuned batch here as speed.json's max_num_seqs caps the running batch.
TrtBenchBuild trt_bench_build(const EngineRelease& release, double f, double free_after_weights,
                              double kv_one_sequence, int64_t pp, int64_t prompt_len,
                              int64_t output_len) {
  if (release.runtime_max_batch <= 0) return {};
  // calc_engine_setting's kv_cache_max_requests, capped before any cast: a tiny KV per sequence
  // must not make a double too large for an integer.
  const double requests =
      kv_one_sequence > 0 ? f * std::max(0.0, free_after_weights) / kv_one_sequence : 0.0;
  const double batch = std::min(requests, 4096.0) / static_cast<double>(std::max<int64_t>(1, pp));
  auto up = [](double value, double step) {
    return static_cast<int64_t>(std::ceil(value / step) * step);
  };
  TrtBenchBuild build;
  build.max_batch = batch < 256    ? std::max<int64_t>(64, up(batch, 32))
                    : batch < 1024 ? up(batch, 128)
                                   : up(batch, 256);
  build.max_batch = std::min(build.max_batch, release.runtime_max_batch);
  if (output_len < 1) return build;
  const double ratio =
      static_cast<double>(std::max<int64_t>(0, prompt_len)) / static_cast<double>(output_len);
  const double tokens = std::min(batch * (1.0 + ratio), 32768.0);
  build.max_num_tokens = tokens < 4096   ? std::max<int64_t>(2048, up(tokens, 256))
                         : tokens < 8192 ? up(tokens, 512)
                                         : up(tokens, 1024);
  return build;
}

double trt_runtime_bytes(const Scenario& s, const EngineRelease& release, int64_t max_batch) {
  // An engine built for longer sequences than the scenario's keeps its own max_seq_len.
  return trt_runtime_bytes(release, max_batch, s.engine_max_model_len(), s.model->vocab_size,
                           s.parallel.tp * std::max<int64_t>(1, s.parallel.pp));
}

}  // namespace gpusizer::memory
