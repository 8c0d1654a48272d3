#pragma once
// Links between GPUs and the time of collectives over them (ring algorithms).
#include <cstdint>
#include <string_view>

#include "gpusizer/gpu.h"
#include "gpusizer/speed_profile.h"

namespace gpusizer {

/// An achieved per-direction bandwidth and a per-collective latency, with NCCL's two kinds of
/// protocol (collective_s): the low-latency one at a share of the bandwidth, the bulk one at the
/// whole bandwidth after a longer start. The defaults leave the bulk one alone at no extra cost.
struct Link {
  double bytes_per_s = 0;
  double latency_s = 0;
  std::string_view name;              ///< a literal: "NVLink", "xGMI", "fabric", "PCIe", "network"
  double ll_bandwidth_share = 1;      ///< the low-latency protocol's share of bytes_per_s
  double simple_extra_latency_s = 0;  ///< the bulk protocol's start beyond latency_s
};

/// The largest group whose ring stays on the GPU's NVLink/xGMI fabric (gpus.csv
/// fast_link_domain, inside one node unless the domain is rack-scale); 1 without a fabric.
int64_t fast_link_group(const Gpu& gpu, int64_t gpus_per_node);

/// The link a group of `group` GPUs uses: the fabric when the group fits its domain, the
/// scale-out network (per-GPU NIC of the platform) when it spans more than `gpus_per_node`,
/// PCIe otherwise (a 2-GPU bridge is not a fabric for 8).
Link group_link(const Gpu& gpu, int64_t group, int64_t gpus_per_node, const LinkProfile& links);

/// A collective whose ring puts `wire_bytes` on each GPU's link: the faster of NCCL's
/// low-latency protocol (latency + wire / (bandwidth x ll share)) and its bulk one (latency +
/// extra + wire / bandwidth).
double collective_s(double wire_bytes, const Link& link);
/// Ring all-reduce of `bytes` over `n` GPUs: 2 (n-1)/n x bytes on the wire
/// (Patarasuk & Yuan 2009; NCCL docs "Performance considerations": busBw = algBw x 2(n-1)/n).
/// Inline, so that a caller with nothing to send (one GPU, a dense model's expert bytes) makes
/// no call (issue 18).
inline double allreduce_s(double bytes, int64_t n, const Link& link) {
  if (n <= 1 || bytes <= 0) return 0;
  const double nn = static_cast<double>(n);
  return collective_s(2.0 * (nn - 1.0) / nn * bytes, link);
}
/// Ring reduce-scatter or all-gather of `bytes` (the full tensor): (n-1)/n x bytes on the wire.
inline double allgather_s(double bytes, int64_t n, const Link& link) {
  if (n <= 1 || bytes <= 0) return 0;
  const double nn = static_cast<double>(n);
  return collective_s((nn - 1.0) / nn * bytes, link);
}
/// All-to-all among `ranks` ranks spaced `stride` GPUs apart, each sending `bytes` spread evenly
/// over the ranks: the peers on the GPU's own node or fabric domain get theirs over that link and
/// the others over the scale-out network at the same time, so the slower share sets the time.
double alltoall_s(double bytes, int64_t ranks, int64_t stride, const Gpu& gpu,
                  int64_t gpus_per_node, const LinkProfile& links);

}  // namespace gpusizer
