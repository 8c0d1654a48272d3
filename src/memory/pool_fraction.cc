#include "memory/pool_fraction.h"

#include "gpusizer/units.h"

namespace gpusizer::memory {

// SGLang reads nvidia-smi's memory.total (python/sglang/srt/utils get_nvgpu_memory_capacity):
// the memory the driver keeps from CUDA is inside it, the in-band ECC of a datacenter GDDR card
// (data/engines.json device gddr_ecc_fraction) is not. nvidia-smi prints 81,920 MiB for an A100
// 80GB, 81,559 for an H100 80GB (0.4% less than the marketed 80 GiB), 24,564 for an RTX 4090 and
// 46,068 for an L40S (48 GiB less 1/16).
double smi_total_bytes(const Gpu& gpu, const DeviceProfile& device) {
  double bytes = gpu.memory_gb * kGiB;
  const bool gddr = gpu.memory_type.rfind("GDDR", 0) == 0;
  if (gddr && gpu.has_ecc() && gpu.segment == "datacenter") bytes *= 1.0 - device.gddr_ecc_fraction;
  return bytes;
}

// SGLang from v0.5.10 turns piecewise CUDA graphs off, among others, with pipeline parallelism
// and on HIP, NPU, CPU or XPU (python/sglang/srt/server_args.py, the auto-disable rules, later
// _disable_tc_piecewise_cudagraph_if_incompatible): here PP > 1 or a GPU not NVIDIA's.
bool piecewise_prefill_graphs(const Scenario& s) {
  return s.parallel.pp <= 1 && (!s.gpu || s.gpu->vendor == "NVIDIA");
}

FractionInputs fraction_inputs(const Scenario& s, const Catalog& catalog) {
  const double gpu = s.gpu ? smi_total_bytes(*s.gpu, catalog.device()) : 0.0;
  return FractionInputs{s.parallel.tp,
                        s.parallel.pp,
                        s.max_num_batched_tokens,
                        gpu,
                        piecewise_prefill_graphs(s),
                        s.model->mla.has_value()};
}

double derived_pool_fraction(const Scenario& s, const Catalog& catalog, const EngineRelease& rel) {
  return memory_fraction(rel, s.gpu_memory_utilization_given, s.gpu_memory_utilization,
                         fraction_inputs(s, catalog));
}

}  // namespace gpusizer::memory
