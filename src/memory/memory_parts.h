#pragma once
// The memory estimator's parts, each a pure function of the scenario. Every part returns its
// bytes per GPU and writes the formula it used (the "basis" the output shows) into the sink it
// is given, under the figure's output key; a null sink asks for bytes only and no text is built.
#include <fmt/compile.h>
#include <fmt/format.h>

#include <iterator>
#include <string>
#include <utility>

#include "core/float_text.h"
#include "core/text_append.h"
#include "core/text_format.h"
#include "gpusizer/catalog.h"
#include "gpusizer/explanations.h"
#include "gpusizer/scenario.h"
#include "memory/model_counts.h"

namespace gpusizer::memory {

/// q, k and v are one Linear, so LoRA on them is one adapter pair over one input: Qwen v1's
/// c_attn (modeling_qwen.py QWenAttention: nn.Linear(hidden_size, 3 * projection_size); the
/// "qwen" family is only Qwen v1, Qwen2 onwards is "qwen2"). BLOOM, Falcon, GPT-NeoX and
/// ChatGLM fuse theirs too (query_key_value) but their catalog records carry no such field yet.
inline bool fused_qkv(const Model& m) {
  return m.family == "qwen";
}

/// A piece of a figure while a part builds it: bytes and, when explaining, its formula.
struct Part {
  double bytes = 0;   ///< per GPU
  std::string basis;  ///< formula and source; empty when not explaining
};

/// fmt::format when there is a sink to explain to, else nothing: searches over the batch need
/// bytes only. `format` is FMT_COMPILE("..."): parsed at compile time, since the basis strings
/// are half of an estimate's cost.
template <typename CompiledFormat, typename... Args>
std::string explain_if(const Explanations* why, const CompiledFormat& format, const Args&... args) {
  static_assert(fmt::detail::is_compiled_string<CompiledFormat>::value,
                "wrap the format in FMT_COMPILE");
  return wants_basis(why) ? format_text(format, args...) : std::string();
}

/// A double as "{:.Ng}" writes it, N = `digits` significant digits (printf's "%.*g"), as a piece
/// of append_text (core/text_append.h): float_text's fast path, fmt's own formatter for what it
/// declines, as format_text writes it (issue 18: the memory texts with a "{:.3g}" went through
/// fmt's compiled format, ~250 instructions a text more than their pieces appended).
struct Significant {
  double value;
  int digits;
};
constexpr size_t piece_room(Significant) {
  return kFloatTextChars;
}
inline char* put_piece(char* p, Significant g) {
  return general_text(p, g.value, g.digits);
}
inline void append_piece(std::string& out, Significant g) {
  char buf[kFloatTextChars];
  if (const char* end = general_text(buf, g.value, g.digits))
    out.append(buf, static_cast<size_t>(end - buf));
  else
    fmt::format_to(std::back_inserter(out), "{:.{}g}", g.value, g.digits);
}

/// Appends to the basis of `figure` (an output key, "weights_bytes") in `why`; null: nothing.
template <typename CompiledFormat, typename... Args>
void add_basis(Explanations* why, BasisKey figure, const CompiledFormat& format,
               const Args&... args) {
  static_assert(fmt::detail::is_compiled_string<CompiledFormat>::value,
                "wrap the format in FMT_COMPILE");
  if (why) append_text(why->basis, figure, format, args...);
}

/// Appends the pieces, as append_text (core/text_append.h) writes them, to the basis of `figure`
/// in `why`; null: nothing (issue 18: fmt's compiled format cost a clause with a number ~250
/// instructions more).
template <typename... Pieces>
void append_pieces(Explanations* why, BasisKey figure, const Pieces&... pieces) {
  if (why) why->basis.append_with(figure, [&](std::string& out) { append_text(out, pieces...); });
}

/// The part's bytes; its basis becomes the basis of `figure` in `why` when there is one.
inline double explained(Part&& part, BasisKey figure, Explanations* why) {
  if (why) why->basis.set(figure, part.basis);
  return part.bytes;
}

/// The same for a part whose basis is a fixed text.
inline double explained(double bytes, const char* basis, BasisKey figure, Explanations* why) {
  if (why) why->basis.set(figure, basis);
  return bytes;
}

/// The scenario's engine and, for a preallocating engine, the release whose rules apply, looked
/// up once per memory estimate: engine_profile() compares the engine's name and release() the
/// version strings, and the overhead, the activations and the KV pool each read them (issue 18).
struct EngineRules {
  const EngineProfile& engine;
  const EngineRelease* release = nullptr;  ///< engine.release(s.engine_version), looked up once
};
EngineRules engine_rules(const Scenario& s, const Catalog& catalog);

/// Bytes the GPU lets a process use: marketed binary capacity less in-band ECC and the driver's
/// reservation (data/engines.json "device").
double usable_capacity(const Gpu& gpu, const Catalog& catalog);

/// Parameters that train, by place: all (full, pretrain), LoRA adapters (+ modules_to_save
/// copies), or the last layers (freeze); zero for inference. `c` is the model's counts and
/// `adapter_params` its LoRA adapters' (model_counts.h; count_model calls this once per
/// estimate).
ModelBytes trainable_split(const Scenario& s, const ParamCounts& c, double adapter_params);

// Each part below writes its basis to why->basis under the key named after it; `why` may be
// null (bytes only). `counts` is count_model(s), counted once per estimate.

/// Model weights held per GPU (frozen base for LoRA; working copy for full training); `rules` is
/// engine_rules(s, catalog). Basis: "weights_bytes".
double weights(const Scenario& s, const Catalog& catalog, const EngineRules& rules,
               const ModelCounts& counts, Explanations* why);

/// KV cache bytes per GPU for `sequences` sequences of `context` tokens each.
/// Basis: "kv_cache_bytes".
double kv_cache(const Scenario& s, const Catalog& catalog, int64_t sequences, int64_t context,
                Explanations* why);

/// Peak activation memory per GPU: inference transients, or saved training activations + loss.
/// Basis: "activations_bytes".
double activations(const Scenario& s, const Catalog& catalog, Explanations* why);
/// The same with the engine's rules already looked up (`rules` = engine_rules(s, catalog)), and
/// for a preallocating engine the token budget its engine was built with when the scenario
/// gives none (`built_tokens`; 0: the release's default). `modules`: the model's linear modules
/// where the caller listed them (ModelCounts::modules), else listed when a formula reads them.
double activations(const Scenario& s, const EngineRules& rules, Explanations* why,
                   int64_t built_tokens = 0, const LinearModules* modules = nullptr);

/// Gradients, optimizer states and fp32 master weights per GPU after ZeRO sharding.
/// Bases: "gradients_bytes", "optimizer_bytes", "master_weights_bytes".
double gradients(const Scenario& s, const Catalog& catalog, const EngineRules& rules,
                 const ModelCounts& counts, Explanations* why);
double optimizer_states(const Scenario& s, const EngineRules& rules, const ModelCounts& counts,
                        Explanations* why);
double master_weights(const Scenario& s, const ModelCounts& counts, Explanations* why);

/// Memory outside the framework's allocator: CUDA context, NCCL buffers (engine non-torch).
/// For a preallocating engine: the non-torch memory its release counts against the budget.
/// Basis: "overhead_bytes".
double overhead(const Scenario& s, const Catalog& catalog, const EngineRules& rules,
                Explanations* why);

/// Activation bytes per token of one layer in a no-grad forward (inference transients).
double inference_transient_bytes_per_token(const Scenario& s, double element_bytes);

}  // namespace gpusizer::memory
