#pragma once
// A training job's options (the scenario's "training" object, docs/contract.md) as typed values:
// the optimizer, the mixed-precision recipe and the offload are enums, spelt as the contract
// spells them by to_string and read back by parse_* with the closest valid name on a typo.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpusizer {

/// The optimizers modelled: PyTorch torch.optim (AdamW, SGD), bitsandbytes (8-bit and paged
/// AdamW), transformers Adafactor, Lion (Chen et al. 2023).
enum class Optimizer {
  kAdamw,
  kAdamw8bit,
  kPagedAdamw8bit,
  kPagedAdamw,
  kSgd,
  kSgdMomentum,
  kAdafactor,
  kLion,
};

/// bf16 and fp16: AMP, 16-bit working copy beside an fp32 master; pure-bf16: bf16 weights,
/// gradients and states; fp32: no 16-bit copy. fp8 and mxfp8: bf16 AMP whose linear layers'
/// GEMMs take FP8 operands (Transformer Engine's per-tensor-scaled recipes, torchao float8;
/// mxfp8: OCP MX block scaling, one E8M0 scale per 32 values, Blackwell's tensor cores).
enum class MixedPrecision { kBf16, kFp16, kPureBf16, kFp32, kFp8, kMxfp8 };

/// What lives in host memory: the optimizer states (ZeRO-Offload, offload_optimizer) or also
/// the parameters (ZeRO-Infinity offload_param; FSDP CPUOffload).
enum class Offload { kNone, kOptimizer, kOptimizerParams };

enum class Recompute { kNone, kSelective, kFull };

/// Megatron-Core's selective recomputation modules (TransformerConfig.recompute_modules), one
/// bit each in the order recompute_module_names() spells them. Read under Recompute::kSelective,
/// where none set is Megatron's default, core_attn alone.
enum RecomputeModule : uint8_t {
  kRecomputeCoreAttn = 1u << 0,
  kRecomputeMlaUpProj = 1u << 1,
  kRecomputeMlp = 1u << 2,
  kRecomputeMoe = 1u << 3,
  kRecomputeMoeAct = 1u << 4,
  kRecomputeLayernorm = 1u << 5,
  kRecomputeSharedExperts = 1u << 6,
};

/// "adamw", "adamw-8bit", ... as the contract spells them.
const std::string& to_string(Optimizer o);
/// "bf16", "fp16", "pure-bf16", "fp32", "fp8", "mxfp8".
const std::string& to_string(MixedPrecision p);
/// "none", "optimizer", "optimizer+params".
const std::string& to_string(Offload o);

/// The contract's names of each enum, in the enum's order.
const std::vector<std::string>& optimizer_names();
const std::vector<std::string>& mixed_precision_names();
const std::vector<std::string>& offload_names();
/// "core_attn", "mla_up_proj", "mlp", "moe", "moe_act", "layernorm", "shared_experts": the
/// RecomputeModule bits' names, bit 0 first.
const std::vector<std::string>& recompute_module_names();

/// The value a contract name stands for (case-insensitive). Throws InputError naming `field`,
/// listing the valid names and the closest one ("did you mean adamw-8bit?").
Optimizer parse_optimizer(std::string_view name, const std::string& field);
MixedPrecision parse_mixed_precision(std::string_view name, const std::string& field);
Offload parse_offload(std::string_view name, const std::string& field);

/// bitsandbytes paged optimizers: states in CUDA unified memory (paged-adamw, paged-adamw-8bit).
bool is_paged(Optimizer o);
/// bitsandbytes 8-bit blockwise states (adamw-8bit, paged-adamw-8bit).
bool is_8bit(Optimizer o);
/// The linear layers' GEMMs take FP8 operands (fp8, mxfp8). Inline, as the two below: every
/// training estimate asks them a few times (issue 18).
inline bool is_fp8(MixedPrecision p) {
  return p == MixedPrecision::kFp8 || p == MixedPrecision::kMxfp8;
}
/// AMP (bf16, fp16, and the FP8 recipes over bf16): 16-bit working copies of fp32 master
/// weights.
inline bool is_amp(MixedPrecision p) {
  return p == MixedPrecision::kBf16 || p == MixedPrecision::kFp16 || is_fp8(p);
}
/// The matmuls run in bf16 (bf16 AMP or pure-bf16; under the FP8 recipes, every matmul but the
/// linear layers': attention, the output head).
inline bool computes_in_bf16(MixedPrecision p) {
  return p == MixedPrecision::kBf16 || p == MixedPrecision::kPureBf16 || is_fp8(p);
}

struct TrainingOptions {
  Optimizer optimizer = Optimizer::kAdamw;
  MixedPrecision mixed_precision = MixedPrecision::kBf16;
  Recompute recompute = Recompute::kNone;
  /// With kSelective: the RecomputeModule bits given (gradient_checkpointing as a list); 0 =
  /// "selective" alone, Megatron's default core_attn.
  uint8_t recompute_modules = 0;
  bool flash_attention = true;
  int64_t lora_rank = 8;
  std::vector<std::string> lora_targets;     ///< HF module names; {"all-linear"} by default
  std::vector<std::string> modules_to_save;  ///< fully trained besides LoRA: embed_tokens, lm_head
  int zero_stage = 0;
  Offload offload = Offload::kNone;
  int64_t grad_accum = 1;
  int64_t global_batch = 0;   ///< 0: batch * grad_accum * dp
  double tokens = 0;          ///< total training tokens, 0 = not given
  bool chunked_loss = false;  ///< loss computed in chunks (torchtune, Liger): no full fp32 logits
  bool optimizer_in_backward = false;  ///< each gradient applied and freed as it is produced
  bool activation_offload = false;     ///< saved activations moved to host memory
  /// torch.compile on (torchtune `compile: True`); the estimate models only its compiled
  /// chunked cross-entropy (compute_cross_entropy compiled with the upcast).
  bool compile = false;
  int64_t trainable_layers = 2;  ///< freeze task: the last N layers train (LLaMA-Factory default)
};

}  // namespace gpusizer
