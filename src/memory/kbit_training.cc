// k-bit (bitsandbytes) fine-tuning as Hugging Face PEFT prepares it.
//
// PEFT's prepare_model_for_kbit_training (src/peft/utils/other.py), which TRL's SFTTrainer calls
// for every model loaded in 4 or 8 bits that is not sharded (trl/trainer/sft_trainer.py), casts
// every fp16/bf16 parameter to fp32: all but the quantized Params4bit/Int8Params, i.e. the token
// embedding, the untied lm_head, the norms and the biases. Two consequences for memory:
//   1. those parameters take 4 B instead of 2 B;
//   2. the embedding's output is fp32, RMSNorm multiplies by an fp32 weight (transformers
//      LlamaRMSNorm returns weight * hidden.to(input_dtype)), and bitsandbytes' Linear4bit and
//      Linear8bitLt return their output in the input's dtype (bitsandbytes/nn/modules.py:
//      `out = bnb.matmul_4bit(...); out = out.to(inp_dtype)`), so the residual stream and the
//      MLP intermediates stay fp32 even under bf16 autocast. Gradient checkpointing then saves
//      fp32 layer inputs. Only FlashAttention's Q/K/V/output are cast back to 16 bits
//      (transformers modeling_flash_attention_utils: fp32 inputs are cast to the target dtype;
//      SDPA runs in the autocast dtype).
// The quantized weights themselves are unchanged: NF4 with double quantization stores 4 bits per
// value + one 8-bit absmax per 64 values + one fp32 second-level absmax per 256 blocks
// (bitsandbytes functional.quantize_4bit, blocksize 64; compress_statistics quantizes absmax with
// blocksize 256): 4 + 8/64 + 32/(64*256) = 4.127 bits (data/formats.csv nf4).
#include "memory/kbit_training.h"

#include <algorithm>

namespace gpusizer::memory {

namespace {

// kbit_fp32_upcast but its test of the sharding.
bool upcast_unless_sharded(const Scenario& s, const EngineProfile& engine) {
  if (s.task != Task::kQlora) return false;
  // GPTQ checkpoints are skipped by PEFT (is_gptq_quantized); only bitsandbytes formats count.
  if (s.weights->kind == "gguf" || s.weights->id.rfind("gptq", 0) == 0 ||
      s.weights->id.rfind("awq", 0) == 0)
    return false;
  return engine.kbit_training_fp32_upcast;
}

}  // namespace

bool kbit_fp32_upcast(const Scenario& s, const EngineProfile& engine) {
  return !kbit_upcast_skipped(s) && upcast_unless_sharded(s, engine);
}

double kbit_upcast_extra_bytes(const Scenario& s, const EngineProfile& engine,
                               const ParamCounts& params) {
  return kbit_upcast_skipped(s) ? 0 : kbit_upcast_extra_bytes_unsharded(s, engine, params);
}

double kbit_upcast_extra_bytes_unsharded(const Scenario& s, const EngineProfile& engine,
                                         const ParamCounts& p) {
  if (!upcast_unless_sharded(s, engine)) return 0;
  if (!p.computed) return 0;
  // Biases are folded into `attention` and are small; the 16-bit parameters that grow are the
  // embedding, the untied head and the norms: +2 B each (fp32 4 B instead of bf16 2 B).
  // device_map pipelines (hf, pp > 1) put the embedding on the first GPU and the head on the
  // last; the busiest GPU holds the larger of the two and its share of the norms.
  const double pp = static_cast<double>(std::max<int64_t>(1, s.parallel.pp));
  const double edge = pp > 1 ? static_cast<double>(std::max(p.embedding, p.lm_head))
                             : static_cast<double>(p.embedding + p.lm_head);
  return 2.0 * (edge + static_cast<double>(p.norms) / pp);
}

}  // namespace gpusizer::memory
