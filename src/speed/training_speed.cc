#include "speed/training_speed.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string_view>
#include <type_traits>

#include "core/fp8_recipe.h"
#include "scenario/lookups.h"
#include "speed/collectives.h"
#include "speed/gemm_shape.h"
#include "speed/model_costs.h"

namespace gpusizer {
namespace {

bool is_lora(Task t) {
  return t == Task::kLora || t == Task::kQlora;
}

}  // namespace

bool frozen_base(Task t) {
  return is_lora(t) || t == Task::kFreeze;
}

std::string_view training_dtype(MixedPrecision mp, const Gpu& gpu, bool cv) {
  if (mp == MixedPrecision::kFp16) return "fp16";
  if (mp == MixedPrecision::kFp32) {
    // PyTorch: cuDNN convolutions use TF32 by default, matmuls do not since 1.12
    // (torch.backends.cuda.matmul.allow_tf32 = False; docs "TensorFloat-32 (TF32) on Ampere").
    return cv && gpu.supports("tf32") ? "tf32" : "fp32";
  }
  if (is_fp8(mp)) return "fp8";  // the linear layers' GEMMs (compute_step_rates)
  return "bf16";                 // bf16 AMP and pure bf16
}

double mfu_ceiling(const Scenario& s, const SpeedProfile& profile) {
  // No step beats its GEMMs at their best measured rate, and MFU counts no FLOPs the GEMMs and
  // attention do not run (model FLOPs <= hardware FLOPs): MFU <= MAMF.
  const MixedPrecision mp = s.training.mixed_precision;
  if (mp == MixedPrecision::kFp32) return 1.0;
  const ScenarioLookups* l = speed_lookups(s, profile);
  const std::string_view gpu = s.gpu->id;
  if (is_fp8(mp)) return l ? l->fp8_matmul_fraction : profile.fp8_matmul_fraction(gpu);
  return l ? l->matmul_fraction : profile.matmul_fraction(gpu);
}

double lora_params(const Model& m, const TrainingOptions& t, bool active) {
  const LinearModules mods = linear_modules(m);
  const AdapterParams n = adapter_params(m, mods, lora_module_mask(t, mods), t.lora_rank);
  return active ? n.active : n.all;
}

namespace {

// The selective recompute_modules a step replays (0 unless it names them).
uint8_t replayed_modules(const TrainingOptions& t) {
  return t.recompute == Recompute::kSelective ? t.recompute_modules : 0;
}

// Whether the step replays the attention core: full recomputation, and selective with its default
// or core_attn among the modules (Megatron-Core transformer_config.py recompute_modules).
bool replays_attention(const TrainingOptions& t) {
  if (t.recompute == Recompute::kFull) return true;
  return t.recompute == Recompute::kSelective &&
         (t.recompute_modules == 0 || (t.recompute_modules & kRecomputeCoreAttn));
}

// Forward GEMM FLOPs per token of the selective recompute_modules that hold GEMMs, replayed in
// the backward (Megatron-Core: mla_up_proj re-runs q_b/kv_b from the latents, mlp and moe
// checkpoint the whole block, shared_experts the shared experts; routed experts at k / E, the
// router with moe). moe_act and layernorm replay element-wise kernels only (not counted).
// Out of line and cold: few scenarios name modules (issue 18).
[[gnu::noinline, gnu::cold]] double module_replay_flops(const Scenario& s) {
  const uint8_t mods = replayed_modules(s.training);
  if ((mods & (kRecomputeMlaUpProj | kRecomputeMlp | kRecomputeMoe | kRecomputeSharedExperts)) == 0)
    return 0;
  const Model& m = *s.model;
  double flops = 0;
  for (const LinearModule& mod : linear_modules(m)) {
    const bool shared = mod.name.starts_with("shared_experts.");
    const bool moe = mod.expert || shared || mod.role == MatrixRole::kRouter;
    const bool replayed =
        ((mods & kRecomputeMlaUpProj) && (mod.name == "q_b_proj" || mod.name == "kv_b_proj")) ||
        ((mods & kRecomputeMlp) && !mod.attention && !moe) || ((mods & kRecomputeMoe) && moe) ||
        ((mods & kRecomputeSharedExperts) && shared && !(mods & kRecomputeMoe));
    if (replayed)
      flops += 2.0 * static_cast<double>(mod.in) * static_cast<double>(mod.out) *
               static_cast<double>(mod.count) * active_share(mod, m);
  }
  return flops;
}

// `lora_active`: the adapters' parameters a token touches (LoraParams::active; 0 without LoRA).
ForwardFlops forward_flops(const Scenario& s, const ModelCosts& c, double lora_active) {
  ForwardFlops f;
  const double vocab = static_cast<double>(s.model->vocab_size);
  const double hidden = static_cast<double>(c.hidden);
  f.head = 2.0 * vocab * hidden;
  // ParamCounts::active_compute holds the untied head and leaves a tied one out (it is counted
  // as the embedding), so only an untied head is taken back out of the layer GEMMs.
  const double head_in_costs = s.model->tied_embeddings ? 0.0 : f.head;
  f.layers = std::max(0.0, c.matmul_flops_per_token - head_in_costs);
  const double seq = static_cast<double>(s.seq_len);
  // QK^T and PV per context token: ModelCosts::attn_width FLOPs (4 x d per layer for multi-head
  // attention, 2 FLOPs per multiply-add), the 12 L H Q T of PaLM's appendix B over forward +
  // backward.
  if (s.training.flash_attention) {
    // FlashAttention-2 skips the masked blocks (Dao 2023, sec. 3.1.1): causal mean s/2.
    f.attn = attention_flops_prefill(c, seq);
  } else {
    // Eager attention multiplies the whole s x s score matrix and masks it afterwards
    // (Megatron's fused scale-mask-softmax, HF eager attention): no causal saving.
    f.attn = c.attn_width * seq * static_cast<double>(c.full_layers + c.window_layers);
  }
  if (is_lora(s.task)) f.lora = 2.0 * lora_active;
  if (replayed_modules(s.training) != 0) f.modules = module_replay_flops(s);
  return f;
}

// Forward + backward FLOPs per token of the layers (with attention and adapters) and of the head.
// Backward = 2 x forward: activation gradients + weight gradients (Narayanan et al. 2021,
// appendix: 3 x the forward for a training step); frozen weights skip the weight gradients, so
// their backward is 1 x forward. Attention has no weights: backward = 2 x forward. Adapters train.
double train_layer_flops(const ForwardFlops& f, bool frozen) {
  return f.layers * (frozen ? 2.0 : 3.0) + 3.0 * f.attn + 3.0 * f.lora;
}
double train_head_flops(const ForwardFlops& f, bool frozen) {
  return f.head * (frozen ? 2.0 : 3.0);
}
// Replayed forward per token: full recomputation replays every layer's forward (Chen et al. 2016;
// Megatron checkpoints the transformer layers, not the head); selective replays the attention
// core only (Korthikanti et al. 2022, sec. 5).
// Megatron-Core's selective recompute_modules replay their GEMMs (ForwardFlops::modules) and, with
// core_attn or by default, the attention core.
double recompute_flops(const ForwardFlops& f, const TrainingOptions& t) {
  if (t.recompute == Recompute::kFull) return f.layers + f.attn + f.lora;
  if (t.recompute == Recompute::kSelective)
    return (replays_attention(t) ? f.attn : 0.0) + f.modules;
  return 0;
}

// Exposed part of `comm` seconds that can run behind `window` seconds of compute: NCCL
// collectives launched as buckets fill overlap the compute still to come, but the last bucket
// always trails it (Li et al. 2020, "PyTorch Distributed", VLDB, sec. 3.2.3), so at least
// (1 - overlap) of it shows, and all that exceeds the window.
double exposed(double comm, double window, double overlap) {
  if (comm <= 0) return 0;
  return std::max((1.0 - overlap) * comm, comm - window);
}

// Whether column-parallel matrix i reads the input of the matrix listed before it: q/k/v, and
// gate/up, of the same layers (linear_modules lists them in a row). Megatron-Core runs each group
// as one GEMM (linear_qkv, linear_fc1), whose input Transformer Engine casts to FP8 once; an
// engine keeping them apart casts it per matrix, a few percent of the casts' bytes more.
bool shares_input(const LinearModules& mods, size_t i) {
  if (i == 0) return false;
  const LinearModule &a = mods[i - 1], &b = mods[i];
  return a.role == MatrixRole::kColumn && b.role == MatrixRole::kColumn && a.in == b.in &&
         a.count == b.count && a.expert == b.expert && a.attention == b.attention;
}

// - Adapters (their parameters are counted once, in ModelCounts::adapters): the bytes they move
//   per token beyond the base GEMM, forward and backward: `in` per input and `out` per output
//   feature of each targeted matrix, routed experts at k / E. PEFT's unfused path
//   (peft/tuners/lora/layer.py Linear.forward): lora_dropout reads and writes x, lora_A reads it
//   again (6 bytes per input feature forward); lora_B writes its output, the scaling reads and
//   writes it, the add reads both terms and writes the sum (12 bytes per output feature
//   forward); the backward moves each gradient and re-reads the saved inputs, about twice the
//   forward: 18 and 36 (data/speed.json training defaults; other engines there).
// - The GEMMs' depth efficiency on one tensor-parallel rank: column-parallel matrices (q/k/v,
//   gate/up, the head) reduce over the full input, row-parallel ones (o_proj, down_proj) over
//   in / tp (Shoeybi et al. 2019, sec. 3). Time = sum FLOPs_i / eff_i: layer_gemm_eff takes the
//   harmonic, FLOP-weighted mean.
// `k_half`: the depth efficiency's constant in the dtype's reduction depth (StepRates::k_half).
ModuleSums module_sums(const Scenario& s, const ModelCounts& counts, double tp,
                       const TrainingProfile& eng, double k_half) {
  const Model& m = *s.model;
  const double in = eng.lora_bytes_per_in_feature, out = eng.lora_bytes_per_out_feature;
  ModuleSums r;
  for (size_t i = 0; i < counts.modules.size(); ++i) {
    const LinearModule& mod = counts.modules[i];
    const double share = active_share(mod, m);
    if (counts.lora_modules & (1u << i))
      r.lora_bytes += static_cast<double>(mod.count) * share *
                      (in * static_cast<double>(mod.in) + out * static_cast<double>(mod.out));
    if (mod.role == MatrixRole::kRouter) continue;  // not a GEMM of the layers' time
    const double n = static_cast<double>(mod.in) * static_cast<double>(mod.out) *
                     static_cast<double>(mod.count) * share;
    const double depth = mod.role == MatrixRole::kRow ? static_cast<double>(mod.in) / tp
                                                      : static_cast<double>(mod.in);
    r.gemm_flops += n;
    r.gemm_time += n / gemm_size_eff(depth, k_half);
  }
  // A fused q/k/v Linear (Qwen v1's c_attn) carries one adapter, as the memory counts it
  // (ModelCounts::lora_missing_inputs): two A matrices fewer per layer, and their input traffic.
  const double missing = counts.lora_missing_inputs;
  r.lora_bytes -= in * missing;
  return r;
}

// module_sums, taken from `memo` when a slot holds the same model, counts, width and engine
// figures (the fields module_sums reads), else computed into the next slot. Forced inline into
// step_shape's two copies (below), as GCC inlined it into its one.
[[gnu::always_inline]] inline ModuleSums module_sums(const Scenario& s, const ModelCounts& counts,
                                                     double tp, const TrainingProfile& eng,
                                                     double k_half, ModuleSumsMemo* memo) {
  if (!memo) return module_sums(s, counts, tp, eng, k_half);
  for (const ModuleSumsMemo::Slot& slot : memo->slots)
    if (slot.model == s.model.get() && slot.counts == &counts && slot.tp == tp &&
        slot.lora_in == eng.lora_bytes_per_in_feature &&
        slot.lora_out == eng.lora_bytes_per_out_feature && slot.k_half == k_half)
      return slot.sums;
  ModuleSumsMemo::Slot& slot = memo->slots[memo->next];
  memo->next = (memo->next + 1) % memo->slots.size();
  slot = {s.model.get(),
          &counts,
          tp,
          eng.lora_bytes_per_in_feature,
          eng.lora_bytes_per_out_feature,
          k_half,
          module_sums(s, counts, tp, eng, k_half)};
  return slot.sums;
}

// The layers' GEMM efficiency from module_sums; counts given as facts have no shapes: the hidden
// size's.
double layer_gemm_eff(const ModuleSums& sums, const Model& m, double k_half) {
  if (sums.gemm_flops <= 0 || sums.gemm_time <= 0)
    return gemm_size_eff(static_cast<double>(m.hidden_size), k_half);
  return sums.gemm_flops / sums.gemm_time;
}

}  // namespace

StepSeconds StepBreakdown::by_cause() const {
  StepSeconds out;  // set in name order: each goes at the end
  out.set("compute", compute);
  out.set("dp_comm", dp_comm);
  out.set("ep_comm", ep_comm);
  out.set("offload", offload);
  out.set("optimizer", optimizer);
  out.set("pp_bubble", pp_bubble);
  out.set("recompute", recompute);
  out.set("tp_comm", tp_comm);
  return out;
}

double training_flops_per_token(const Scenario& s) {
  return training_flops_per_token(s, model_costs(*s.model, *s.weights, *s.kv_cache));
}

double training_flops_per_token(const Scenario& s, const ModelCosts& c) {
  const ForwardFlops f =
      forward_flops(s, c, is_lora(s.task) ? lora_params(*s.model, s.training, true) : 0.0);
  const bool frozen = frozen_base(s.task);
  return train_layer_flops(f, frozen) + train_head_flops(f, frozen) +
         recompute_flops(f, s.training);
}

double optimizer_bytes_per_param(const TrainingOptions& t) {
  // Per parameter, the step reads the gradient, reads and writes the master weight and each
  // state, and (mixed precision) writes the 16-bit working copy: torch/optim/adamw.py
  // (_multi_tensor_adamw) and apex FusedAdam read param, grad, exp_avg, exp_avg_sq and write
  // param, exp_avg, exp_avg_sq; AdamW with fp32 master: 4 + 2 x 4 + 2 x 2 x 4 + 2 = 30 bytes.
  const Optimizer o = t.optimizer;
  double states = 2;  // Adam family: exp_avg, exp_avg_sq
  if (o == Optimizer::kSgd)
    states = 0;
  else if (o == Optimizer::kSgdMomentum || o == Optimizer::kLion)
    states = 1;
  else if (o == Optimizer::kAdafactor)
    states = 0;  // factored second moment: rows + columns, negligible per parameter
  const bool eight_bit = is_8bit(o);  // bitsandbytes: 1 byte a state
  const bool pure16 = t.mixed_precision == MixedPrecision::kPureBf16;
  const bool fp32 = t.mixed_precision == MixedPrecision::kFp32;
  const double state_bytes = eight_bit ? 1.0 : pure16 ? 2.0 : 4.0;
  const double master = pure16 ? 2.0 : 4.0;
  const double grad = pure16 ? 2.0 : 4.0;  // AMP keeps fp32 grads of fp32 master weights
  const double copy = pure16 || fp32 ? 0.0 : 2.0;
  // Gradient-norm clipping first reads every gradient for the norm and then scales it in place
  // (torch.nn.utils.clip_grad_norm_; on by default: HF TrainingArguments max_grad_norm 1.0,
  // Megatron --clip-grad 1.0, llm-foundry grad_clipping): 3 more passes over the gradients.
  const double clip = 3.0 * grad;
  // FP8 recipes cast the updated weights to their FP8 copies once a step (Transformer Engine at
  // the next step's first micro-batch): the 16-bit copy read, a row- and a column-wise copy
  // written, with MXFP8's E8M0 scale per 32 values (OCP MX spec v1.0). An engine that casts at
  // each pass instead (engines.json fp8_weights per-pass) pays more; that is left out.
  const double recast =
      is_fp8(t.mixed_precision) ? 2.0 + 2.0 * fp8_value_bytes(t.mixed_precision) : 0.0;
  return grad + 2.0 * master + 2.0 * states * state_bytes + copy + clip + recast;
}

namespace {

// Images per second of a CV training step: forward GFLOPs scale with the pixel count
// (image_size / cv_resolution)^2 (convolutions and ViT patch counts both grow with area);
// training = forward + backward (2x) = 3x forward.
std::optional<TrainingSpeed> cv_training_speed(const Scenario& s, const SpeedProfile& profile,
                                               double peak, TrainingSpeed r, std::string& why) {
  const Gpu& gpu = *s.gpu;
  const int64_t gpus = std::max<int64_t>(1, s.gpu_count);
  const double res = static_cast<double>(std::max<int64_t>(1, s.model->cv_resolution));
  const double img = s.image_size > 0 ? static_cast<double>(s.image_size) : res;
  const double flops_img = 3.0 * s.model->cv_gflops_per_image * 1e9 * (img / res) * (img / res);
  if (flops_img <= 0) {
    why = "the model has no cv_gflops_per_image";
    return std::nullopt;
  }
  // The batch splits over the data-parallel ranks, as for language models (step_shape).
  const int64_t tp = std::max<int64_t>(1, s.parallel.tp), pp = std::max<int64_t>(1, s.parallel.pp);
  const int64_t dp = std::max<int64_t>(std::max<int64_t>(1, s.parallel.dp), gpus / (tp * pp));
  const double batch_ranks = std::max(
      1.0, static_cast<double>(dp) / static_cast<double>(std::max<int64_t>(1, s.parallel.cp)));
  const double batch = static_cast<double>(std::max<int64_t>(1, s.batch));
  const double global_batch =
      s.training.global_batch > 0
          ? static_cast<double>(s.training.global_batch)
          : batch * static_cast<double>(s.training.grad_accum) * batch_ranks;
  const double micro_batches = std::max(1.0, global_batch / (batch_ranks * batch));
  const double rate = peak * profile.cv_eff(r.dtype) * profile.vendor(gpu.vendor).compute_scale;
  r.compute_s = global_batch / static_cast<double>(gpus) * flops_img / rate;
  const double grad_bytes = static_cast<double>(count_params(*s.model).total) *
                            (r.dtype == "fp32" || r.dtype == "tf32" ? 4.0 : 2.0);
  const Link dp_link = group_link(gpu, gpus, s.gpus_per_node, profile.links());
  r.dp_comm_s = allreduce_s(grad_bytes, gpus, dp_link);
  r.breakdown.compute = r.compute_s + profile.cv_step_overhead_s() * micro_batches;
  r.breakdown.dp_comm = exposed(r.dp_comm_s, r.compute_s, profile.training(s.engine).overlap);
  r.step_time_s = r.breakdown.total();
  r.tokens_per_s = global_batch / r.step_time_s;  // images/s
  r.tokens_per_s_per_gpu = r.tokens_per_s / static_cast<double>(gpus);
  r.tflops_per_gpu = r.tokens_per_s_per_gpu * flops_img / 1e12;
  r.mfu = r.tflops_per_gpu * 1e12 / peak;
  r.model_flops_per_token = r.hardware_flops_per_token = flops_img;
  if (s.dataset_items > 0 && s.epochs > 0)
    r.time_to_train_s =
        static_cast<double>(s.dataset_items) * static_cast<double>(s.epochs) / r.tokens_per_s;
  return r;
}

// Room for the model's FLOP costs of an estimate without a memo, made only then: a union's
// member, not value-initialized first (ModelCosts' 22 fields are written whole by flop_costs).
union OwnCosts {
  OwnCosts() {}  // NOLINT(modernize-use-equals-default): `= default` would zero it
  ModelCosts costs;
};
static_assert(std::is_trivially_destructible_v<ModelCosts>);  // the member is never destroyed

// model_flop_costs of the model and its counts, read in place from `memo` when it holds the same
// two (by address, as the module sums are), else computed and kept there; without a memo,
// made in `own` (issue 18: the step's shape held a copy of them, ~40 instructions a kept
// change).
const ModelCosts& flop_costs(const Model& model, const ModelCounts& counts, ModuleSumsMemo* memo,
                             OwnCosts& own) {
  if (!memo)
    return *std::construct_at(&own.costs, model_flop_costs(model, counts.params, counts.modules));
  if (memo->costs_model != &model || memo->costs_counts != &counts) {
    memo->costs = model_flop_costs(model, counts.params, counts.modules);
    memo->costs_model = &model;
    memo->costs_counts = &counts;
    memo->matrix_params = -1;
    memo->flops_seq_len = -1;
  }
  return memo->costs;
}

// The layout and the sizes every part of a language-model step reads: one micro-batch of b
// sequences on one GPU of a tp x pp x cp x ep x dp layout with m micro-batches per step.
struct StepShape {
  StepShape(const Scenario& scenario, const EngineProfile& engine_profile,
            const SpeedProfile& profile, const TrainingProfile& training,
            const ModelCounts& model_counts, const ModelCosts& costs)
      : s(scenario),
        engine(engine_profile),
        gpu(*scenario.gpu),
        eng(training),
        links(profile.links()),
        counts(model_counts),
        c(costs),
        params(static_cast<double>(counts.params.total)) {}
  const Scenario& s;
  const EngineProfile& engine;
  const Gpu& gpu;
  const TrainingProfile& eng;
  const LinkProfile& links;
  /// The model's counts, counted once by the caller (training_speed's argument).
  const ModelCounts& counts;
  const LinearModules& modules() const { return counts.modules; }
  /// The model's FLOP costs (flop_costs: the memo's, or the caller's own).
  const ModelCosts& c;
  double params = 0;  ///< all parameters (count_params)
  // The fields below up to `gemm_scale` have no initializer: step_shape sets each of them on
  // every path before anything reads it (issue 18: ~25 stores of each kept change, made twice).
  double trainable;             ///< parameters that train: LoRA adapters, else all
  double optimizer_bytes;       ///< optimizer_bytes_per_param of the scenario's options
  double lora_bytes_per_token;  ///< bytes the adapters move per token (module_sums)
  ForwardFlops f;
  bool frozen;
  int64_t tp, pp, cp, dp, ep, gpus;
  double t, p, v, m;
  double global_batch, mb_tokens, seq, hidden, layers, vocab, hbm;
  double rate, head_rate;  ///< GEMM FLOP/s of the layers and the head
  double gemm_scale = 1;   ///< the adapters' unfused GEMMs (LoRA)
  /// QLoRA: seconds to dequantize this stage's 4-bit weights once (qlora_dequant_s).
  double dequant_s = 0;
  /// FP8 training: bytes the casts of one token move on this GPU's stage, in the forward (the
  /// GEMMs' inputs) and in the backward (the gradients of their outputs); add_fp8_casts.
  double cast_forward_bytes = 0, cast_backward_bytes = 0;
  /// The attention core timed apart from the GEMMs (FlashAttention at its own measured rates,
  /// profile figures for the architecture; or eager 16-bit attention beside FP8 GEMMs): seconds
  /// per attention forward FLOP for the forward and the backward together, and for a replayed
  /// forward. Otherwise attention runs with the GEMMs (3 x the forward at `rate`).
  bool flash_rates = false;
  double attn_s_per_flop = 0, attn_replay_s_per_flop = 0;
};

// FlashAttention's achieved rates in training (data/speed.json attention_kernels for the
// forward, training.attention_backward for the backward; fa2 for the training engines). Its
// backward recomputes the scores S = QK^T and P from the saved softmax statistics instead of
// storing them (Dao et al. 2022 sec. 3.1, "Recomputation"): five GEMMs against the forward's
// two, 2.5 x the forward FLOPs, the count at which the FlashAttention-2/3 papers quote their
// backward TFLOPs/s (Dao 2023 sec. 4.1; Shah et al. 2024 sec. 4.1). Into `r` with its peak set.
void set_flash_rates(const Scenario& s, const SpeedProfile& profile, const ScenarioLookups* l,
                     StepRates& r) {
  const Gpu& gpu = *s.gpu;
  const std::string_view arch = gpu.architecture_family();
  const double bwd = l ? l->training_attention_backward : profile.training_attention_backward(arch);
  if (!s.training.flash_attention || bwd <= 0) return;
  const double scale = r.peak16 * (l ? l->vendor : profile.vendor(gpu.vendor)).compute_scale;
  const double fwd_rate =
      scale * (l ? l->attention_efficiency : profile.attention_efficiency(s.engine, arch));
  const double bwd_rate = scale * bwd;
  r.flash_rates = true;
  r.attn_s_per_flop = 1.0 / fwd_rate + 2.5 / bwd_rate;
  r.attn_replay_s_per_flop = 1.0 / fwd_rate;
}

// The step's rates of `s` with its lookups `l`, into `r` with its training entry (its key left as
// it is). The dtype's peak is 0 where the GPU row lacks it (the caller says so).
void compute_step_rates(const Scenario& s, const SpeedProfile& profile, const ScenarioLookups* l,
                        StepRates& r) {
  const Gpu& gpu = *s.gpu;
  r.training = l ? l->training : &profile.training(s.engine);
  const TrainingProfile& eng = *r.training;
  const MixedPrecision mp = s.training.mixed_precision;
  r.dtype = training_dtype(mp, gpu, false);
  r.flash_rates = false;
  const auto peak = gpu.dense_flops(r.dtype);
  r.peak = peak ? *peak : 0.0;  // the caller refuses a peak <= 0, as none
  // The FP8 recipes need the GPU's FP8 tensor cores (block-scaled ones for MXFP8): dense_flops
  // would give a GPU without them its 16-bit rate.
  if (is_fp8(mp) && !gpu.supports(mp == MixedPrecision::kMxfp8 ? "mxfp8" : "fp8")) r.peak = 0;
  if (r.peak <= 0) return;
  // GEMM rate: the dense tensor rate x the GPU's maximum achievable matmul fraction (MAMF,
  // measured by shape search, data/speed.json achievable_matmul) x the engine's share of it
  // (eff_max <= 1: kernel choice, fusion); step_shape applies the depth efficiency of its GEMMs,
  // which saturates with size. The FP8 GEMMs are taken at the fraction measured for FP8 GEMMs
  // on the GPU (achievable_matmul.fp8_gpus; the 16-bit one where none was measured).
  const double fraction = l ? l->matmul_fraction : profile.matmul_fraction(gpu.id);
  const double scale = (l ? l->vendor : profile.vendor(gpu.vendor)).compute_scale;
  const double gemm_fraction =
      !is_fp8(mp) ? fraction : (l ? l->fp8_matmul_fraction : profile.fp8_matmul_fraction(gpu.id));
  r.base = r.peak * gemm_fraction * eng.eff_max * scale;
  r.peak16 = r.peak;
  r.base16 = r.base;
  r.k_half = eng.eff_k_hidden;
  if (is_fp8(mp)) {
    // Only the linear layers take FP8 operands; attention and the output head stay 16-bit
    // (Transformer Engine's DotProductAttention runs bf16 unless fp8_dpa is asked for;
    // Megatron-Core's output_layer is a tensor_parallel.ColumnParallelLinear, not a TE module;
    // torchtitan's float8 converter filters out "output").
    const auto bf16 = gpu.dense_flops("bf16");
    r.peak16 = bf16 ? *bf16 : 0.0;
    // An FP8 MMA reduces twice as deep as a 16-bit one in the same cycles (PTX ISA, wgmma
    // .m64nNk32 for e4m3/e5m2 against .m64nNk16 for bf16), so a tile's fixed prologue and
    // epilogue cost twice as many reduction steps: the depth efficiency saturates at twice K.
    r.k_half = 2.0 * eng.eff_k_hidden;
    r.base16 = r.peak16 * fraction * eng.eff_max * scale;
  }
  set_flash_rates(s, profile, l, r);
}

// compute_step_rates for a search's candidate under `engine`: `held`'s when it holds them for
// the same GPU, engine, profile, precision and FlashAttention flag (issue 18), else computed
// into it. The engine's profile is the key, not its training entry's address: a candidate whose
// lookups do not hold (QLoRA's weight format) finds the profile's entry by name, the lookups' the
// index's copy of it, the same figures (issue 18: a full fine-tune's search missed twice, going
// to the QLoRA candidate and back, ~440 instructions each, and looked the entry up by name).
// Forced inline into both callers, as it was with its one (issue 18: ~13 instructions a call).
[[gnu::always_inline]] inline const StepRates& held_step_rates(const Scenario& s,
                                                               const EngineProfile& engine,
                                                               const SpeedProfile& profile,
                                                               ModuleSumsMemo& memo) {
  StepRates& held = memo.rates;
  const Gpu* gpu = s.gpu.get();
  const TrainingOptions& t = s.training;
  if (held.gpu == gpu && held.engine == &engine && held.profile == &profile &&
      held.mixed_precision == t.mixed_precision && held.flash_attention == t.flash_attention)
    return held;
  held.engine = &engine;
  held.profile = &profile;
  held.mixed_precision = t.mixed_precision;
  held.flash_attention = t.flash_attention;
  // The profile's entries resolved with the scenario, looked for only here: the rates are all
  // the step reads of them (issue 18: their key's test, a string compare among it, for each of
  // a search's kept changes).
  compute_step_rates(s, profile, speed_lookups(s, profile), held);
  ++memo.rates_made;  // the micro-batches kept with the rates before are not these rates'
  // Not held without a peak: asked again, it fails again with its message.
  held.gpu = held.peak > 0 ? gpu : nullptr;
  return held;
}

// FlashAttention at its own rates, else the attention core runs with the GEMMs: 3 x its forward
// (forward and backward) at the layers' rate, 1 x replayed. Under an FP8 recipe the eager
// attention's matmuls stay 16-bit: timed apart, at the layers' rate scaled to the 16-bit peak.
void set_attention_rates(StepShape& h, const StepRates& rates) {
  if (!rates.flash_rates) {
    const double rate = rates.base16 == rates.base ? h.rate : h.rate * rates.base16 / rates.base;
    h.attn_s_per_flop = 3.0 / rate;
    h.attn_replay_s_per_flop = 1.0 / rate;
    h.flash_rates = rates.base16 != rates.base;  // apart from the GEMMs
    return;
  }
  h.flash_rates = true;
  h.attn_s_per_flop = rates.attn_s_per_flop;
  h.attn_replay_s_per_flop = rates.attn_replay_s_per_flop;
}

// QLoRA: each pass over a 4-bit Linear first dequantizes its whole weight to a 16-bit copy and
// runs the cuBLAS GEMM on that copy. bitsandbytes (PEFT, HF): functional.dequantize_4bit in
// MatMul4Bit.forward and again in its backward (autograd/_functions.py); torchao's NF4Tensor,
// which torchtune uses: linear_nf4 dequantizes in the forward and the backward
// (torchao/dtypes/nf4tensor.py). The kernel reads the packed weight with its scales and writes
// the copy, qlora_dequant_bytes_per_param per weight at HBM bandwidth, whatever the tokens: a
// fixed cost per pass, small against a large micro-batch's GEMMs. Seconds for one pass over
// this stage's share of the layers' matrices (the embedding and head stay 16-bit).
// `memo`: the search's, whose costs are those of h's counts (step_shape made them): the sum is
// kept there.
double qlora_dequant_s(const StepShape& h, const SpeedProfile& profile, ModuleSumsMemo* memo) {
  if (h.hbm <= 0) return 0;
  const auto matrix_params = [&h] {
    double params = 0;
    for (const auto& mod : h.modules())
      if (mod.role != MatrixRole::kRouter)
        params += static_cast<double>(mod.in) * static_cast<double>(mod.out) *
                  static_cast<double>(mod.count);
    return params;
  };
  double params = 0;
  if (!memo) {
    params = matrix_params();
  } else {
    if (memo->matrix_params < 0) memo->matrix_params = matrix_params();
    params = memo->matrix_params;
  }
  return params / (h.p * h.t) * profile.qlora_dequant_bytes_per_param() / h.hbm;
}

// forward_flops, taken from `memo` (whose costs are `c`: flop_costs made them) when it holds them
// for the same sequence length, attention kind and task kind, the fields forward_flops reads
// besides the costs' model and counts, else computed and kept there. One entry: four slots
// found more of them but their scan cost more than it saved (issue 18).
ForwardFlops held_forward_flops(const Scenario& s, const ModelCosts& c, double lora_active,
                                ModuleSumsMemo* memo) {
  if (!memo) return forward_flops(s, c, lora_active);
  const bool lora = is_lora(s.task);
  if (memo->flops_seq_len != s.seq_len || memo->flops_flash != s.training.flash_attention ||
      memo->flops_lora != lora || memo->flops_modules != replayed_modules(s.training)) {
    memo->flops = forward_flops(s, c, lora_active);
    memo->flops_seq_len = s.seq_len;
    memo->flops_flash = s.training.flash_attention;
    memo->flops_lora = lora;
    memo->flops_modules = replayed_modules(s.training);
  }
  return memo->flops;
}

// optimizer_bytes_per_param(t), taken from `memo` when it holds them for the same optimizer and
// precision, the fields it reads, else made (and kept there).
[[gnu::always_inline]] inline double held_optimizer_bytes(const TrainingOptions& t,
                                                          ModuleSumsMemo* memo) {
  if (!memo) return optimizer_bytes_per_param(t);
  if (memo->optimizer_bytes < 0 || memo->bytes_optimizer != t.optimizer ||
      memo->bytes_precision != t.mixed_precision) {
    memo->optimizer_bytes = optimizer_bytes_per_param(t);
    memo->bytes_optimizer = t.optimizer;
    memo->bytes_precision = t.mixed_precision;
  }
  return memo->optimizer_bytes;
}

// Forced inline, as are the step's parts below (stage_work to add_optimizer_and_offload): they
// have two callers, training_speed and training_tokens_per_s, and GCC kept them out of line for
// two where it inlined them into one (issue 18: +98 instructions a numbers-only training estimate).
// The layout and sizes of the step (step_shape's first half): what the step reads past its
// micro-batch's seconds (the pipeline, data-parallel and optimizer parts, the tokens a step).
[[gnu::always_inline]] inline StepShape step_layout(const Scenario& s, const EngineProfile& engine,
                                                    const SpeedProfile& profile,
                                                    const TrainingProfile& eng,
                                                    const ModelCounts& counts, ModuleSumsMemo* memo,
                                                    OwnCosts& own) {
  StepShape h(s, engine, profile, eng, counts, flop_costs(*s.model, counts, memo, own));
  h.frozen = frozen_base(s.task);
  h.tp = std::max<int64_t>(1, s.parallel.tp);
  h.pp = std::max<int64_t>(1, s.parallel.pp);
  h.gpus = std::max<int64_t>(1, s.gpu_count);
  // The gradient group: every rank holding the same weights (data-parallel, and the context-
  // and expert-parallel ranks folded into it, Megatron-Core parallel_state). Context-parallel
  // ranks share each sequence, so the batch is split over dp / cp of them.
  h.cp = std::max<int64_t>(1, s.parallel.cp);
  h.dp = std::max<int64_t>(std::max<int64_t>(1, s.parallel.dp), h.gpus / (h.tp * h.pp));
  h.ep = std::max<int64_t>(1, s.parallel.ep);
  const double batch_ranks = std::max(1.0, static_cast<double>(h.dp) / static_cast<double>(h.cp));
  const double batch = static_cast<double>(std::max<int64_t>(1, s.batch));
  h.global_batch = s.training.global_batch > 0
                       ? static_cast<double>(s.training.global_batch)
                       : batch * static_cast<double>(s.training.grad_accum) * batch_ranks;
  h.m = std::max(1.0, h.global_batch / (batch_ranks * batch));
  h.t = static_cast<double>(h.tp);
  h.p = static_cast<double>(h.pp);
  h.v = h.pp > 1 ? static_cast<double>(std::max<int64_t>(1, s.parallel.pp_interleave)) : 1.0;
  h.trainable = is_lora(s.task) ? h.counts.adapters.all : h.params;
  h.optimizer_bytes = held_optimizer_bytes(s.training, memo);
  h.seq = static_cast<double>(s.seq_len);
  // One micro-batch's tokens on this GPU: context parallelism gives each rank seq / cp of them
  // (with all their layers), and each rank's queries attend over the whole sequence.
  h.mb_tokens = batch * h.seq / static_cast<double>(h.cp);
  h.hidden = static_cast<double>(h.c.hidden);
  h.vocab = static_cast<double>(s.model->vocab_size);
  h.hbm = h.gpu.memory_bandwidth_gbps ? *h.gpu.memory_bandwidth_gbps * 1e9 : 0.0;
  return h;
}

// FP8 training's casts (data/speed.json training fp8_cast_read_bytes_per_value and its
// derivation; the copies they write, core/fp8_recipe.h): each value entering a layer GEMM is
// quantized in the forward, each gradient leaving one in the backward. A column-parallel
// matrix's input is whole on each rank and its output split, a row-parallel one's the other way
// round (Shoeybi et al. 2019, sec. 3): without sequence parallelism a rank casts the whole ones,
// with it, or alone, its 1/t share (Korthikanti et al. 2022 sec. 4.2.2). Matrices reading one
// input (shares_input) cast it once. Summed here, for FP8 steps alone (issue 18: in module_sums
// every step paid for them).
void add_fp8_casts(StepShape& h) {
  double in_split = 0, in_whole = 0, out_split = 0, out_whole = 0;
  const LinearModules& mods = h.modules();
  for (size_t i = 0; i < mods.size(); ++i) {
    const LinearModule& mod = mods[i];
    if (mod.role == MatrixRole::kRouter) continue;
    const double instances = static_cast<double>(mod.count) * active_share(mod, *h.s.model);
    const double in_values = instances * static_cast<double>(mod.in);
    const double out_values = instances * static_cast<double>(mod.out);
    if (mod.role == MatrixRole::kRow) {
      in_split += in_values;
      out_whole += out_values;
    } else {
      out_split += out_values;
      if (!shares_input(mods, i)) in_whole += in_values;
    }
  }
  const MixedPrecision mp = h.s.training.mixed_precision;
  const double read = mp == MixedPrecision::kMxfp8 ? h.eng.mxfp8_cast_read_bytes_per_value
                                                   : h.eng.fp8_cast_read_bytes_per_value;
  const double per_value = read + fp8_copies(mp, &h.gpu) * fp8_value_bytes(mp);
  const double whole_share = (h.s.parallel.sequence_parallel || h.tp == 1) ? 1.0 / h.t : 1.0;
  h.cast_forward_bytes = per_value * (in_split / h.t + in_whole * whole_share) / h.p;
  h.cast_backward_bytes = per_value * (out_split / h.t + out_whole * whole_share) / h.p;
}

// The rest of the step's shape, which only its micro-batch's work reads (stage_work and the
// model-parallel traffic), into `h` made by step_layout.
[[gnu::always_inline]] inline void add_work_shape(StepShape& h, const SpeedProfile& profile,
                                                  const StepRates& rates, ModuleSumsMemo* memo) {
  const Scenario& s = h.s;
  const ModuleSums sums = module_sums(s, h.counts, h.t, h.eng, rates.k_half, memo);
  h.f = held_forward_flops(s, h.c, h.counts.adapters.active, memo);
  h.lora_bytes_per_token = sums.lora_bytes;
  h.layers = static_cast<double>(h.c.num_layers);
  // GEMM rate: step_rates' base x the depth efficiency of its GEMMs, which saturates with size.
  // The head reduces over the hidden size.
  h.rate = rates.base * layer_gemm_eff(sums, *s.model, rates.k_half);
  h.head_rate = rates.base16 * gemm_size_eff(h.hidden, h.eng.eff_k_hidden);
  if (is_fp8(s.training.mixed_precision)) add_fp8_casts(h);
  if (s.task == Task::kQlora) h.dequant_s = qlora_dequant_s(h, profile, memo);
  if (is_lora(s.task)) h.gemm_scale *= 1.0 + profile.lora_extra_cost();  // unfused adapter GEMMs
  set_attention_rates(h, rates);
}

// The whole shape: training_speed's, whose figures read the forward FLOPs too.
[[gnu::always_inline]] inline StepShape step_shape(const Scenario& s, const EngineProfile& engine,
                                                   const SpeedProfile& profile,
                                                   const TrainingProfile& eng,
                                                   const StepRates& rates,
                                                   const ModelCounts& counts, ModuleSumsMemo* memo,
                                                   OwnCosts& own) {
  StepShape h = step_layout(s, engine, profile, eng, counts, memo, own);
  add_work_shape(h, profile, rates, memo);
  return h;
}

// Seconds of one micro-batch's work on one body stage (layers / p of them) and of the last
// stage's extra (head and loss), per GPU of its tensor group.
struct StageWork {
  double gemm_body = 0, gemm_rec = 0, gemm_head = 0;
  double attn = 0, attn_rec = 0;  ///< FlashAttention at its own rates (else in the GEMMs)
  double elem = 0, elem_rec = 0, scores = 0, scores_rec = 0, loss = 0;
  double dequant = 0, dequant_rec = 0;  ///< QLoRA's 16-bit weight copies
  double forward() const { return gemm_body + attn + elem + scores + dequant; }
  double replay() const { return gemm_rec + attn_rec + elem_rec + scores_rec + dequant_rec; }
};

// Whether the element-wise kernels run fused: the scenario compiles (training.compile) and the
// profile's compiled figure is below the engine's own (Megatron's are fused by hand already).
bool compiled_elementwise(const StepShape& h) {
  const double compiled = h.eng.compiled_elementwise_bytes_per_hidden;
  return h.s.training.compile && compiled > 0 && compiled < h.eng.elementwise_bytes_per_hidden;
}

// Bandwidth-bound kernels of one micro-batch on one stage (seconds into `w`).
[[gnu::always_inline]] inline void add_memory_bound_work(const StepShape& h, StageWork& w) {
  const Scenario& s = h.s;
  if (h.hbm <= 0) return;
  // Non-GEMM kernels (norms, activations, dropout, residual adds, casts) are bandwidth-bound:
  // they move elementwise_bytes_per_hidden x hidden bytes per token and layer (forward and
  // backward) in proportion to the activations a layer stores: 34 s b h bytes, of which
  // sequence parallelism splits all over the tensor group and plain tensor parallelism only
  // 24 (the layer norms and dropouts, 10 s b h, stay replicated): Korthikanti et al. 2022,
  // sec. 4.2, eq. 2 vs eq. 4. Half of it is the forward (written, read back), replayed by
  // full recomputation.
  const double share =
      (s.parallel.sequence_parallel || h.tp == 1) ? 1.0 / h.t : (10.0 + 24.0 / h.t) / 34.0;
  // torch.compile (training.compile) lets Inductor fuse those chains into single kernels.
  const double bytes = compiled_elementwise(h) ? h.eng.compiled_elementwise_bytes_per_hidden
                                               : h.eng.elementwise_bytes_per_hidden;
  w.elem = bytes * h.hidden * share * h.layers / h.p * h.mb_tokens / h.hbm;
  if (s.training.recompute == Recompute::kFull) w.elem_rec = 0.5 * w.elem;
  // FP8 casts (add_fp8_casts); full recomputation replays the forward's.
  if (h.cast_forward_bytes > 0) {
    w.elem += (h.cast_forward_bytes + h.cast_backward_bytes) * h.mb_tokens / h.hbm;
    if (s.training.recompute == Recompute::kFull)
      w.elem_rec += h.cast_forward_bytes * h.mb_tokens / h.hbm;
  }
  if (!s.training.flash_attention) {
    // Eager attention materializes the s x s scores per head (the 5 a s^2 b bytes a layer
    // stores, Korthikanti et al. 2022 sec. 4.1) and streams them through the softmax, dropout
    // and both score GEMMs: eager_score_bytes per score, forward and backward (Megatron
    // fused softmax: forward 13 bytes = scores written 2, softmax read 2 write 2, dropout
    // read 2 write 2 + mask 1, PV read 2). FlashAttention keeps them in SRAM (Dao et al. 2022).
    const double heads = static_cast<double>(s.model->num_heads) / h.t;
    const double attn_layers = static_cast<double>(h.c.full_layers + h.c.window_layers);
    w.scores = h.mb_tokens * h.seq * heads * h.eng.eager_score_bytes * attn_layers / h.p / h.hbm;
    // Any recomputation replays the attention core's forward: 13 of the bytes.
    if (s.training.recompute != Recompute::kNone && h.eng.eager_score_bytes > 0)
      w.scores_rec = w.scores * std::min(1.0, 13.0 / h.eng.eager_score_bytes);
  }
  if (is_lora(s.task)) w.elem += h.lora_bytes_per_token / (h.p * h.t) * h.mb_tokens / h.hbm;
  // QLoRA's dequantized copies: the forward and the backward make one each, and a full
  // recomputation replays the forward's.
  w.dequant = 2.0 * h.dequant_s;
  if (s.training.recompute == Recompute::kFull) w.dequant_rec = h.dequant_s;
  // Cross-entropy over the vocab-parallel logits in fp32 (Megatron
  // vocab_parallel_cross_entropy, torch cross_entropy upcast): logits read, exp written,
  // read again and the gradient written, 4 bytes each.
  w.loss = h.mb_tokens * h.vocab / h.t * 16.0 / h.hbm;
}

[[gnu::always_inline]] inline StageWork stage_work(const StepShape& h) {
  StageWork w;
  const double stage_share = 1.0 / (h.p * h.t);
  const double layer_flops = train_layer_flops(h.f, h.frozen);
  const double replay_flops = recompute_flops(h.f, h.s.training);
  if (!h.flash_rates) {
    w.gemm_body = h.mb_tokens * layer_flops * stage_share / h.rate * h.gemm_scale;
    w.gemm_rec = h.mb_tokens * replay_flops * stage_share / h.rate * h.gemm_scale;
  } else {
    // The attention core leaves the GEMMs (3 x its forward there) and runs at its kernel's rate;
    // any recomputation replays its forward (recompute_flops holds it once).
    const double replayed_attn = replays_attention(h.s.training) ? h.f.attn : 0.0;
    w.gemm_body =
        h.mb_tokens * (layer_flops - 3.0 * h.f.attn) * stage_share / h.rate * h.gemm_scale;
    w.gemm_rec = h.mb_tokens * (replay_flops - replayed_attn) * stage_share / h.rate * h.gemm_scale;
    w.attn = h.mb_tokens * h.f.attn * stage_share * h.attn_s_per_flop;
    w.attn_rec = h.mb_tokens * replayed_attn * stage_share * h.attn_replay_s_per_flop;
  }
  // The LM head and loss sit on the last stage, vocab-parallel over the tensor group (Shoeybi
  // et al. 2019, sec. 3; Narayanan et al. 2021, sec. 3.2: the first stage holds the embedding
  // lookup, which costs no FLOPs). This is what makes the last stage the slowest.
  w.gemm_head = h.mb_tokens * train_head_flops(h.f, h.frozen) / h.t / h.head_rate;
  add_memory_bound_work(h, w);
  return w;
}

// Model-parallel activation traffic of one micro-batch on one stage, in the critical path.
struct ModelParallelComm {
  double tp_body = 0, tp_head = 0, ep = 0;
};

// Tensor (and sequence) parallelism: per layer and micro-batch, 2 all-reduces forward and 2
// backward of b s h activations (Shoeybi et al. 2019, sec. 3), 2 more replayed by full
// recomputation; sequence parallelism swaps each for a reduce-scatter plus an all-gather of
// the same volume (Korthikanti et al. 2022, sec. 4.2.2). Megatron runs them in the critical
// path. The head adds one: its input gradient is all-reduced. The ring runs over NVLink inside
// the node's fast-link domain (gpus_per_node) and over the network beyond it.
[[gnu::always_inline]] inline void add_tensor_parallel_comm(const StepShape& h,
                                                            ModelParallelComm& mp) {
  if (h.tp <= 1) return;
  const Scenario& s = h.s;
  const Link tp_link = group_link(h.gpu, h.tp, s.gpus_per_node, h.links);
  double per_layer = s.training.recompute == Recompute::kFull ? 6.0 : 4.0;
  // Sequence parallelism keeps only each rank's 1/t slice of the layer-norm outputs, so the
  // backward all-gathers them again for the weight gradients of both column-parallel GEMMs
  // (Megatron-LM tensor_parallel/layers.py, LinearWithGradAccumulationAndAsyncCommunication
  // backward; Calculon's seq_par_ag_redo): 2 all-gathers, one all-reduce's worth of bytes.
  if (s.parallel.sequence_parallel && s.training.recompute != Recompute::kFull) per_layer += 1.0;
  const double bytes = h.mb_tokens * h.hidden * h.links.activation_bytes;
  const double one = allreduce_s(bytes, h.tp, tp_link);
  mp.tp_body = per_layer * h.layers / h.p * one;
  mp.tp_head = one;
}

// Context parallelism (Megatron-Core / Transformer Engine, cp_comm_type "p2p"; Liu et al.
// 2023, Ring Attention, sec. 3): per layer the key/value blocks of the local seq / cp tokens
// travel cp - 1 ring steps forward, and keys/values plus their gradients (twice the bytes)
// backward, each step overlapped with the attention of the block in hand. Exposed like other
// overlapped traffic; the rest hides behind the attention kernels (forward + backward = 3 x
// the attention forward). Counted with the tensor-parallel collectives (model-parallel
// activation traffic in the critical path).
[[gnu::always_inline]] inline double context_parallel_comm(const StepShape& h) {
  if (h.cp <= 1) return 0;
  const Scenario& s = h.s;
  const Link cp_link = group_link(h.gpu, h.tp * h.cp, s.gpus_per_node, h.links);
  const double kv_bytes =
      h.mb_tokens * 2.0 * static_cast<double>(s.model->kv_width()) / h.t * h.links.activation_bytes;
  const double steps = static_cast<double>(h.cp - 1);
  const double attn_layers = static_cast<double>(h.c.full_layers + h.c.window_layers);
  const double ring = 3.0 * steps * (kv_bytes / cp_link.bytes_per_s + cp_link.latency_s);
  const double attn_time =
      h.mb_tokens * h.f.attn / std::max(1.0, attn_layers) / h.t * h.attn_s_per_flop;
  return attn_layers / h.p * exposed(ring, attn_time, h.eng.overlap);
}

// MoE expert parallelism: a dispatch and a combine all-to-all forward and again backward per
// MoE layer, top-k copies of each token's hidden state (Lepikhin et al. 2020, GShard sec. 2.2;
// Megatron-Core token dispatcher). An all-to-all ships (ep - 1) / ep of the bytes, the share
// for peers beyond the node over the network beside the rest over NVLink (alltoall_s).
[[gnu::always_inline]] inline double expert_parallel_comm(const StepShape& h) {
  if (h.ep <= 1 || h.c.moe_layers <= 0) return 0;
  const double bytes = h.mb_tokens / h.t * static_cast<double>(h.c.experts_per_token) * h.hidden *
                       h.links.activation_bytes;
  // Recomputing the MoE layer (recompute_modules moe) replays its forward's two all-to-alls.
  const double passes = (replayed_modules(h.s.training) & kRecomputeMoe) ? 6.0 : 4.0;
  return passes * static_cast<double>(h.c.moe_layers) / h.p *
         alltoall_s(bytes, h.ep, h.tp, h.gpu, h.s.gpus_per_node, h.links);
}

// Pipeline fill and drain and the stage-boundary sends; `body_mb` is one body-stage
// micro-batch.
[[gnu::always_inline]] inline void add_pipeline(const StepShape& h, double body_mb,
                                                TrainingSpeed& r) {
  if (h.pp <= 1) return;
  StepBreakdown& br = r.breakdown;
  const double p = h.p, m = h.m, v = h.v;
  if (h.engine.naive_pipeline) {
    // Naive pipeline parallelism (Hugging Face accelerate's device_map splits the layers over
    // the GPUs with no pipeline schedule): each micro-batch visits the stages in turn while the
    // others wait (transformers docs, "Efficient training on multiple GPUs", naive pipeline
    // parallelism; engines.json naive_pipeline): m x p stage times.
    r.bubble = (p - 1.0) / p;
    br.pp_bubble = m * (p - 1.0) * body_mb;
    return;
  }
  // 1F1B (and interleaved) schedules: the slowest (last) stage paces the m micro-batches; the
  // fill and drain cost (p - 1) / v body-stage micro-batch times (Narayanan et al. 2021,
  // sec. 2.2.1-2.2.2: bubble fraction (p - 1) / (v m)).
  r.bubble = (p - 1.0) / (v * m);
  br.pp_bubble = (p - 1.0) / v * body_mb;
  // Stage boundaries: the activation forward and its gradient backward for every model chunk
  // (v of them per GPU); with the scatter/gather optimisation each tensor rank sends 1/t
  // (Narayanan et al. 2021, sec. 4.1). Blocking sends in the 1F1B schedule.
  const Link pp_link = group_link(h.gpu, h.tp * h.pp, h.s.gpus_per_node, h.links);
  const double bytes = h.mb_tokens * h.hidden * h.links.activation_bytes / h.t;
  br.pp_bubble += m * 2.0 * v * (bytes / pp_link.bytes_per_s + pp_link.latency_s);
}

double grad_bytes_per_value(const TrainingSpeed& r) {
  return r.dtype == "fp32" ? 4.0 : 2.0;
}
double trainable_params(const StepShape& h) {
  return h.trainable;
}
// Bytes of a parameter the data-parallel ranks gather: the frozen base in its format; FP8
// weights in FP8 where the engine holds them so (Megatron-Core fp8_param_gather: the
// distributed optimizer's and FSDP's all-gathers carry the FP8 parameters); else the 16-bit
// working copy, the gradients' dtype.
[[gnu::always_inline]] inline double gathered_param_bytes(const StepShape& h,
                                                          const TrainingSpeed& r) {
  if (h.frozen) return h.s.weights->bytes_per_value();
  if (is_fp8(h.s.training.mixed_precision) && h.engine.fp8_weights == Fp8Weights::kPrimary)
    return fp8_value_bytes(h.s.training.mixed_precision);
  return grad_bytes_per_value(r);
}

// This GPU's bytes of a per-parameter quantity over `params` parameters of which `experts` are
// routed experts, the two apart: the experts are split over ep besides tp x pp, and each
// expert's copies live on the expert-data-parallel ranks alone (expert_ranks), where the dense
// parameters' live on all h.dp (Megatron-Core parallel_state: expert_data_parallel_size = world
// / (etp x ep x pp); its DDP buckets expert and dense parameters apart and reduces each over
// its own group, distributed_data_parallel.py).
struct ShardBytes {
  double dense = 0, experts = 0;
};
ShardBytes shard_bytes(const StepShape& h, double params, double experts, double value_bytes) {
  const double shard = h.t * h.p;
  if (h.ep <= 1) return {params / shard * value_bytes, 0.0};
  return {(params - experts) / shard * value_bytes,
          experts / (shard * static_cast<double>(h.ep)) * value_bytes};
}
// The ranks that hold the same routed experts: h.dp counts every rank beyond tp x pp, the
// expert ranks among them included.
int64_t expert_ranks(const StepShape& h) {
  return std::max<int64_t>(1, h.dp / h.ep);
}

// Data parallelism, for this GPU's shard of the trainable weights; `last_mb` is one last-stage
// micro-batch.
[[gnu::always_inline]] inline void add_data_parallel(const StepShape& h, double last_mb,
                                                     TrainingSpeed& r) {
  const Scenario& s = h.s;
  StepBreakdown& br = r.breakdown;
  const ShardBytes grads =
      shard_bytes(h, trainable_params(h), h.counts.trainable.experts, grad_bytes_per_value(r));
  const int64_t expert_dp = expert_ranks(h);
  if (h.dp > 1) {
    // The data-parallel group's link, made only for a group (issue 18: ~36 instructions of each
    // one-GPU step, half a search's kept changes).
    const Link dp_link = group_link(h.gpu, h.gpus, s.gpus_per_node, h.links);
    if (s.training.zero_stage >= 3) {
      // ZeRO-3 / FSDP (Rajbhandari et al. 2020, sec. 5.3 and 7.2.2): every micro-batch gathers
      // the parameters for its forward and again for its backward, and reduce-scatters its
      // gradients; prefetching hides them behind that micro-batch's compute.
      const ShardBytes params =
          shard_bytes(h, h.params, static_cast<double>(h.counts.params.routed_experts),
                      gathered_param_bytes(h, r));
      const double per_mb = 2.0 * (allgather_s(params.dense, h.dp, dp_link) +
                                   allgather_s(params.experts, expert_dp, dp_link)) +
                            allgather_s(grads.dense, h.dp, dp_link) +
                            allgather_s(grads.experts, expert_dp, dp_link);
      r.dp_comm_s = h.m * per_mb;
      br.dp_comm = h.m * exposed(per_mb, last_mb, h.eng.overlap);
    } else {
      // ZeRO 0-2: one all-reduce (ZeRO-1/2: reduce-scatter + all-gather, the same volume,
      // Rajbhandari et al. 2020 sec. 7.2.1) of the gradients after the last micro-batch,
      // bucketed behind its backward. ZeRO-1/2 gathering FP8 parameters: the reduce-scatter of
      // the gradients and an all-gather of the parameters' bytes.
      if (s.training.zero_stage >= 1 && !h.frozen && is_fp8(s.training.mixed_precision) &&
          h.engine.fp8_weights == Fp8Weights::kPrimary) {
        const ShardBytes params = shard_bytes(h, trainable_params(h), h.counts.trainable.experts,
                                              gathered_param_bytes(h, r));
        r.dp_comm_s = allgather_s(grads.dense, h.dp, dp_link) +
                      allgather_s(params.dense, h.dp, dp_link) +
                      allgather_s(grads.experts, expert_dp, dp_link) +
                      allgather_s(params.experts, expert_dp, dp_link);
      } else {
        r.dp_comm_s = allreduce_s(grads.dense, h.dp, dp_link) +
                      allreduce_s(grads.experts, expert_dp, dp_link);
      }
      br.dp_comm = exposed(r.dp_comm_s, last_mb * 2.0 / 3.0, h.eng.overlap);
    }
  }
  if (h.pp > 1 && s.model->tied_embeddings && !h.frozen) {
    // Tied input embedding and LM head live on the first and last stage: their gradients are
    // all-reduced between the two after the flush (Megatron _allreduce_embedding_grads).
    const Link pp_link = group_link(h.gpu, h.tp * h.pp, s.gpus_per_node, h.links);
    br.dp_comm += allreduce_s(h.vocab * h.hidden / h.t * grad_bytes_per_value(r), 2, pp_link);
  }
}

// Optimizer step: bandwidth-bound over the states of this GPU's shard (ZeRO-1+ shards them
// over dp as well), on the GPU or, offloaded, on the host with the PCIe copies.
[[gnu::always_inline]] inline void add_optimizer_and_offload(const StepShape& h, double last_mb,
                                                             TrainingSpeed& r) {
  const Scenario& s = h.s;
  StepBreakdown& br = r.breakdown;
  const double shard = h.t * h.p;
  // ZeRO-1+ shards the dense states over h.dp and the experts' over their own ranks, which
  // leaves trainable / (t p dp) of either on a GPU; unsharded, a GPU holds its experts alone.
  double opt_params;
  if (s.training.zero_stage >= 1) {
    opt_params = trainable_params(h) / shard / static_cast<double>(h.dp);
  } else {
    const ShardBytes held = shard_bytes(h, trainable_params(h), h.counts.trainable.experts, 1.0);
    opt_params = held.dense + held.experts;
  }
  const double opt_bytes = opt_params * h.optimizer_bytes;
  if (s.training.offload == Offload::kNone) {
    if (h.hbm > 0) br.optimizer = opt_bytes / (h.hbm * h.eng.optimizer_bw_eff);
    return;
  }
  // ZeRO-Offload (Ren et al. 2021, sec. 4.1-4.2): the 16-bit gradients go to the host during
  // the backward, the CPU runs Adam over the fp32 master weights and states (host-memory
  // bound, the same bytes as on the GPU), and the updated 16-bit weights come back before the
  // next forward. Only the gradient copy overlaps.
  const double pcie = h.gpu.pcie_bytes_per_s() * h.links.pcie_eff;
  const double down = opt_params * grad_bytes_per_value(r) / pcie + h.links.pcie_latency_s;
  const double up = opt_params * 2.0 / pcie + h.links.pcie_latency_s;
  br.offload = exposed(down, last_mb * 2.0 / 3.0, h.eng.overlap) + up +
               opt_bytes / h.links.host_memory_bytes_per_s;
  if (s.training.offload == Offload::kOptimizerParams) {
    // Parameters live on the host too (ZeRO-Infinity, Rajbhandari et al. 2021 sec. 5; FSDP
    // CPUOffload): each micro-batch copies this GPU's shard in for the forward and again for
    // the backward, prefetched behind the micro-batch's compute.
    const double param_shard = h.params / shard /
                               (s.training.zero_stage >= 3 ? static_cast<double>(h.dp) : 1.0) *
                               s.weights->bytes_per_value();
    const double fetch = 2.0 * (param_shard / pcie + h.links.pcie_latency_s);
    br.offload += h.m * exposed(fetch, last_mb, h.eng.overlap);
  }
}

// Model FLOPs for MFU (Chowdhery et al. 2022, PaLM appendix B): 6N + attention per token, N
// holding the LM head (Narayanan et al. 2021, appendix: the V / (12 h l) term). Frozen weights
// (LoRA, freeze-tuning) need no weight gradients, so the work the step requires is 4N. The
// attention is the work a causal model needs: PaLM's 12 L H Q T with each query over the keys
// before it (the mean T/2; the masked half is no work FlashAttention does), a sliding-window
// layer over its window and a linear-attention layer without the quadratic term
// (attention_flops_prefill). Counted over all T, MFU read above 1 at long sequences, and the
// Llama 3 paper's 405B pre-training TFLOPS per GPU (Dubey et al. 2024, table 4: 430 and 400 at
// 8,192 tokens, 380 at 131,072) fit the causal count (+0.7%, +2.4%, -11.8% here) better than the
// full one (+4.7%, +6.5%, +24%).
double model_flops_per_token(const StepShape& h) {
  return (h.frozen ? 2.0 : 3.0) * (h.f.layers + h.f.head) +
         3.0 * attention_flops_prefill(h.c, h.seq);
}

// One micro-batch of the stage's work `w` on the slowest stage of shape `h` (made whole:
// step_shape, or step_layout and add_work_shape), with its model-parallel traffic.
[[gnu::always_inline]] inline MicroBatchSeconds micro_batch(const StepShape& h,
                                                            const StageWork& w) {
  ModelParallelComm mp;
  add_tensor_parallel_comm(h, mp);
  // Overlapped (parallel.tp_comm_overlap: Transformer Engine's userbuffers split each
  // all-gather and reduce-scatter of sequence parallelism into tp chunks pipelined with the
  // GEMM that consumes or produces them, Megatron-Core --tp-comm-overlap; Wang et al. 2023,
  // "Overlap Communication with Dependent Computation via Decomposition", ASPLOS): exposed as
  // other overlapped traffic behind the stage's layer GEMMs, at least (1 - overlap) of it.
  if (h.s.parallel.tp_comm_overlap)
    mp.tp_body = exposed(mp.tp_body, w.gemm_body + w.gemm_rec, h.eng.overlap);
  mp.tp_body += context_parallel_comm(h);
  mp.ep = expert_parallel_comm(h);
  MicroBatchSeconds b;
  const double overhead = h.eng.step_overhead_s;  // per micro-batch: launches, Python, data
  b.body = w.forward() + w.replay() + mp.tp_body + mp.ep;
  b.last = b.body + w.gemm_head + w.loss + mp.tp_head;
  b.compute = w.forward() + w.gemm_head + w.loss + overhead;
  b.replay = w.replay();
  b.tp = mp.tp_body + mp.tp_head;
  b.ep = mp.ep;
  return b;
}

// The step of layout `h` whose micro-batch takes `b`: its breakdown, the figures its parts write
// (the bubble, the communication seconds) and its time, into `r` (whose dtype is set: the
// gradients' bytes read it). Forced inline into both callers with the step's parts (step_shape's
// note): it was written in training_speed.
[[gnu::always_inline]] inline void add_step(const StepShape& h, const MicroBatchSeconds& b,
                                            TrainingSpeed& r) {
  StepBreakdown& br = r.breakdown;
  // The slowest (last) stage paces the m micro-batches.
  br.compute = h.m * b.compute;
  br.recompute = h.m * b.replay;
  br.tp_comm = h.m * b.tp;
  br.ep_comm = h.m * b.ep;
  add_pipeline(h, b.body, r);
  add_data_parallel(h, b.last, r);
  add_optimizer_and_offload(h, b.last, r);

  r.compute_s = br.compute + br.recompute;
  r.tp_comm_s = br.tp_comm;
  r.step_time_s = br.total();
}

// Whether `slot` holds the micro-batch of `s` with `counts` under the memo's rates, made
// `rates_made`-th: every field micro_batch reads through step_layout and add_work_shape besides
// the rates (the GPU, engine, profile, precision and FlashAttention flag) and the model's costs
// (the model and counts). The fields the search's levers change are compared first.
[[gnu::always_inline]] inline bool same_micro_batch(const ModuleSumsMemo::MicroBatchSlot& slot,
                                                    const Scenario& s, const ModelCounts& counts,
                                                    uint64_t rates_made) {
  const Parallelism& par = s.parallel;
  return slot.seq_len == s.seq_len && slot.batch == s.batch &&
         slot.recompute == s.training.recompute &&
         slot.recompute_modules == s.training.recompute_modules && slot.task == s.task &&
         slot.counts == &counts && slot.rates_made == rates_made && slot.tp == par.tp &&
         slot.pp == par.pp && slot.cp == par.cp && slot.ep == par.ep &&
         slot.model == s.model.get() && slot.gpus_per_node == s.gpus_per_node &&
         slot.compile == s.training.compile && slot.sequence_parallel == par.sequence_parallel &&
         slot.tp_comm_overlap == par.tp_comm_overlap;
}

// `b` kept in `memo` for `s` and `counts` under its current rates: a new slot, or the oldest.
void keep_micro_batch(ModuleSumsMemo& memo, const Scenario& s, const ModelCounts& counts,
                      const MicroBatchSeconds& b) {
  size_t i = memo.micro_batches_held;
  if (i < memo.micro_batches.size()) {
    ++memo.micro_batches_held;
  } else {
    i = memo.next_micro_batch;
    memo.next_micro_batch = (i + 1) % memo.micro_batches.size();
  }
  const Parallelism& par = s.parallel;
  memo.micro_batches[i] = {s.model.get(),
                           &counts,
                           memo.rates_made,
                           s.batch,
                           s.seq_len,
                           par.tp,
                           par.pp,
                           par.cp,
                           par.ep,
                           s.gpus_per_node,
                           s.task,
                           s.training.recompute,
                           s.training.recompute_modules,
                           s.training.compile,
                           par.sequence_parallel,
                           par.tp_comm_overlap,
                           b};
}

// The micro-batch `memo` holds for `s` and `counts` under its current rates; nullptr: none.
const MicroBatchSeconds* held_micro_batch(const ModuleSumsMemo& memo, const Scenario& s,
                                          const ModelCounts& counts) {
  for (size_t i = 0; i < memo.micro_batches_held; ++i)
    if (same_micro_batch(memo.micro_batches[i], s, counts, memo.rates_made))
      return &memo.micro_batches[i].seconds;
  return nullptr;
}

// The step's tokens per second, all GPUs: the global batch's tokens over the step's time.
double step_tokens_per_s(const StepShape& h, const TrainingSpeed& r) {
  return h.global_batch * h.seq / r.step_time_s;
}

}  // namespace

std::optional<TrainingSpeed> training_speed(const Scenario& s, const EngineProfile& engine,
                                            const SpeedProfile& profile, std::string& why) {
  return training_speed(s, engine, profile, count_model(s), why);
}

std::optional<TrainingSpeed> training_speed(const Scenario& s, const EngineProfile& engine,
                                            const SpeedProfile& profile, const ModelCounts& counts,
                                            std::string& why, ModuleSumsMemo* memo) {
  // The one value every path returns, made holding its figures, so that they are written in
  // place (NRVO; issue 18: a TrainingSpeed built on the side was ~200 bytes copied into the
  // optional, and an optional made empty first is zeroed whole too).
  std::optional<TrainingSpeed> out(std::in_place);
  TrainingSpeed& r = *out;
  if (!s.gpu) {
    why = "no gpu given";
    out.reset();
    return out;
  }
  const auto lacks_rate = [&s, &why, &out](std::string_view dtype) {
    why = "the GPU catalog lacks a " + std::string(dtype) + " rate for " + s.gpu->id;
    out.reset();
  };
  if (s.task == Task::kCvTrain) {
    r.dtype = training_dtype(s.training.mixed_precision, *s.gpu, true);
    const auto peak = s.gpu->dense_flops(r.dtype);
    if (!peak || *peak <= 0)
      lacks_rate(r.dtype);
    else
      out = cv_training_speed(s, profile, *peak, TrainingSpeed(r), why);
    return out;
  }
  StepRates own;  // without a memo
  if (!memo) compute_step_rates(s, profile, speed_lookups(s, profile), own);
  const StepRates& rates = memo ? held_step_rates(s, engine, profile, *memo) : own;
  const TrainingProfile& eng = *rates.training;
  if (rates.peak <= 0) {
    lacks_rate(rates.dtype);
    return out;
  }
  r.dtype = rates.dtype;

  OwnCosts own_costs;  // without a memo: the model's FLOP costs, which h reads
  const StepShape h = step_shape(s, engine, profile, eng, rates, counts, memo, own_costs);
  // training_flops_per_token(s, h.c) from the forward FLOPs step_shape made of the same costs.
  r.hardware_flops_per_token = train_layer_flops(h.f, h.frozen) + train_head_flops(h.f, h.frozen) +
                               recompute_flops(h.f, s.training);
  r.model_flops_per_token = model_flops_per_token(h);
  const StageWork w = stage_work(h);
  const MicroBatchSeconds b = micro_batch(h, w);
  if (memo) keep_micro_batch(*memo, s, counts, b);  // a search's base, then its candidates
  add_step(h, b, r);
  r.qlora_dequant_s = h.m * (w.dequant + w.dequant_rec);
  r.compiled_elementwise = compiled_elementwise(h);
  r.tokens_per_s = step_tokens_per_s(h, r);
  r.tokens_per_s_per_gpu = r.tokens_per_s / static_cast<double>(h.gpus);
  r.tflops_per_gpu = r.model_flops_per_token * r.tokens_per_s_per_gpu / 1e12;
  r.mfu = r.tflops_per_gpu * 1e12 / rates.peak;
  if (s.training.tokens > 0) r.time_to_train_s = s.training.tokens / r.tokens_per_s;
  return out;
}

std::optional<double> training_tokens_per_s(const Scenario& s, const EngineProfile& engine,
                                            const SpeedProfile& profile, const ModelCounts& counts,
                                            ModuleSumsMemo& memo) {
  if (!s.gpu) return std::nullopt;
  if (s.task == Task::kCvTrain) {  // images per second: the whole estimate, rarely searched
    std::string why;
    const auto r = training_speed(s, engine, profile, counts, why, &memo);
    return r ? std::optional<double>(r->tokens_per_s) : std::nullopt;
  }
  // training_speed's language-model path to the step's time, with the same memo: the same
  // shape and breakdown, so the same double (issue 18: the FLOPs per token, MFU, dequantization
  // and time-to-train figures and the optional's other members were made and dropped for each
  // of a search's kept changes).
  const StepRates& rates = held_step_rates(s, engine, profile, memo);
  if (rates.peak <= 0) return std::nullopt;
  TrainingSpeed r;  // the figures the step's parts write
  r.dtype = rates.dtype;
  OwnCosts unused;  // with a memo the costs are the memo's
  StepShape h = step_layout(s, engine, profile, *rates.training, counts, &memo, unused);
  // A micro-batch held for the same stage (another data-parallel layout, ZeRO stage, offload or
  // optimizer) is that micro-batch: its work's shape and seconds are not made again (issue 18).
  if (const MicroBatchSeconds* held = held_micro_batch(memo, s, counts)) {
    add_step(h, *held, r);
  } else {
    add_work_shape(h, profile, rates, &memo);
    const MicroBatchSeconds b = micro_batch(h, stage_work(h));
    keep_micro_batch(memo, s, counts, b);
    add_step(h, b, r);
  }
  return step_tokens_per_s(h, r);
}

}  // namespace gpusizer
