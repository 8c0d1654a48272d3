#pragma once
// What the memory estimator returns: bytes per GPU by component at the process's peak, what
// fits and the KV pool (src/memory, estimate_memory). Keys and units as docs/contract.md.
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpusizer {

/// Memory per GPU in bytes at the process's peak.
struct MemoryEstimate {
  double weights = 0, kv_cache = 0, activations = 0, gradients = 0, optimizer = 0,
         master_weights = 0, overhead = 0;
  double allocated = 0;      ///< live tensors at the peak (torch.cuda.max_memory_allocated)
  double reserved = 0;       ///< caching allocator's peak (torch.cuda.max_memory_reserved)
  double total = 0;          ///< what the device shows (nvidia-smi)
  double low = 0, high = 0;  ///< uncertainty band around total
  std::optional<double> capacity;
  std::optional<bool> fits;
  std::optional<int64_t> max_batch;
  std::optional<int64_t> kv_cache_capacity_tokens;
  double kv_bytes_per_token = 0;  ///< per GPU, all layers, at the scenario's context
  double gradients_full = 0;      ///< all gradients, which exist at the end of backward
  /// Training: when the peak happens ("loss", "end of backward", ...): a literal, no allocation.
  std::string_view peak_phase;
};

}  // namespace gpusizer
