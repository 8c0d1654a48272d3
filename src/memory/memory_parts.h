#pragma once
// The memory estimator's parts, each a pure function of the scenario. Every part returns its
// bytes per GPU and the formula it used (the "basis" the output shows).
#include <fmt/compile.h>
#include <fmt/format.h>

#include <string>
#include <utility>

#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"

namespace gpusizer::memory {

struct Part {
  double bytes = 0;   ///< per GPU
  std::string basis;  ///< formula and source
};

/// fmt::format when `explain` is set, else nothing: searches over the batch need bytes only.
/// `format` is FMT_COMPILE("..."): parsed at compile time, since the basis strings are half of
/// an estimate's cost.
template <typename CompiledFormat, typename... Args>
std::string explain_if(bool explain, const CompiledFormat& format, const Args&... args) {
  static_assert(fmt::detail::is_compiled_string<CompiledFormat>::value,
                "wrap the format in FMT_COMPILE");
  return explain ? fmt::format(format, args...) : std::string();
}

/// Bytes the GPU lets a process use: marketed binary capacity less in-band ECC and the driver's
/// reservation (data/engines.json "device").
double usable_capacity(const Gpu& gpu, const Catalog& catalog);

/// Parameters that train: all (full, pretrain), LoRA adapters (+ modules_to_save copies), or the
/// last layers (freeze). 0 for inference.
double trainable_params(const Scenario& s);

/// Model weights held per GPU (frozen base for LoRA; working copy for full training).
Part weights(const Scenario& s, const Catalog& catalog, bool explain = true);

/// KV cache bytes per GPU for `sequences` sequences of `context` tokens each.
Part kv_cache(const Scenario& s, const Catalog& catalog, int64_t sequences, int64_t context,
              bool explain = true);

/// Peak activation memory per GPU: inference transients, or saved training activations + loss.
Part activations(const Scenario& s, const Catalog& catalog, bool explain = true);

/// Gradients, optimizer states and fp32 master weights per GPU after ZeRO sharding.
/// (`explain`: build the basis strings; searches that need bytes only pass false.)
Part gradients(const Scenario& s, const Catalog& catalog, bool explain = true);
Part optimizer_states(const Scenario& s, bool explain = true);
Part master_weights(const Scenario& s, bool explain = true);

/// Memory outside the framework's allocator: CUDA context, NCCL buffers (engine non-torch).
/// For a preallocating engine: the non-torch memory its release counts against the budget.
Part overhead(const Scenario& s, const Catalog& catalog, bool explain = true);

/// The process's own baseline: CUDA context + one NCCL communicator per parallel group.
Part process_baseline_part(const Scenario& s, const Catalog& catalog, bool explain = true);

/// Activation bytes per token of one layer in a no-grad forward (inference transients).
double inference_transient_bytes_per_token(const Scenario& s, double element_bytes);

}  // namespace gpusizer::memory
