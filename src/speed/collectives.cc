#include "speed/collectives.h"

namespace gpusizer {

Link group_link(const Gpu& gpu, int64_t group, int64_t gpus_per_node, const LinkProfile& p) {
  if (group > gpus_per_node && gpus_per_node > 0) {
    // Crossing nodes: one NIC per GPU (rails), so each GPU's share is the per-GPU network rate;
    // the slowest hop of the ring sets the pace.
    return {p.network_bytes_per_s * p.network_eff, p.network_latency_s, "network"};
  }
  if (gpu.scaleup_gbps_bidir && *gpu.scaleup_gbps_bidir > 0 && gpu.nvlink) {
    // NVLink figures are per GPU, both directions together (NVIDIA datasheets: A100 600 GB/s,
    // H100 900 GB/s); a ring sends one way, so half of it per direction.
    return {*gpu.scaleup_gbps_bidir / 2.0 * 1e9 * p.nvlink_eff, p.nvlink_latency_s, "NVLink"};
  }
  if (gpu.scaleup_gbps_bidir && *gpu.scaleup_gbps_bidir > 0 && gpu.vendor == "AMD") {
    // AMD Infinity Fabric (xGMI) peer links, quoted the same way (MI300X 896 GB/s).
    return {*gpu.scaleup_gbps_bidir / 2.0 * 1e9 * p.nvlink_eff, p.nvlink_latency_s, "xGMI"};
  }
  return {gpu.pcie_bytes_per_s() * p.pcie_eff, p.pcie_latency_s, "PCIe"};
}

double allreduce_s(double bytes, int64_t n, const Link& link) {
  if (n <= 1 || bytes <= 0) return 0;
  const double nn = static_cast<double>(n);
  return 2.0 * (nn - 1.0) / nn * bytes / link.bytes_per_s + link.latency_s;
}

double allgather_s(double bytes, int64_t n, const Link& link) {
  if (n <= 1 || bytes <= 0) return 0;
  const double nn = static_cast<double>(n);
  return (nn - 1.0) / nn * bytes / link.bytes_per_s + link.latency_s;
}

}  // namespace gpusizer
