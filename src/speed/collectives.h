#pragma once
// Links between GPUs and the time of collectives over them (ring algorithms).
#include <cstdint>
#include <string_view>

#include "gpusizer/gpu.h"
#include "gpusizer/speed_profile.h"

namespace gpusizer {

/// An achieved per-direction bandwidth and a per-collective latency.
struct Link {
  double bytes_per_s = 0;
  double latency_s = 0;
  std::string_view name;  ///< a literal: "NVLink", "xGMI", "fabric", "PCIe", "network"
};

/// The largest group whose ring stays on the GPU's NVLink/xGMI fabric (gpus.csv
/// fast_link_domain, inside one node unless the domain is rack-scale); 1 without a fabric.
int64_t fast_link_group(const Gpu& gpu, int64_t gpus_per_node);

/// The link a group of `group` GPUs uses: the fabric when the group fits its domain, the
/// scale-out network (per-GPU NIC of the platform) when it spans more than `gpus_per_node`,
/// PCIe otherwise (a 2-GPU bridge is not a fabric for 8).
Link group_link(const Gpu& gpu, int64_t group, int64_t gpus_per_node, const LinkProfile& links);

/// Ring all-reduce of `bytes` over `n` GPUs: 2 (n-1)/n x bytes / bandwidth + latency
/// (Patarasuk & Yuan 2009; NCCL docs "Performance considerations": busBw = algBw x 2(n-1)/n).
double allreduce_s(double bytes, int64_t n, const Link& link);
/// Ring reduce-scatter or all-gather of `bytes` (the full tensor): (n-1)/n x bytes / bandwidth.
double allgather_s(double bytes, int64_t n, const Link& link);

}  // namespace gpusizer
