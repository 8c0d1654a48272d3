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

// trtllm-bench build with a dataset tunes max_batch_size (bench/build/build.py
// get_benchmark_engine_settings -> bench/build/tuning.py calc_engine_setting; worked in
// docs/engines-notes.md): requests = f x (memory - weights) / (KV bytes of one request of
// ISL + OSL tokens), rounded up to 32 (at least 64) below 256, to 128 below 1,024, to 256 above,
// at most 4,096. Its memory is NVML's total over all GPUs and its KV counts max(tp, kv_heads)
// heads; per GPU that is the usable capacity and the per-GPU KV of one sequence. Without a
// dataset it keeps BuildConfig's 2,048 (the 0.16 logs), which caps the tuned figure here as
// speed.json's max_num_seqs caps the running batch.
namespace {

// trtllm-bench's requests in the KV cache (calc_engine_setting's kv_cache_max_requests), held
// below the 4,096 cap's neighbourhood before any cast: a tiny KV per sequence must not make a
// double too large for an integer.
double bench_requests(double f, double free_after_weights, double kv_one_sequence) {
  return std::min(
      8192.0, kv_one_sequence > 0 ? f * std::max(0.0, free_after_weights) / kv_one_sequence : 0.0);
}

}  // namespace

int64_t trt_engine_max_batch(const EngineRelease& release, double f, double free_after_weights,
                             double kv_one_sequence) {
  const double requests = bench_requests(f, free_after_weights, kv_one_sequence);
  auto up = [requests](double step) {
    return static_cast<int64_t>(std::ceil(requests / step) * step);
  };
  int64_t batch = 0;
  if (requests < 256)
    batch = std::max<int64_t>(64, up(32));
  else if (requests < 1024)
    batch = up(128);
  else
    batch = up(256);
  return std::min<int64_t>({batch, 4096, release.runtime_max_batch});
}

// tuning.py finetune_setting: raw tokens = min(requests, 4,096) / pp x (1 + ISL / OSL), at most
// 32,768 ("to avoid TRT activation buffer becoming too large"); below 4,096 rounded up to 256
// and at least 2,048 ("to ensure Ctx/Gen overlap efficiency"), below 8,192 to 512, else to 1,024.
int64_t trt_engine_max_num_tokens(const EngineRelease& release, double f, double free_after_weights,
                                  double kv_one_sequence, int64_t pp, int64_t prompt_len,
                                  int64_t output_len) {
  if (release.runtime_max_batch <= 0 || output_len < 1) return 0;
  const double batch = std::min(bench_requests(f, free_after_weights, kv_one_sequence), 4096.0) /
                       static_cast<double>(std::max<int64_t>(1, pp));
  const double ratio =
      static_cast<double>(std::max<int64_t>(0, prompt_len)) / static_cast<double>(output_len);
  const double tokens = std::min(batch * (1.0 + ratio), 32768.0);
  auto up = [tokens](double step) { return static_cast<int64_t>(std::ceil(tokens / step) * step); };
  if (tokens < 4096) return std::max<int64_t>(2048, up(256));
  return tokens < 8192 ? up(512) : up(1024);
}

double trt_runtime_bytes(const Scenario& s, const EngineRelease& release, int64_t max_batch) {
  // An engine built for longer sequences than the scenario's keeps its own max_seq_len.
  const int64_t max_seq_len = s.max_model_len > 0 ? s.max_model_len : s.seq_len;
  return trt_runtime_bytes(release, max_batch, max_seq_len, s.model.vocab_size,
                           s.parallel.tp * std::max<int64_t>(1, s.parallel.pp));
}

}  // namespace gpusizer::memory
