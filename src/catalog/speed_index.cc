#include "catalog/speed_index.h"

namespace gpusizer {

SpeedIndex::SpeedIndex(const SpeedProfile& p, const std::vector<EngineProfile>& engines,
                       const std::vector<Gpu>& gpus, const std::vector<NumberFormat>& formats)
    : gpu_count_(gpus.size()),
      format_count_(formats.size()),
      matmul_fraction_default_(p.matmul_fraction("")) {
  engines_.reserve(engines.size());
  for (const EngineProfile& e : engines)
    engines_.push_back({p.inference(e.name), p.training(e.name)});
  gpus_.reserve(gpus.size());
  for (const Gpu& g : gpus)
    gpus_.push_back({p.vendor(g.vendor), p.fp16_accumulate_factor(g.vendor, g.segment),
                     p.training_attention_backward(g.architecture_family()),
                     p.matmul_fraction(g.id), p.fp8_matmul_fraction(g.id)});
  weight_kernels_.reserve(formats.size());
  for (const NumberFormat& f : formats)
    weight_kernels_.push_back(p.weight_kernel(f.kind, f.bits_per_value));
  attention_.reserve(engines.size() * gpus.size());
  bitsandbytes_.reserve(engines.size() * formats.size());
  for (const EngineProfile& e : engines) {
    for (const Gpu& g : gpus)
      attention_.push_back(p.attention_efficiency(e.name, g.architecture_family()));
    for (const NumberFormat& f : formats) {
      const BitsandbytesKernel* k = p.bitsandbytes(e.name, f.id);
      bitsandbytes_.push_back(k ? std::optional<BitsandbytesKernel>(*k) : std::nullopt);
    }
  }
}

}  // namespace gpusizer
