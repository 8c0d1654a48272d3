// estimate_speed: serving figures from the roofline passes (inference_speed.cc), training figures
// from the step model (training_speed.cc). docs/speed.md describes the method.
#include "gpusizer/speed.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

#include "core/text_append.h"
#include "core/text_format.h"
#include "scenario/lookups.h"
#include "speed/counted_speed.h"
#include "speed/inference_speed.h"
#include "speed/milliseconds_text.h"
#include "speed/serving_load.h"
#include "speed/training_speed.h"

namespace gpusizer {
namespace {

bool preallocates(const Catalog& catalog, const Scenario& s) {
  return engine_profile(s, catalog).preallocates;
}

void explain_inference(const Scenario& sc, const InferenceSetup& s, const MemoryEstimate& memory,
                       const PassTime& p, double batch, double full, Explanations& est);

// One wave of `batch` sequences run to the end: their prefill, then output_len decode steps of
// the whole batch (a full wave is what max_output_tokens_per_s and an offline job's waves take);
// its time and the least time the hardware allows it (Phase::floor_s).
struct Wave {
  double seconds = 0, floor_seconds = 0;
};
Wave wave(const InferenceSetup& s, double batch, double prompt, double output, double ctx) {
  const Phase pre = prefill_time(s, batch, prompt), dec = decode_step(s, batch, ctx);
  return {pre.seconds + output * dec.seconds, pre.floor_s + output * dec.floor_s};
}

double wave_seconds(const InferenceSetup& s, double batch, double prompt, double output,
                    double ctx) {
  return wave(s, batch, prompt, output, ctx).seconds;
}

// How many times faster than `seconds` the hardware would allow (0 without a floor).
double room_over(double seconds, double floor_seconds) {
  return floor_seconds > 0 ? seconds / floor_seconds : 0;
}

// An offline job of n requests of uniform lengths, all queued at once (a batch-inference run,
// trtllm-bench's or vLLM benchmark_throughput's dataset): each replica takes its share and runs
// it in waves of the full batch. A wave's sequences are admitted together, prefilled, decoded
// output_len steps and finish together (uniform lengths; an engine that reserves each request's
// whole KV at admission, as TensorRT-LLM's GUARANTEED_NO_EVICT scheduler does, admits the next
// wave as one ends), so the job takes (waves - 1) full waves and a last wave of the remainder.
// With many waves the rate tends to max_output_tokens_per_s; with few, the partial last wave
// (and a first wave alone when n is below the full batch) sets it.
void offline_job(const Scenario& sc, const InferenceSetup& s, double full, double t_full,
                 double prompt, double output, double ctx, Explanations* est,
                 PerformanceEstimate& perf) {
  const double n = static_cast<double>(sc.offline_requests);
  const double replicas = static_cast<double>(s.replicas);
  const double per_replica = std::ceil(n / replicas);  // the busiest replica sets the time
  const double waves = std::ceil(per_replica / full);
  const double last = per_replica - (waves - 1.0) * full;
  const double t_last = last == full ? t_full : wave_seconds(s, last, prompt, output, ctx);
  const double seconds = (waves - 1.0) * t_full + t_last;
  perf.offline_time_s = seconds;
  perf.offline_output_tokens_per_s = n * output / seconds;
  if (!est) return;
  est->basis.set_with("offline_time_s", [&](std::string& out) {
    format_text_to(out,
                   FMT_COMPILE("{} requests, {} per replica: {} waves of up to {} sequences (the "
                               "last {}), each its prefill and output_len decode steps"),
                   sc.offline_requests, static_cast<int64_t>(per_replica),
                   static_cast<int64_t>(waves), static_cast<int64_t>(full),
                   static_cast<int64_t>(last));
    out.append("; uniform lengths: a wave's sequences start and finish together");
  });
}

void inference(const Scenario& sc, const Catalog& catalog, const MemoryEstimate& memory,
               const ModelCounts& counts, Explanations* est, const SpeedProfile& profile,
               PerformanceEstimate& perf) {
  std::string why;
  const auto setup = inference_setup(sc, profile, counts, why);
  if (!setup) {
    if (est) est->warnings.emplace_back("speed not estimated: " + why);
    return;
  }
  const InferenceSetup& s = *setup;
  const double batch = static_cast<double>(std::max<int64_t>(1, sc.batch));
  const double prompt = static_cast<double>(std::max<int64_t>(1, sc.prompt_len));
  const double output = static_cast<double>(std::max<int64_t>(1, sc.output_len));
  const double ctx = prompt + output / 2.0;  // mean context over the generation

  const Phase pre = prefill_time(s, batch, prompt);
  const Phase dec = decode_step(s, batch, ctx);
  perf.prefill_tokens_per_s = batch * prompt / pre.seconds;
  perf.ttft_ms = pre.seconds * 1e3;
  perf.tpot_ms = dec.seconds * 1e3;
  perf.decode_tokens_per_s = batch / dec.seconds;
  // The step as a whole: its bytes (weights and cache) against its FLOPs (GEMMs and attention).
  perf.decode_bandwidth_bound =
      dec.pass.memory_s + dec.pass.cache_s >= dec.pass.compute_s + dec.pass.attention_s;
  perf.peak_room.decode = room_over(dec.seconds, dec.floor_s);
  perf.peak_room.prefill = room_over(pre.seconds, pre.floor_s);

  // Serving throughput with the GPUs kept full: every request costs its prefill plus its share
  // of output_len decode steps of the full batch (continuous batching, Yu et al. 2022 "Orca").
  // A setup whose memory holds no sequence (max_batch 0: it does not fit) runs at the batch it
  // asks, as if memory sufficed: what its changes' speed factors are measured against, as a
  // training step keeps its own batch (docs/advisor.md). Clamped to one, it read as one stream
  // whatever batch was asked.
  double full = memory.max_batch.value_or(0) > 0 ? static_cast<double>(*memory.max_batch) : batch;
  // Static batching (TensorRT-LLM's GptSession before in-flight batching was benchmarked): the
  // session is set up for one batch of batch_size sequences of input + output tokens and
  // generate() runs it to the end (benchmarks/cpp/gptSessionBenchmark.cpp, v0.5-0.6:
  // session.setup(batchSize, beamWidth, maxInputLength + maxNewTokens)), so its throughput is
  // at the scenario's batch, whatever larger batch the memory would hold.
  if (s.engine.static_batch) full = batch;
  if (!memory.max_batch && !s.engine.static_batch && preallocates(catalog, sc)) {
    // Without a memory estimate, a preallocating engine's batch is its KV pool over the KV of one
    // sequence: (utilization x capacity x GPUs - weights) / KV(seq_len) (vLLM's block manager
    // sizing, vllm/worker/worker.py determine_num_available_blocks). The memory estimator's
    // max_batch replaces this once it is there.
    const double gpus = static_cast<double>(s.tp * s.pp);
    const double pool =
        sc.gpu_memory_utilization * sc.gpu->capacity_bytes() * gpus - s.costs.total_weight_bytes;
    const double kv = kv_bytes_per_sequence(s.costs, prompt + output);
    if (pool > 0 && kv > 0) full = std::max(full, std::floor(pool / kv));
    if (est)
      est->warnings.emplace_back(
          "max_output_tokens_per_s: no memory.max_batch, batch sized from the KV "
          "pool the engine preallocates");
  }
  full = std::clamp(full, 1.0, std::max(1.0, s.engine.max_num_seqs));
  const Wave full_wave = wave(s, full, prompt, output, ctx);
  const double t_all = full_wave.seconds;
  perf.max_output_tokens_per_s = static_cast<double>(s.replicas) * full * output / t_all;
  perf.peak_room.wave = room_over(t_all, full_wave.floor_seconds);
  if (sc.offline_requests > 0) offline_job(sc, s, full, t_all, prompt, output, ctx, est, perf);

  if (est) explain_inference(sc, s, memory, dec.pass, batch, full, *est);
  // The DP4A path (inference_speed.cc set_int8_dot_kernels) models each format's counted kernel
  // work; a decode its mat-vec instructions bind (the 2-3-bit formats) still measured slower on
  // the held-out P40 rows than those counts allow (docs/validation.md, session 22): say so.
  if (est && s.gemm_peak_flops > 0 && batch <= s.matvec_max_tokens &&
      dec.pass.compute_s > dec.pass.memory_s)
    est->warnings.emplace_back(
        "speed on a GPU without FP16 tensor cores: this format's decode is bound by the "
        "instructions of llama.cpp's DP4A mat-vec kernel, which a Tesla P40 ran 1.6-1.9x slower "
        "than counted for 2-3-bit formats (docs/validation.md)");
  if (sc.traffic)  // the fleet under traffic, its figures banded by the engine's throughput band
    estimate_load(sc, s, memory, catalog.speed_bands().find("throughput", sc.engine), est, perf);
}

// The basis and warnings of the serving figures.
void explain_inference(const Scenario& sc, const InferenceSetup& s, const MemoryEstimate& memory,
                       const PassTime& p, double batch, double full, Explanations& est) {
  const bool bw_bound = p.memory_s >= p.compute_s;  // the GEMMs'
  est.basis.set_with("decode_tokens_per_s", [&](std::string& out) {
    // GGUF weights on GPUs without FP16 tensor cores: the DP4A int8 rate (set_int8_dot_kernels).
    append_text(
        out, "batch / step; step = max(GEMM FLOPs / (peak ",
        s.gemm_peak_flops > 0 ? std::string_view("int8") : std::string_view(s.compute_dtype),
        " x eff(batch)), weight bytes / (bandwidth x bw_eff)) + max(attention FLOPs / "
        "attention rate, KV bytes per sequence / (bandwidth x bw_eff)) + TP all-reduces "
        "+ the sampled logits (gathered over TP, 8 B each in fp32) + engine overhead; "
        "each kind of kernel on its own roofline; this step's GEMMs are ");
    // The times and the literals between them in one append (Milliseconds, issue 18).
    append_text(out, bw_bound ? std::string_view("bandwidth") : std::string_view("compute"),
                "-bound (", Milliseconds{p.gemm_s()}, " + attention ",
                Milliseconds{p.attention_kernel_s() + p.side_s}, " + logits ",
                Milliseconds{p.logits_s}, " + comm ", Milliseconds{p.comm_s}, " + overhead ",
                Milliseconds{p.overhead_s}, ')');
    if (s.attention_groups > 1 && s.costs.moe_layers > 0)
      format_text_to(out,
                     FMT_COMPILE("; comm includes each MoE layer's all-gather and reduce-scatter "
                                 "of the hidden states over the {} attention groups"),
                     s.attention_groups);
    out.append("; data/speed.json engine '").append(sc.engine).append("'");
  });
  est.basis.set(
      "prefill_tokens_per_s",
      "prompt tokens / time; FLOPs = 2 x active params + causal attention 4 x layers x q_width "
      "x prompt/2 per token, at peak x eff(chunk tokens), chunked and pipelined as the engine "
      "does");
  est.basis.set_with("max_output_tokens_per_s", [&](std::string& out) {
    append_text(out, "batch B = ", static_cast<int64_t>(full));
    out.append(s.engine.static_batch              ? " (the static batch the engine is set up with"
               : memory.max_batch.value_or(0) > 0 ? " (memory.max_batch"
                                                  : " (scenario batch");
    out.append(
        ", capped by the engine's max_num_seqs): B x output_len / (prefill of B prompts + "
        "output_len decode steps of B)");
  });
  if (s.pp > 1 && !s.engine.decode_pipelining && sc.batch <= 1)
    est.warnings.push_back(
        sc.engine +
        " layer split runs the GPUs one after another: no decode speed-up for one "
        "stream from more GPUs, only more memory");
  if (bw_bound && batch <= 1)
    est.basis.set("decode_roofline", "single-stream decode cannot exceed bandwidth / weight bytes");
}

// The basis of step_time_s: the exposed parts of the step, as step_breakdown_s lists them.
void explain_step(std::string& out, const TrainingSpeed& r) {
  const StepBreakdown& b = r.breakdown;
  // Each run of times and the literals between them in one append (Milliseconds, issue 18: a
  // string append per piece, twenty a text).
  append_text(out,
              "sum of the exposed parts on the heaviest pipeline stage (step_breakdown_s): "
              "compute ",
              Milliseconds{b.compute}, " (FLOPs at ", r.dtype,
              " dense rate x MAMF x GEMM depth efficiency, LM head on the last stage, non-GEMM "
              "bytes at HBM bandwidth");
  if (r.compiled_elementwise) out.append(", element-wise kernels fused by torch.compile");
  append_text(out, "), recompute ", Milliseconds{b.recompute}, ", TP ", Milliseconds{b.tp_comm},
              ", pipeline bubble ", Milliseconds{b.pp_bubble}, ", DP ", Milliseconds{b.dp_comm},
              ", EP ", Milliseconds{b.ep_comm}, ", optimizer ", Milliseconds{b.optimizer},
              ", offload ", Milliseconds{b.offload});
  if (r.qlora_dequant_s > 0)  // QLoRA's 4-bit weights copied to 16 bits before every GEMM pass
    append_text(out, "; of compute and recompute, QLoRA's 16-bit weight copies ",
                Milliseconds{r.qlora_dequant_s});
  // An FP8 recipe's dtype is its linear layers' (training_speed.cc compute_step_rates).
  if (r.dtype == "fp8") out.append("; FP8 in the layers' GEMMs: attention and LM head at bf16");
  out.append("; docs/speed.md 'Training'");
}

// kStepBreakdown: whether an explained step is split by part (step_breakdown_s).
template <bool kStepBreakdown>
void training(const Scenario& sc, const EngineProfile& engine, const ModelCounts& counts,
              Explanations* why_sink, const SpeedProfile& profile, PerformanceEstimate& perf,
              ModuleSumsMemo* memo) {
  std::string why;
  const auto r = training_speed(sc, engine, profile, counts, why, memo);
  if (!r) {
    if (why_sink) why_sink->warnings.emplace_back("speed not estimated: " + why);
    return;
  }
  perf.step_time_s = r->step_time_s;
  perf.train_tokens_per_s = r->tokens_per_s;
  perf.train_tokens_per_s_per_gpu = r->tokens_per_s_per_gpu;
  perf.tflops_per_gpu = r->tflops_per_gpu;
  perf.mfu = r->mfu;
  perf.time_to_train_s = r->time_to_train_s;
  if (!why_sink) return;  // the split by part explains step_time_s: built with the basis
  if constexpr (kStepBreakdown) perf.step_breakdown_s = r->breakdown.by_cause();
  Explanations& est = *why_sink;
  if (sc.task == Task::kCvTrain) {
    est.basis.set_with("train_tokens_per_s", [&](std::string& out) {
      out.append("cv-train: images/s = rate(").append(r->dtype);
      out.append(
          ") x eff / (3 x forward GFLOPs x (image_size/cv_resolution)^2); 'tokens' are images");
    });
  } else {
    est.basis.set_with("step_time_s", [&](std::string& out) { explain_step(out, *r); });
    // Frozen weights (LoRA, QLoRA, freeze-tuning) take no weight gradients: 4N
    // (training_speed.cc model_flops_per_token).
    const bool frozen = frozen_base(sc.task);
    est.basis.set_with("mfu", [&](std::string& out) {
      out.append(frozen ? "model FLOPs 4N" : "model FLOPs 6N");
      out.append(
          " + 6 x L x q_width x seq per token (PaLM appendix B's attention, causal: each query "
          "over the keys before it, a sliding window's layers over the window) / dense ");
      out.append(r->dtype).append(" peak");
    });
  }
}

}  // namespace

namespace {

template <bool kStepBreakdown = true>
void counted_speed(const Scenario& scenario, const Catalog& catalog, const EngineProfile& engine,
                   const MemoryEstimate& memory, const ModelCounts& counts, Explanations* why,
                   const SpeedProfile& profile, PerformanceEstimate& perf,
                   ModuleSumsMemo* memo = nullptr) {
  if (scenario.task != Task::kInference)
    training<kStepBreakdown>(scenario, engine, counts, why, profile, perf, memo);
  else
    inference(scenario, catalog, memory, counts, why, profile, perf);
}

}  // namespace

PerformanceEstimate estimate_speed(const Scenario& scenario, const Catalog& catalog,
                                   const MemoryEstimate& memory, Explanations* why,
                                   const SpeedProfile& profile) {
  PerformanceEstimate perf;
  if (scenario.gpu)
    counted_speed(scenario, catalog, engine_profile(scenario, catalog), memory,
                  count_model(scenario), why, profile, perf);
  return perf;
}

void estimate_speed(const Scenario& scenario, const Catalog& catalog, const EngineProfile& engine,
                    const MemoryEstimate& memory, const ModelCounts& counts, Explanations* why,
                    PerformanceEstimate& perf, ModuleSumsMemo* memo) {
  counted_speed(scenario, catalog, engine, memory, counts, why, catalog.speed(), perf, memo);
}

void estimate_speed_without_breakdown(const Scenario& scenario, const Catalog& catalog,
                                      const EngineProfile& engine, const MemoryEstimate& memory,
                                      const ModelCounts& counts, Explanations* why,
                                      PerformanceEstimate& perf, ModuleSumsMemo* memo) {
  counted_speed<false>(scenario, catalog, engine, memory, counts, why, catalog.speed(), perf, memo);
}

PerformanceEstimate estimate_speed(const Scenario& scenario, const Catalog& catalog,
                                   const MemoryEstimate& memory, Explanations* why) {
  return estimate_speed(scenario, catalog, memory, why, catalog.speed());
}

PerformanceFigure performance_member(std::string_view name) {
  static constexpr std::pair<std::string_view, PerformanceFigure> kFigures[] = {
      {"decode_tokens_per_s", &PerformanceEstimate::decode_tokens_per_s},
      {"prefill_tokens_per_s", &PerformanceEstimate::prefill_tokens_per_s},
      {"max_output_tokens_per_s", &PerformanceEstimate::max_output_tokens_per_s},
      {"ttft_ms", &PerformanceEstimate::ttft_ms},
      {"tpot_ms", &PerformanceEstimate::tpot_ms},
      {"train_tokens_per_s_per_gpu", &PerformanceEstimate::train_tokens_per_s_per_gpu},
      {"train_tokens_per_s", &PerformanceEstimate::train_tokens_per_s},
      {"tflops_per_gpu", &PerformanceEstimate::tflops_per_gpu},
      {"mfu", &PerformanceEstimate::mfu},
      {"step_time_s", &PerformanceEstimate::step_time_s},
      {"time_to_train_s", &PerformanceEstimate::time_to_train_s},
      {"load_ttft_ms", &PerformanceEstimate::load_ttft_ms},
      {"load_tpot_ms", &PerformanceEstimate::load_tpot_ms},
      {"load_ttft_mean_ms", &PerformanceEstimate::load_ttft_mean_ms},
      {"load_tpot_mean_ms", &PerformanceEstimate::load_tpot_mean_ms},
      {"max_requests_per_s", &PerformanceEstimate::max_requests_per_s},
      {"load_capacity_requests_per_s", &PerformanceEstimate::load_capacity_requests_per_s},
      {"load_output_tokens_per_s", &PerformanceEstimate::load_output_tokens_per_s},
      {"offline_time_s", &PerformanceEstimate::offline_time_s},
      {"offline_output_tokens_per_s", &PerformanceEstimate::offline_output_tokens_per_s},
  };
  for (const auto& [key, member] : kFigures)
    if (key == name) return member;
  return nullptr;
}

const std::optional<double>* performance_figure(const PerformanceEstimate& p,
                                                std::string_view name) {
  const PerformanceFigure member = performance_member(name);
  return member ? &(p.*member) : nullptr;
}

std::optional<double> useful_tokens_per_s(const Scenario& s,
                                          const std::optional<PerformanceEstimate>& performance) {
  if (!performance) return std::nullopt;
  const auto v =
      is_training(s.task) ? performance->train_tokens_per_s : performance->max_output_tokens_per_s;
  if (v && *v > 0) return v;
  return std::nullopt;
}

}  // namespace gpusizer
