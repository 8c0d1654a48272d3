#pragma once
// The speed profile's entries (data/speed.json) for each row of the catalog's engines, GPUs and
// number formats, looked up by name once when the catalog is read: resolve_lookups
// (scenario/lookups.cc) then reads a scenario's entries by the rows' positions instead of ten
// searches of the profile's string-keyed maps per scenario (issue 18: ~2.0k instructions a JSONL
// line). Every entry is what the SpeedProfile accessor of the same name gives for the row's
// names; the figures are copies, so the index owes nothing to the catalog's own tables.
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "gpusizer/engine_profile.h"
#include "gpusizer/gpu.h"
#include "gpusizer/number_format.h"
#include "gpusizer/speed_profile.h"

namespace gpusizer {

class SpeedIndex {
 public:
  SpeedIndex() = default;
  SpeedIndex(const SpeedProfile& profile, const std::vector<EngineProfile>& engines,
             const std::vector<Gpu>& gpus, const std::vector<NumberFormat>& formats);

  /// profile.inference(engine.name) and profile.training(engine.name) for engine row `e`.
  const InferenceProfile& inference(size_t e) const { return engines_[e].inference; }
  const TrainingProfile& training(size_t e) const { return engines_[e].training; }
  /// For GPU row `g`: profile.vendor(vendor), fp16_accumulate_factor(vendor, segment),
  /// training_attention_backward(architecture family) and matmul_fraction(id).
  KernelScale vendor(size_t g) const { return gpus_[g].vendor; }
  double fp16_accumulate_factor(size_t g) const { return gpus_[g].fp16_accumulate_factor; }
  double training_attention_backward(size_t g) const {
    return gpus_[g].training_attention_backward;
  }
  double matmul_fraction(size_t g) const { return gpus_[g].matmul_fraction; }
  /// profile.fp8_matmul_fraction(id) for GPU row `g`.
  double fp8_matmul_fraction(size_t g) const { return gpus_[g].fp8_matmul_fraction; }
  /// profile.matmul_fraction(""): the default.
  double matmul_fraction_default() const { return matmul_fraction_default_; }
  /// profile.weight_kernel(kind) for format row `f`.
  KernelScale weight_kernel(size_t f) const { return weight_kernels_[f]; }
  /// profile.attention_efficiency(engine name, GPU architecture family).
  double attention_efficiency(size_t e, size_t g) const { return attention_[e * gpu_count_ + g]; }
  /// profile.bitsandbytes(engine name, format id), or nullptr.
  const BitsandbytesKernel* bitsandbytes(size_t e, size_t f) const {
    const std::optional<BitsandbytesKernel>& k = bitsandbytes_[e * format_count_ + f];
    return k ? &*k : nullptr;
  }

 private:
  struct EngineEntries {
    InferenceProfile inference;
    TrainingProfile training;
  };
  struct GpuEntries {
    KernelScale vendor;
    double fp16_accumulate_factor = 1, training_attention_backward = 0, matmul_fraction = 0,
           fp8_matmul_fraction = 0;
  };
  std::vector<EngineEntries> engines_;
  std::vector<GpuEntries> gpus_;
  std::vector<KernelScale> weight_kernels_;
  std::vector<double> attention_;                                // [engine][gpu]
  std::vector<std::optional<BitsandbytesKernel>> bitsandbytes_;  // [engine][format]
  size_t gpu_count_ = 0, format_count_ = 0;
  double matmul_fraction_default_ = 0;
};

/// The position of `row` in `rows`, or rows.size() when it is not one of them (a row built by
/// hand, another catalog's).
template <typename T>
size_t row_position(const std::vector<T>& rows, const T* row) {
  const T* begin = rows.data();
  if (!row || std::less<const T*>()(row, begin) || !std::less<const T*>()(row, begin + rows.size()))
    return rows.size();
  return static_cast<size_t>(row - begin);
}

}  // namespace gpusizer
