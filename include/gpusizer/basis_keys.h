#pragma once
// Every key a basis may hold (gpusizer/basis.h): the output names of the figures an estimate
// explains, in ascending byte order (std::map<std::string>'s, the order the JSON lists them).
// A BasisKey is resolved to its index here at compile time, so that writing a text is a load
// and a store instead of a search (issue 18); a key missing from this list does not compile.
#include <array>
#include <cstddef>
#include <string_view>

namespace gpusizer {

inline constexpr std::array<std::string_view, 37> kBasisKeys = {
    "activations_bytes",
    "annual_kwh",
    "bands",
    "btu_per_hour",
    "decode_roofline",
    "decode_tokens_per_s",
    "engine",
    "gpu_capacity_bytes",
    "gpu_watts",
    "gradients_bytes",
    "kv_cache_bytes",
    "kv_cache_bytes_per_token",
    "kv_cache_capacity_tokens",
    "load_bands",
    "load_batch",
    "load_tpot_ms",
    "load_ttft_ms",
    "master_weights_bytes",
    "max_output_tokens_per_s",
    "max_requests_per_s",
    "mfu",
    "node_watts",
    "offline_time_s",
    "optimizer_bytes",
    "outside_budget_bytes",
    "overhead_bytes",
    "params",
    "prefill_tokens_per_s",
    "reserved_bytes",
    "step_time_s",
    "total_bytes",
    "train_tokens_per_s",
    "ups_kva",
    "usd_per_hour",
    "usd_per_million_tokens",
    "usd_total",
    "weights_bytes",
};

inline constexpr size_t kBasisKeyCount = kBasisKeys.size();

namespace basis_keys_detail {
constexpr bool sorted() {
  for (size_t i = 1; i < kBasisKeyCount; ++i)
    if (!(kBasisKeys[i - 1] < kBasisKeys[i])) return false;
  return true;
}
}  // namespace basis_keys_detail
static_assert(basis_keys_detail::sorted(),
              "kBasisKeys must be in ascending byte order, no key twice");

/// The index of `key` in kBasisKeys, or kBasisKeyCount when it is not there.
constexpr size_t basis_key_index(std::string_view key) {
  size_t lo = 0, hi = kBasisKeyCount;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (kBasisKeys[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < kBasisKeyCount && kBasisKeys[lo] == key ? lo : kBasisKeyCount;
}

}  // namespace gpusizer
