// Activation memory.
// Training: the tensors autograd saves for the backward pass, counted per layer as Korthikanti et
// al. 2022 ("Reducing Activation Recomputation in Large Transformer Models", sec. 4.1: sbh(34 +
// 5as/h) for GPT-3), redone tensor by tensor for today's layers: gated MLPs, GQA, FlashAttention
// (Dao 2022: saves Q, K, V, the output and the log-sum-exp, never the s x s scores), no dropout,
// frozen weights (a frozen Linear keeps no input: its backward needs only the weight), LoRA
// adapters (PEFT casts their input to the adapter's fp32), and the logits and cross-entropy spike.
// Inference: the largest set of tensors alive at once inside one layer of a no-grad forward.
#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

#include "core/text_append.h"
#include "core/text_format.h"
#include "memory/fp8_training.h"
#include "memory/kbit_training.h"
#include "memory/memory_parts.h"
#include "scenario/lookups.h"

namespace gpusizer::memory {
namespace {

// torchtune CEWithChunkedOutputLoss (modules/loss/ce_chunked_output_loss.py): bf16 chunks 2 B +
// saved fp32 log-softmax 4 B per logit in eager mode; compiled, the bf16 chunks and one of its
// num_output_chunks = 8 chunks' bf16 gradient: 2 + 2 / 8 B (see the loss term below).
constexpr double kChunkedLossBytesPerLogit = 6.0;
constexpr double kCompiledChunkedLossBytesPerLogit = 2.0 + 2.0 / 8.0;

struct Widths {
  double d = 0, q = 0, kv = 0, ff = 0;  // per token: hidden, query/out, key/value, MLP width
  double heads = 0;
};

// Widths on one TP rank. MLP width of a MoE layer counts the k routed experts a token visits
// plus the shared expert.
Widths widths(const Scenario& s) {
  const Model& m = *s.model;
  const double tp = static_cast<double>(s.parallel.tp);
  Widths w;
  w.d = static_cast<double>(m.hidden_size);
  w.heads = static_cast<double>(m.num_heads) / tp;
  if (m.mla) {
    w.q =
        static_cast<double>(m.num_heads * (m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim)) / tp;
    w.kv = static_cast<double>(m.num_heads * (m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim +
                                              m.mla->v_head_dim)) /
           (2.0 * tp);
  } else {
    w.q = static_cast<double>(m.q_width()) / tp;
    w.kv = std::ceil(static_cast<double>(m.num_kv_heads) / tp) * static_cast<double>(m.head_dim);
  }
  if (m.is_moe()) {
    const double dense_share =
        static_cast<double>(m.num_dense_layers) / static_cast<double>(m.num_layers);
    const double moe_ff = static_cast<double>(m.experts_per_token * m.moe_intermediate_size +
                                              m.shared_expert_intermediate_size);
    const double dense_ff = static_cast<double>(m.dense_intermediate_size);
    w.ff = (dense_share * dense_ff + (1 - dense_share) * moe_ff) / tp;
  } else {
    w.ff = static_cast<double>(m.intermediate_size) / tp;
  }
  return w;
}

bool full_training(const Scenario& s) {
  return s.task == Task::kFull || s.task == Task::kPretrain;
}

// Whether a module's weight trains (its input must then be saved for the weight gradient).
bool trains(const Scenario& s, std::string_view /*module*/) {
  if (full_training(s) || s.task == Task::kFreeze) return true;
  return false;
}

// The modules saved_bytes_per_token asks about, one bit each in a set of LoRA sites.
enum LoraSite : unsigned {
  kQProj = 1u << 0,
  kKProj = 1u << 1,
  kVProj = 1u << 2,
  kQAProj = 1u << 3,
  kKvAProj = 1u << 4,
  kOProj = 1u << 5,
  kGateProj = 1u << 6,
  kUpProj = 1u << 7,
  kDownProj = 1u << 8,
};

// Which of those modules carry a LoRA adapter, matched once per estimate (issue 18: matching the
// targets by name at each of the dozen questions cost more than the arithmetic around them).
unsigned lora_sites(const Scenario& s) {
  if (s.task != Task::kLora && s.task != Task::kQlora) return 0;
  static constexpr std::pair<std::string_view, unsigned> kSites[] = {
      {"q_proj", kQProj},
      {"k_proj", kKProj},
      {"v_proj", kVProj},
      {"q_a_proj", kQAProj},
      {"kv_a_proj_with_mqa", kKvAProj},
      {"o_proj", kOProj},
      {"gate_proj", kGateProj},
      {"up_proj", kUpProj},
      {"down_proj", kDownProj}};
  const auto& targets = s.training.lora_targets;
  // "all-linear" selects every matrix but the router (lora_target_matches): all of these.
  using namespace std::string_view_literals;  // sizes compared first, no strlen
  if (std::find(targets.begin(), targets.end(), "all-linear"sv) != targets.end()) return ~0u;
  unsigned sites = 0;
  for (const auto& [module, bit] : kSites)
    for (const auto& t : targets)
      if (lora_target_matches(t, module)) sites |= bit;
  return sites;
}

double activation_bytes(const Scenario& s) {
  return s.training.mixed_precision == MixedPrecision::kFp32 ? 4.0 : 2.0;
}

// Values a gated MLP's activation saves per unit of its width: the gate output (SiLU input),
// act(gate) and the up output (the product's operands), or under a fused SwiGLU the gate and up
// outputs alone, SiLU recomputed (engines.json fused_swiglu).
double gated_activation_widths(const EngineProfile& engine) {
  return engine.fused_swiglu ? 2.0 : 3.0;
}

// A MoE layer's saved tensors besides its MLP, per token: the router's logits in fp32 and the k
// expert outputs kept for the weighted sum, `a` bytes each.
double moe_router_and_outputs(const Model& m, double a, double d) {
  return 4.0 * static_cast<double>(m.num_experts) +
         a * d * static_cast<double>(m.experts_per_token);
}

// Bytes of the residual stream and the linear outputs: fp32 when PEFT has cast the embedding and
// norms to fp32 for a bitsandbytes QLoRA run (bitsandbytes Linear4bit returns its output in the
// input's dtype), else the activation dtype (memory/kbit_training.cc).
double hidden_bytes(const Scenario& s, const EngineProfile& engine) {
  return kbit_fp32_upcast(s, engine) ? 4.0 : activation_bytes(s);
}

// Bytes autograd saves per token in one layer (no recomputation); `flash`: the attention core
// saves what FlashAttention keeps (also what selective recomputation leaves of eager attention).
// `lora_on`: lora_sites(s), the modules that carry an adapter.
double saved_bytes_per_token(const Scenario& s, const EngineProfile& engine, unsigned lora_on,
                             bool* eager_part, double context, bool flash) {
  const Model& m = *s.model;
  const Widths w = widths(s);
  const double a = hidden_bytes(s, engine);
  const double a_attn = activation_bytes(s);  // attention kernels run in 16 bits
  const bool sp = s.parallel.sequence_parallel;
  const double tp = static_cast<double>(s.parallel.tp);
  // Norm inputs, and the norm outputs that feed the projections, are replicated over TP ranks
  // unless sequence parallelism splits them (Korthikanti et al. sec. 4.2.2).
  const double rep = sp ? 1.0 / tp : 1.0;
  const double norm_in = (engine.norm_saves_fp32_input ? 4.0 : a) * w.d * rep;
  // A trained Linear's saved input: under an FP8 recipe with Transformer Engine, the FP8
  // column-wise copy its weight gradient reads, not the 16-bit input (fp8_training.h).
  const double in_bytes = saved_input_bytes(s, engine, a);
  // LoRA's saved input: an fp32 copy per adapted module under pure low precision (PEFT
  // _cast_input_dtype), a 16-bit autocast copy under AMP.
  const double lora_in_bytes = is_amp(s.training.mixed_precision) ? 2.0 : 4.0;
  const double r = static_cast<double>(s.training.lora_rank);
  auto lora = [&](unsigned site, double in) {
    return (lora_on & site) ? lora_in_bytes * in + 4.0 * r : 0.0;
  };

  double bytes = 0;
  const int64_t norms = std::max<int64_t>(1, m.norms_per_layer);
  bytes += static_cast<double>(norms) * norm_in;
  // Attention block.
  const bool proj_trains = trains(s, "q_proj");
  if (proj_trains) bytes += in_bytes * w.d * rep;  // shared input of q/k/v
  // A fused q/k/v Linear (fused_qkv) carries one adapter, so one copy of its input.
  constexpr unsigned kQkv = kQProj | kKProj | kVProj;
  if ((lora_on & kQkv) == kQkv && fused_qkv(m))
    bytes += lora(kQProj, w.d);
  else
    bytes += lora(kQProj, w.d) + lora(kKProj, w.d) + lora(kVProj, w.d);
  if (m.mla) bytes += lora(kQAProj, w.d) + lora(kKvAProj, w.d);
  if (flash) {
    // FlashAttention-2 saves Q, K, V (unrepeated), the output and fp32 log-sum-exp per head.
    bytes += a_attn * (w.q + 2.0 * w.kv) + a_attn * w.q + 4.0 * w.heads;
    // The output is o_proj's input too; an FP8 o_proj saves its own FP8 copy of it beside.
    if (in_bytes != a && trains(s, "o_proj")) bytes += in_bytes * w.q;
  } else {
    // Eager attention (transformers eager_attention_forward): repeated K and V, fp32 softmax
    // output and its 16-bit copy over the whole context.
    bytes += a * 3.0 * w.q + (4.0 + a) * w.heads * context;
    if (trains(s, "o_proj") || (lora_on & kOProj)) bytes += in_bytes * w.q;
    *eager_part = true;
  }
  bytes += lora(kOProj, w.q);
  // MLP block.
  if (trains(s, "gate_proj")) bytes += in_bytes * w.d * rep;
  if (m.gated_mlp) {
    bytes += gated_activation_widths(engine) * a * w.ff;
    if (trains(s, "down_proj") || (lora_on & kDownProj)) bytes += in_bytes * w.ff;
    bytes += lora(kGateProj, w.d) + lora(kUpProj, w.d) + lora(kDownProj, w.ff);
  } else {
    bytes += a * w.ff;  // GELU input
    if (trains(s, "down_proj") || (lora_on & kDownProj)) bytes += in_bytes * w.ff;
    bytes += lora(kUpProj, w.d) + lora(kDownProj, w.ff);
  }
  if (m.is_moe()) {
    const double moe_share =
        static_cast<double>(m.num_moe_layers) / static_cast<double>(m.num_layers);
    bytes += moe_share * moe_router_and_outputs(m, a, w.d);
  }
  return bytes;
}

// Bytes per token and layer that Megatron-Core's selective recompute_modules `mods` free
// (transformer_config.py; each module's saved tensors as saved_bytes_per_token counts them):
// - mla_up_proj (output-discarding): the per-head Q, K and V FlashAttention keeps, made again from
//   the latents in the backward (multi_latent_attention.py qkv_up_checkpoint);
// - mlp / moe (checkpointed): a dense / MoE layer's MLP keeps its input alone, the hidden state;
// - moe_act (output-discarding): the routed experts' activation output, where fc2 keeps it in 16
//   bits (an FP8 fc2 keeps its own copy); shared_experts: the shared experts' tensors;
// - core_attn is the attention core's (the caller's), layernorm is not counted: with Transformer
//   Engine the norm feeding a linear is fused into it and its output is the linear's saved input.
double recomputed_module_bytes(const Scenario& s, const EngineProfile& engine, uint8_t mods) {
  const Model& m = *s.model;
  const double tp = static_cast<double>(s.parallel.tp);
  const double a = hidden_bytes(s, engine), in = saved_input_bytes(s, engine, a);
  const double d = static_cast<double>(m.hidden_size);
  const double rep = s.parallel.sequence_parallel ? 1.0 / tp : 1.0;
  const double act = gated_activation_widths(engine);
  // One MLP of width ff on a rank: its gate/up input, the activation's tensors, fc2's input.
  const auto mlp = [&](double ff) {
    return in * d * rep + (m.gated_mlp ? act : 1.0) * a * ff + in * ff;
  };
  double freed = 0;
  if ((mods & kRecomputeMlaUpProj) && m.mla && s.training.flash_attention) {
    const MlaDims& x = *m.mla;
    const double heads = static_cast<double>(m.num_heads) / tp;
    freed += activation_bytes(s) * heads *
             static_cast<double>(2 * (x.qk_nope_head_dim + x.qk_rope_head_dim) + x.v_head_dim);
  }
  const double moe_share =
      m.is_moe() ? static_cast<double>(m.num_moe_layers) / static_cast<double>(m.num_layers) : 0.0;
  if (mods & kRecomputeMlp) {
    const double dense_ff =
        static_cast<double>(m.is_moe() ? m.dense_intermediate_size : m.intermediate_size) / tp;
    freed += (1.0 - moe_share) * (mlp(dense_ff) - a * d * rep);
  }
  if (moe_share <= 0) return freed;
  const double routed = static_cast<double>(m.experts_per_token * m.moe_intermediate_size) / tp;
  const double shared = static_cast<double>(m.shared_expert_intermediate_size) / tp;
  if (mods & kRecomputeMoe)
    return freed +
           moe_share * (mlp(routed + shared) + moe_router_and_outputs(m, a, d) - a * d * rep);
  if ((mods & kRecomputeMoeAct) && in == a) freed += moe_share * a * routed;
  if (mods & kRecomputeSharedExperts)
    freed += moe_share * ((m.gated_mlp ? act : 1.0) * a + in) * shared;
  return freed;
}

// Largest linear weight: QLoRA dequantizes one at a time to 16-bit (bitsandbytes MatMul4Bit).
// `modules`: linear_modules(s.model) where the caller counted the model (ModelCounts::modules),
// else listed here (issue 18: listed again, ~180 instructions, in each QLoRA estimate and in
// each of a search's QLoRA batch misses).
double largest_matrix_bytes(const Scenario& s, const LinearModules* modules) {
  const auto largest_of = [&s](const LinearModules& mods) {
    double largest = 0;
    for (const auto& mod : mods)
      largest = std::max(largest, static_cast<double>(mod.in * mod.out) * 2.0);
    return largest / static_cast<double>(s.parallel.tp);
  };
  return modules ? largest_of(*modules) : largest_of(linear_modules(*s.model));
}

// Micro-batches whose activations the first pipeline stage holds at once: 1F1B keeps up to pp
// in flight; interleaving adds (pp-1)/(pp*v) (Korthikanti et al. sec. 4.2.3). A naive pipeline
// (Hugging Face accelerate's device_map layer split, engines.json naive_pipeline) runs one
// micro-batch at a time (no schedule).
double pipeline_in_flight(const Scenario& s, const EngineProfile& engine) {
  if (s.parallel.pp <= 1 || engine.naive_pipeline) return 1;
  const double pp = static_cast<double>(s.parallel.pp);
  double in_flight = std::min(pp, static_cast<double>(s.training.grad_accum));
  if (s.parallel.pp_interleave > 1)
    in_flight *= 1.0 + (pp - 1.0) / (pp * static_cast<double>(s.parallel.pp_interleave));
  return in_flight;
}

// The transformer layers' saved tensors on one GPU under the recomputation policy: `layers`
// layers of `in_flight` micro-batches of `tokens` tokens, `per_layer` bytes per token each.
double saved_layer_activations(const Scenario& s, const EngineProfile& engine, unsigned lora_on,
                               const Explanations* why, double layers, double in_flight,
                               double tokens, double per_layer, bool eager, std::string& text) {
  const double tp = static_cast<double>(s.parallel.tp);
  const double a = hidden_bytes(s, engine);
  // Share of the sequence whose residual-stream tensors one TP rank holds: 1/tp under sequence
  // parallelism, the whole sequence otherwise (Megatron TP replicates them).
  const double seq_share = s.parallel.sequence_parallel ? 1.0 / tp : 1.0;
  switch (s.training.recompute) {
    case Recompute::kFull:
      // Checkpointing keeps each layer's input and recomputes one layer at a time. Under
      // sequence parallelism the layer input is the sequence-sharded residual stream: each TP
      // rank keeps s/t of it (Korthikanti et al. 2022 sec. 4.2.2 and table 2, "full
      // recomputation" row: 2sbh/t per layer with SP; Megatron-LM transformer_block.py
      // _checkpointed_forward saves the SP-scattered hidden_states; torchtitan's TP plan
      // (parallelize_llama: SequenceParallel norms, RowwiseParallel outputs Shard(1)) does the
      // same before checkpoint_wrapper).
      if (why)
        text += seq_share < 1.0 ? "full recomputation: L x seq/tp x batch x hidden x bytes "
                                  "(sequence parallel) + one layer's saved tensors"
                                : "full recomputation: L x seq x batch x hidden x bytes + one "
                                  "layer's saved tensors";
      return (layers * in_flight * a * static_cast<double>(s.model->hidden_size) * seq_share +
              per_layer) *
             tokens;
    case Recompute::kSelective: {
      const uint8_t mods = s.training.recompute_modules;
      if (mods == 0 || (mods & kRecomputeCoreAttn)) {
        bool unused = false;
        per_layer = saved_bytes_per_token(s, engine, lora_on, &unused, 0, true);
      }
      if (why)
        text += mods == 0 ? "selective recomputation: per-layer saved tensors without attention "
                            "scores"
                          : "selective recomputation of Megatron-Core's recompute_modules: "
                            "per-layer saved tensors without theirs";
      if (mods != 0) per_layer -= recomputed_module_bytes(s, engine, mods);
      return layers * in_flight * per_layer * tokens;
    }
    default:
      if (wants_basis(why))
        append_text(text, "L x seq x batch x ", Fixed{per_layer, 0},
                    " B per token per layer (tensors autograd saves; Korthikanti et al. 2022 "
                    "accounting, ",
                    std::string_view(eager ? "eager attention" : "FlashAttention"), ')');
      return layers * in_flight * per_layer * tokens;
  }
}

double training_activations(const Scenario& s, const EngineProfile& engine, const Explanations* why,
                            const LinearModules* modules, std::string& text) {
  const Model& m = *s.model;
  // Context parallelism: each rank keeps the activations of its seq / cp tokens (Megatron-Core
  // context parallel docs: activation memory / cp); its queries still see the whole sequence,
  // so the per-token bytes keep the full context.
  const double tokens = static_cast<double>(s.batch * s.seq_len) /
                        static_cast<double>(std::max<int64_t>(1, s.parallel.cp));
  const double tp = static_cast<double>(s.parallel.tp);
  bool eager = false;
  const unsigned lora_on = lora_sites(s);
  const double per_layer = saved_bytes_per_token(
      s, engine, lora_on, &eager, static_cast<double>(s.seq_len), s.training.flash_attention);
  // Layers that save anything: all, or only the trainable top layers when freeze-tuning.
  double layers = static_cast<double>(m.num_layers);
  if (s.task == Task::kFreeze)
    layers = std::min(layers, static_cast<double>(s.training.trainable_layers));
  layers = std::ceil(layers / static_cast<double>(s.parallel.pp));
  double saved =
      saved_layer_activations(s, engine, lora_on, why, layers, pipeline_in_flight(s, engine),
                              tokens, per_layer, eager, text);
  if (s.training.activation_offload) {
    // Saved tensors stream to host memory (torchtune OffloadActivations); the layer being
    // recomputed or back-propagated, and the next one in flight, stay on the GPU.
    saved = (s.training.recompute == Recompute::kFull ? 1.0 : 2.0) * per_layer * tokens;
    text.assign(why ? "activations offloaded to host: the layer in backward (and one in flight) "
                      "resident"
                    : "");
  }
  // Loss: the logits and the cross-entropy on the last stage (vocabulary split over TP).
  // Chunked cross-entropy (torchtune CEWithChunkedOutputLoss) keeps the bf16 chunk outputs (2 B)
  // and every chunk's saved fp32 log-softmax (4 B); the fp32 upcast and the gradients exist for
  // one chunk at a time.
  double per_logit =
      s.training.chunked_loss ? kChunkedLossBytesPerLogit : engine.loss_bytes_per_logit;
  // Compiled, the upcast and the cross-entropy of each chunk are one graph (torchtune
  // training.compile_loss compiles CEWithChunkedOutputLoss.compute_cross_entropy when
  // `compile: True`; the class docstring: "The CE and upcasting have to be compiled together").
  // AOTAutograd's min-cut partitioner recomputes the upcast, exp and sum in the backward from the
  // bf16 chunk it saves, so no fp32 log-softmax is kept: the bf16 chunks (2 B per logit) plus, in
  // the backward, one chunk's bf16 gradient (2 B over num_output_chunks = 8).
  if (s.training.chunked_loss && s.training.compile) per_logit = kCompiledChunkedLossBytesPerLogit;
  if (!m.loss_upcast_fp32 && !s.training.chunked_loss)
    per_logit = engine.loss_bytes_per_logit_16bit;
  const double loss = tokens * static_cast<double>(m.vocab_size) * per_logit / tp;
  // Final norm input and the embedding output; sequence-sharded under sequence parallelism
  // (the vocabulary-parallel embedding reduce-scatters its output along the sequence, Megatron
  // VocabParallelEmbedding with sequence_parallel; torchtitan RowwiseParallel(output_layouts=
  // Shard(1)) on tok_embeddings and SequenceParallel on the final norm).
  const double seq_share = s.parallel.sequence_parallel ? 1.0 / tp : 1.0;
  const double edges =
      tokens * static_cast<double>(m.hidden_size) * (4.0 + hidden_bytes(s, engine)) * seq_share;
  double total = saved + loss + edges;
  if (why)
    append_text(text, "; + loss spike seq x batch x vocab x ", General{per_logit}, " B",
                std::string_view(!s.training.chunked_loss ? ""
                                 : s.training.compile     ? " (compiled chunked cross-entropy)"
                                                          : " (chunked cross-entropy)"));
  if (s.task == Task::kQlora) {
    total += largest_matrix_bytes(s, modules);
    if (why) text += "; + one dequantized 16-bit weight (QLoRA)";
  }
  return total;
}

// CV networks have no per-layer architecture here: ~ params-proportional model states plus
// activations from the forward FLOPs. A ResNet-50 at 224 px saves ~100 MB per image in fp32
// (torchvision training recipes fit batch 32 in 16 GB of V100 memory, NVIDIA DL examples).
double cv_activations(const Scenario& s, const Explanations* why, std::string& text) {
  const double scale =
      std::pow(static_cast<double>(s.image_size) /
                   static_cast<double>(std::max<int64_t>(1, s.model->cv_resolution)),
               2.0);
  // Saved activation elements scale with FLOPs per image: about 3 elements per kFLOP of
  // forward work for convolutional nets (ResNet-50: 8.2 GFLOPs, ~25M saved elements).
  const double elements = s.model->cv_gflops_per_image * 1e9 * scale * 3.0e-3;
  const double a = activation_bytes(s);
  if (why)
    text +=
        "forward GFLOPs x image-size scale x 3 saved elements per kFLOP x batch x "
        "bytes (ResNet-50: ~25M saved values per 224 px image)";
  return elements * a * static_cast<double>(s.batch);
}

}  // namespace

double inference_transient_bytes_per_token(const Scenario& s, double a) {
  const Widths w = widths(s);
  const Model& m = *s.model;
  // MLP: gate/up outputs and their product alive together; MoE kernels keep the k experts'
  // intermediate caches (vLLM fused_moe: 2*ffe + ffe + d per routed token).
  double mlp = m.gated_mlp ? 3.0 * w.ff : 2.0 * w.ff;
  if (m.is_moe())
    mlp = std::max(mlp, static_cast<double>(m.experts_per_token) *
                            (3.0 * static_cast<double>(m.moe_intermediate_size) + w.d) /
                            static_cast<double>(s.parallel.tp));
  const double attention = 2.0 * w.q + 2.0 * w.kv;
  // The residual stream and the normalised copy live beside the block's tensors.
  return a * (std::max(mlp, attention) + 2.0 * w.d);
}

namespace {

// A preallocating engine: the start-up profile run of this release, one forward over its token
// budget, then the sampler over min(max_num_seqs, tokens) rows (vLLM V0
// worker.determine_num_available_blocks, V1 gpu_model_runner.profile_run; budgets by release and
// GPU in data/engines.json).
double profile_run_activations(const Scenario& s, const EngineProfile& engine,
                               const EngineRelease& rel, const Explanations* why,
                               int64_t built_tokens, std::string& text) {
  // The engine's max_model_len is the scenario's sequence length unless it was given; its token
  // budget the scenario's, else the one it was built with, else the release's default.
  ProfileRun run =
      profile_run(rel, s.max_num_batched_tokens > 0 ? s.max_num_batched_tokens : built_tokens,
                  s.engine_max_model_len(), s.gpu ? s.gpu->memory_gb : 0.0, s.gpu ? s.gpu->id : "");
  // The sampler's rows are --max-num-seqs; a TensorRT engine's logits are its runtime buffers,
  // counted per slot with the non-torch memory (trt_runtime.cc), not here.
  if (s.max_num_seqs > 0 && rel.runtime_max_batch <= 0) run.seqs = s.max_num_seqs;
  const double tokens = static_cast<double>(run.tokens);
  const double seqs = static_cast<double>(std::min(run.seqs, run.tokens));
  const double per_token = inference_transient_bytes_per_token(s, 2.0);
  // The sampler sees the whole vocabulary on every rank (logits are gathered).
  const double sampler =
      seqs * static_cast<double>(s.model->vocab_size) * rel.sampler_bytes_per_logit;
  const double forward = tokens * per_token;
  if (wants_basis(why)) {  // appended piece by piece (core/text_append.h, issue 18)
    append_text(text, "larger of the profile forward (", General{tokens}, " tokens x ",
                Fixed{per_token, 0}, " B/token) and the sampler (", General{seqs},
                " seqs x vocab x ", General{rel.sampler_bytes_per_logit}, " B), ", engine.name, ' ',
                rel.version);
  }
  return std::max(forward, sampler);
}

// llama.cpp's ggml compute buffer: one ubatch of f32 intermediates, the attention scores without
// flash attention, and the output rows (llama-context.cpp graph_reserve for the worst case).
double compute_buffer_activations(const Scenario& s, const EngineProfile& engine,
                                  const Explanations* why, std::string& text) {
  const Model& m = *s.model;
  const double ub =
      static_cast<double>(std::min<int64_t>(engine.default_ubatch, s.seq_len * s.batch));
  const double per_token = inference_transient_bytes_per_token(s, engine.activation_bytes);
  double bytes = ub * per_token + ub * static_cast<double>(m.vocab_size) * 4.0;
  if (wants_basis(why))
    format_text_to(text,
                   FMT_COMPILE("compute buffer: ubatch {:g} x ({:.0f} B f32 intermediates + "
                               "vocab x 4 B logits)"),
                   ub, per_token);
  if (!s.training.flash_attention) {
    bytes += ub * static_cast<double>(s.seq_len) * static_cast<double>(m.num_heads) * 4.0;
    if (why) text += " + ubatch x ctx x heads x 4 B scores";
  }
  return bytes;
}

// Hugging Face generate: the prefill of the whole prompt is the largest forward.
double generate_activations(const Scenario& s, const EngineProfile& engine, const Explanations* why,
                            const LinearModules* modules, std::string& text) {
  const Model& m = *s.model;
  const double V = static_cast<double>(m.vocab_size);
  const double tp = static_cast<double>(s.parallel.tp);
  const double prefill_tokens = static_cast<double>(s.batch * std::max<int64_t>(1, s.prompt_len));
  const double a = s.weights->compute_dtype == "fp32" ? 4.0 : 2.0;
  double per_token = inference_transient_bytes_per_token(s, a);
  if (engine.norm_saves_fp32_input && a < 4.0)
    per_token += 4.0 * static_cast<double>(m.hidden_size);  // RMSNorm's fp32 copy
  double bytes = prefill_tokens * per_token;
  const bool explain = wants_basis(why);
  if (explain)
    format_text_to(text, FMT_COMPILE("prefill of batch x prompt = {:g} tokens x {:.0f} B/token"),
                   prefill_tokens, per_token);
  const double logit_rows =
      engine.logits_all_positions_in_generate ? prefill_tokens : static_cast<double>(s.batch);
  bytes += logit_rows * V * (a + 4.0) / tp;  // logits and their fp32 copy
  if (explain)
    format_text_to(text, FMT_COMPILE(" + logits of {:g} rows x vocab x {:g} B"), logit_rows,
                   a + 4.0);
  if (s.weights->id == "nf4" && prefill_tokens > 1) {
    // bitsandbytes 4-bit: a pass of more than one token dequantizes each weight to a 16-bit
    // copy before the GEMM (MatMul4Bit.forward, functional.dequantize_4bit), one at a time.
    bytes += largest_matrix_bytes(s, modules);
    if (why) text += " + one dequantized 16-bit weight (bitsandbytes 4-bit prefill)";
  }
  if (!s.training.flash_attention) {
    // Eager attention materialises batch x heads x prompt^2 scores in fp32 and 16-bit.
    const double p = static_cast<double>(std::max<int64_t>(1, s.prompt_len));
    bytes +=
        static_cast<double>(s.batch) * static_cast<double>(m.num_heads) / tp * p * p * (4.0 + a);
    if (why) text += " + eager attention scores batch x heads x prompt^2 x 6 B";
  }
  return bytes;
}

}  // namespace

double activations(const Scenario& s, const Catalog& catalog, Explanations* why) {
  return activations(s, engine_rules(s, catalog), why);
}

namespace {

// The activations' bytes; their formula appended to `text` when explaining.
double activation_part(const Scenario& s, const EngineRules& rules, const Explanations* why,
                       int64_t built_tokens, const LinearModules* modules, std::string& text) {
  const EngineProfile& engine = rules.engine;
  if (s.task == Task::kCvTrain) return cv_activations(s, why, text);
  if (is_training(s.task)) return training_activations(s, engine, why, modules, text);
  if (engine.kind == EngineKind::kPreallocating)
    return profile_run_activations(s, engine, *rules.release, why, built_tokens, text);
  if (engine.kind == EngineKind::kLlamaCpp) return compute_buffer_activations(s, engine, why, text);
  return generate_activations(s, engine, why, modules, text);
}

}  // namespace

double activations(const Scenario& s, const EngineRules& rules, Explanations* why,
                   int64_t built_tokens, const LinearModules* modules) {
  // The formula is built in a string the thread keeps, cleared, and copied into the basis (issue
  // 18: each kind's text was a string of its own, allocated every estimate).
  thread_local std::string text;
  text.clear();
  const double bytes = activation_part(s, rules, why, built_tokens, modules, text);
  if (why) why->basis.set("activations_bytes", text);
  return bytes;
}

}  // namespace gpusizer::memory
