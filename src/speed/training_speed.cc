#include "speed/training_speed.h"

#include <algorithm>
#include <cmath>

#include "speed/collectives.h"
#include "speed/model_costs.h"

namespace gpusizer {
namespace {

bool targeted(const TrainingOptions& t, const LinearModule& mod) {
  for (const auto& name : t.lora_targets) {
    if (name == "all-linear") return true;
    if (name == mod.name) return true;
    // "gate_proj" also names the experts' gate_proj (PEFT matches on the last name component).
    const auto dot = mod.name.rfind('.');
    if (dot != std::string::npos && mod.name.substr(dot + 1) == name) return true;
  }
  return t.lora_targets.empty();  // the contract's default is all-linear
}

bool is_lora(Task t) {
  return t == Task::kLora || t == Task::kQlora;
}

}  // namespace

std::string training_dtype(const std::string& mp, const Gpu& gpu, bool cv) {
  if (mp == "fp16") return "fp16";
  if (mp == "fp32") {
    // PyTorch: cuDNN convolutions use TF32 by default, matmuls do not since 1.12
    // (torch.backends.cuda.matmul.allow_tf32 = False; docs "TensorFloat-32 (TF32) on Ampere").
    return cv && gpu.supports("tf32") ? "tf32" : "fp32";
  }
  return "bf16";  // bf16 AMP and pure bf16
}

double lora_params(const Model& m, const TrainingOptions& t, bool active) {
  double n = 0;
  for (const auto& mod : linear_modules(m)) {
    if (!targeted(t, mod) || mod.name == "router") continue;
    double count = static_cast<double>(mod.count);
    if (active && mod.expert && m.num_experts > 0)
      count *= static_cast<double>(m.experts_per_token) / static_cast<double>(m.num_experts);
    // LoRA (Hu et al. 2021, sec. 4.1): W + B A with A in R^{r x in}, B in R^{out x r}.
    n += count * static_cast<double>(t.lora_rank) * static_cast<double>(mod.in + mod.out);
  }
  return n;
}

double training_flops_per_token(const Scenario& s) {
  const ModelCosts c = model_costs(s.model, s.weights, s.kv_cache);
  const double n2 = c.matmul_flops_per_token;                                      // 2N forward
  const double attn = attention_flops_prefill(c, static_cast<double>(s.seq_len));  // causal fwd
  const bool frozen = is_lora(s.task) || s.task == Task::kFreeze;
  // Forward 2N; backward 4N = activation gradients 2N + weight gradients 2N (Kaplan et al. 2020
  // sec. 2.1; Narayanan et al. 2021 "Efficient Large-Scale LM Training", appendix). Frozen
  // weights need no weight gradients: 2N + 2N. Attention has no weights: backward = 2 x forward.
  double flops = n2 + attn + (frozen ? n2 : 2.0 * n2) + 2.0 * attn;
  // Recomputation replays the forward (Chen et al. 2016); selective replays attention only
  // (Korthikanti et al. 2022, sec. 5).
  if (s.training.recompute == Recompute::kFull) flops += n2 + attn;
  if (s.training.recompute == Recompute::kSelective) flops += attn;
  if (is_lora(s.task)) flops += 6.0 * lora_params(s.model, s.training, true);
  return flops;
}

std::optional<TrainingSpeed> training_speed(const Scenario& s, const SpeedProfile& profile,
                                            std::string& why) {
  if (!s.gpu) {
    why = "no gpu given";
    return std::nullopt;
  }
  const Gpu& gpu = *s.gpu;
  const bool cv = s.task == Task::kCvTrain;
  TrainingSpeed r;
  r.dtype = training_dtype(s.training.mixed_precision, gpu, cv);
  const auto peak = gpu.dense_flops(r.dtype);
  if (!peak || *peak <= 0) {
    why = "the GPU catalog lacks a " + r.dtype + " rate for " + gpu.id;
    return std::nullopt;
  }
  const KernelScale vendor = profile.vendor(gpu.vendor);
  const LinkProfile& links = profile.links();
  const TrainingProfile& eng = profile.training(s.engine);
  const int64_t tp = std::max<int64_t>(1, s.parallel.tp), pp = std::max<int64_t>(1, s.parallel.pp);
  const int64_t gpus = std::max<int64_t>(1, s.gpu_count);
  const int64_t dp = std::max<int64_t>(std::max<int64_t>(1, s.parallel.dp), gpus / (tp * pp));
  const double batch = static_cast<double>(std::max<int64_t>(1, s.batch));
  const double global_batch =
      s.training.global_batch > 0
          ? static_cast<double>(s.training.global_batch)
          : batch * static_cast<double>(s.training.grad_accum) * static_cast<double>(dp);
  const double micro_batches = std::max(1.0, global_batch / (static_cast<double>(dp) * batch));
  const Link dp_link = group_link(gpu, gpus, s.gpus_per_node, links);

  if (cv) {
    // Forward GFLOPs scale with the pixel count: (image_size / cv_resolution)^2 (convolutions and
    // ViT patch counts both grow with area); training = forward + backward (2x) = 3x forward.
    const double res = static_cast<double>(std::max<int64_t>(1, s.model.cv_resolution));
    const double img = s.image_size > 0 ? static_cast<double>(s.image_size) : res;
    const double flops_img = 3.0 * s.model.cv_gflops_per_image * 1e9 * (img / res) * (img / res);
    if (flops_img <= 0) {
      why = "the model has no cv_gflops_per_image";
      return std::nullopt;
    }
    const double rate = *peak * profile.cv_eff(r.dtype) * vendor.compute_scale;
    r.compute_s = global_batch / static_cast<double>(gpus) * flops_img / rate;
    const double grad_bytes = static_cast<double>(count_params(s.model).total) *
                              (r.dtype == "fp32" || r.dtype == "tf32" ? 4.0 : 2.0);
    r.dp_comm_s = allreduce_s(grad_bytes, gpus, dp_link);
    r.step_time_s = std::max(r.compute_s + (1.0 - eng.overlap) * r.dp_comm_s, r.dp_comm_s) +
                    profile.cv_step_overhead_s() * micro_batches;
    r.tokens_per_s = global_batch / r.step_time_s;  // images/s
    r.tokens_per_s_per_gpu = r.tokens_per_s / static_cast<double>(gpus);
    r.tflops_per_gpu = r.tokens_per_s_per_gpu * flops_img / 1e12;
    r.mfu = r.tflops_per_gpu * 1e12 / *peak;
    r.model_flops_per_token = r.hardware_flops_per_token = flops_img;
    if (s.dataset_items > 0 && s.epochs > 0)
      r.time_to_train_s =
          static_cast<double>(s.dataset_items) * static_cast<double>(s.epochs) / r.tokens_per_s;
    return r;
  }

  const ModelCosts c = model_costs(s.model, s.weights, s.kv_cache);
  const double seq = static_cast<double>(s.seq_len);
  r.hardware_flops_per_token = training_flops_per_token(s);
  // Model FLOPs for MFU (Chowdhery et al. 2022, PaLM appendix B): 6N + 12 L H Q T per token,
  // attention counted without the causal saving, as llm-foundry and Megatron report it. Frozen
  // weights (LoRA, freeze-tuning) need no weight gradients, so the work the step requires is 4N.
  const bool frozen = is_lora(s.task) || s.task == Task::kFreeze;
  r.model_flops_per_token =
      (frozen ? 2.0 : 3.0) * c.matmul_flops_per_token +
      3.0 * c.attn_width * seq *
          static_cast<double>(c.full_layers + c.window_layers + c.linear_layers);
  const double tokens = global_batch * seq;
  // GEMM efficiency grows with the width each GPU multiplies (hidden / tp).
  const double x = static_cast<double>(c.hidden) / static_cast<double>(tp);
  // Large training GEMMs are capped by the GPU's maximum achievable matmul rate (MAMF, measured
  // per GPU, data/speed.json achievable_matmul), normalised to the table's default so that eff_max
  // stays the fraction a typical GPU keeps.
  const double mamf = profile.matmul_fraction(gpu.id) / profile.matmul_fraction("");
  const double eff = eng.eff_max * x / (x + eng.eff_k_hidden) * vendor.compute_scale * mamf;
  double work = r.hardware_flops_per_token * tokens / static_cast<double>(gpus);
  if (s.task == Task::kQlora) work *= 1.0 + profile.qlora_dequant_cost();  // NF4 -> bf16 per GEMM
  if (is_lora(s.task)) work *= 1.0 + profile.lora_extra_cost();            // unfused adapter GEMMs
  r.compute_s = work / (*peak * eff);
  if (eng.elementwise_bytes_per_hidden > 0 && gpu.memory_bandwidth_gbps) {
    // Non-GEMM kernels (norms, activations, residual adds, casts) are bandwidth-bound: each layer
    // moves about beta x hidden bytes per token forward and backward (Korthikanti et al. 2022,
    // sec. 4.1: 34 h bytes of such activations per token and layer are stored in the forward and
    // read back in the backward). They do not overlap the GEMMs of the same layer.
    const double bytes = eng.elementwise_bytes_per_hidden * static_cast<double>(c.hidden) /
                         static_cast<double>(tp) * static_cast<double>(c.num_layers) /
                         static_cast<double>(pp) * tokens / static_cast<double>(dp);
    r.compute_s += bytes / (*gpu.memory_bandwidth_gbps * 1e9);
  }
  if (pp > 1) {
    // Pipeline bubble (Narayanan et al. 2021, sec. 2.2.1): (p - 1) / (m v) of the ideal time.
    r.bubble =
        static_cast<double>(pp - 1) /
        (micro_batches * static_cast<double>(std::max<int64_t>(1, s.parallel.pp_interleave)));
    r.compute_s *= 1.0 + r.bubble;
  }
  // Data parallel traffic per step, for this GPU's model shard (ZeRO, Rajbhandari et al. 2020,
  // sec. 7: stages 0-2 move 2 x grads, stage 3 adds an all-gather of the parameters in the
  // forward and in the backward of every micro-batch).
  const double shard = static_cast<double>(tp * pp);
  const double grad_bytes_per_value = r.dtype == "fp32" ? 4.0 : 2.0;
  const double trainable = is_lora(s.task) ? lora_params(s.model, s.training, false)
                                           : static_cast<double>(count_params(s.model).total);
  const double grads = trainable / shard * grad_bytes_per_value;
  if (dp > 1) {
    if (s.training.zero_stage >= 3) {
      const double params = static_cast<double>(count_params(s.model).total) / shard *
                            (frozen ? s.weights.bytes_per_value() : grad_bytes_per_value);
      r.dp_comm_s = micro_batches *
                    (2.0 * allgather_s(params, dp, dp_link) + allgather_s(grads, dp, dp_link));
    } else {
      r.dp_comm_s = allreduce_s(grads, dp, dp_link);
    }
  }
  if (tp > 1) {
    // Megatron TP: 2 all-reduces forward and 2 backward per layer (Shoeybi et al. 2019, sec. 3),
    // 2 more with full recomputation; sequence parallelism swaps each for a reduce-scatter plus
    // an all-gather of the same volume (Korthikanti et al. 2022, sec. 4.2.2).
    const Link tp_link = group_link(gpu, tp, s.gpus_per_node, links);
    const double per_layer = s.training.recompute == Recompute::kFull ? 6.0 : 4.0;
    const double bytes = batch * seq * static_cast<double>(c.hidden) * links.activation_bytes;
    r.tp_comm_s = micro_batches * per_layer * static_cast<double>(c.num_layers) /
                  static_cast<double>(pp) * allreduce_s(bytes, tp, tp_link);
  }
  r.step_time_s = std::max(r.compute_s + (1.0 - eng.overlap) * r.dp_comm_s, r.dp_comm_s) +
                  r.tp_comm_s + eng.step_overhead_s * micro_batches;
  r.tokens_per_s = tokens / r.step_time_s;
  r.tokens_per_s_per_gpu = r.tokens_per_s / static_cast<double>(gpus);
  r.tflops_per_gpu = r.model_flops_per_token * r.tokens_per_s_per_gpu / 1e12;
  r.mfu = r.tflops_per_gpu * 1e12 / *peak;
  if (s.training.tokens > 0) r.time_to_train_s = s.training.tokens / r.tokens_per_s;
  return r;
}

}  // namespace gpusizer
