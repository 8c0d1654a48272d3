#include "speed/collectives.h"

#include <algorithm>
#include <string_view>

namespace gpusizer {

int64_t fast_link_group(const Gpu& gpu, int64_t gpus_per_node) {
  const int64_t domain = gpu.fast_link_domain;
  if (domain < 2 || !gpu.scaleup_gbps_bidir || *gpu.scaleup_gbps_bidir <= 0) return 1;
  // A board-level domain (a bridged pair or quad, an 8-GPU HGX/OAM baseboard) lives inside one
  // node; a rack-scale one (GB200 NVL72: 72 GPUs over NVLink switch trays) spans the nodes of
  // the rack.
  constexpr int64_t kBaseboard = 8;
  return domain > kBaseboard ? domain : std::min(domain, std::max<int64_t>(1, gpus_per_node));
}

Link group_link(const Gpu& gpu, int64_t group, int64_t gpus_per_node, const LinkProfile& p) {
  if (group <= fast_link_group(gpu, gpus_per_node)) {
    // NVLink/xGMI figures are per GPU, both directions together (NVIDIA datasheets: A100 600
    // GB/s, H100 900 GB/s; AMD MI300X 896 GB/s); a ring sends one way, so half per direction. A
    // group inside the domain has every hop on the fabric.
    // Views of the literals: their lengths known when compiled (a const char* measured them
    // each call, issue 18).
    using namespace std::string_view_literals;
    const std::string_view name = gpu.nvlink              ? "NVLink"sv
                                  : gpu.vendor == "AMD"sv ? "xGMI"sv
                                                          : "fabric"sv;
    return {*gpu.scaleup_gbps_bidir / 2.0 * 1e9 * p.nvlink_eff, p.nvlink_latency_s, name,
            p.ll_bandwidth_share, p.simple_extra_latency_s};
  }
  if (group > gpus_per_node && gpus_per_node > 0) {
    // Crossing nodes: one NIC per GPU on rail-optimised platforms, so each GPU's share is the
    // per-GPU scale-out rate of its platform (gpus.csv scaleout_gbps_per_gpu, Gb/s; the
    // profile's figure when unknown); the slowest hop of the ring sets the pace.
    const double bytes_per_s =
        gpu.scaleout_gbps_per_gpu ? *gpu.scaleout_gbps_per_gpu / 8.0 * 1e9 : p.network_bytes_per_s;
    return {bytes_per_s * p.network_eff, p.network_latency_s, "network", p.ll_bandwidth_share,
            p.simple_extra_latency_s};
  }
  // Larger than the fast-link domain (or no domain): the ring's slowest hops cross PCIe (a pair
  // of NVLink-bridged cards in an 8-GPU ring still talks to the next pair over PCIe).
  return {gpu.pcie_bytes_per_s() * p.pcie_eff, p.pcie_latency_s, "PCIe", p.ll_bandwidth_share,
          p.simple_extra_latency_s};
}

double collective_s(double wire_bytes, const Link& link) {
  // NCCL picks a protocol per call by its own cost model (src/graph/tuning.cc): LL stores 8 bytes
  // of data with each 8-byte flag, half the link's bandwidth, and starts at once; Simple moves
  // whole buffers at the full bandwidth after a longer start. So small messages cost the latency
  // and mid-size ones (the few MB of a large decode batch's hidden states) fall between the two
  // lines, below the bus bandwidth NCCL reaches at 100 MB and more.
  const double wire = wire_bytes / link.bytes_per_s;
  return link.latency_s +
         std::min(wire / link.ll_bandwidth_share, link.simple_extra_latency_s + wire);
}

double alltoall_s(double bytes, int64_t ranks, int64_t stride, const Gpu& gpu,
                  int64_t gpus_per_node, const LinkProfile& links) {
  const Link whole = group_link(gpu, ranks * stride, gpus_per_node, links);
  const double n = static_cast<double>(ranks);
  // PyTorch's all_to_all_single posts an ncclSend and an ncclRecv per peer in one group
  // (ProcessGroupNCCL::alltoall_base), and NCCL runs each over its own transport (transport/p2p.cc
  // inside the node, net.cc beyond it), so a rank's bytes for its node's peers and for remote
  // peers flow side by side. On rail-optimised platforms each GPU has its own NIC (gpus.csv
  // scaleout_gbps_per_gpu).
  const int64_t local_gpus = std::max(fast_link_group(gpu, gpus_per_node), gpus_per_node);
  const int64_t local_ranks =
      std::clamp<int64_t>(local_gpus / std::max<int64_t>(1, stride), 1, ranks);
  if (local_ranks >= ranks) return (n - 1.0) / n * bytes / whole.bytes_per_s + whole.latency_s;
  const double local = static_cast<double>(local_ranks);
  double near = 0;
  if (local_ranks > 1) {
    const Link node = group_link(gpu, local_ranks * stride, gpus_per_node, links);
    near = (local - 1.0) / n * bytes / node.bytes_per_s + node.latency_s;
  }
  const double far = (n - local) / n * bytes / whole.bytes_per_s + whole.latency_s;
  return std::max(near, far);
}

}  // namespace gpusizer
