#pragma once
// The fleet side of a recommendation: the rack budget as a hard limit on GPUs per node, the
// export rules of a region, the price in the region's clouds, and the option keys that describe its
// fleet (docs/contract.md, v2 "Options").
#include <cstdint>
#include <string>

#include "gpusizer/advisor.h"

namespace gpusizer {

/// An explicit rack budget (facility.rack_budget_watts given in the request, or
/// --rack-budget-watts): no node may draw more than `watts` with its margin.
struct RackLimit {
  bool given = false;
  double watts = 0;
  int64_t max_gpus_per_node = 0;  ///< 0: even a node of one GPU is over the budget
  double one_gpu_node_watts = 0;  ///< with margin
};

/// The most GPUs of `gpu` one node may hold under the request's explicit rack budget (the
/// smallest server form of each size, data/servers.csv; at most base.gpus_per_node).
RackLimit rack_limit(const Scenario& base, const Gpu& gpu, const Catalog& catalog);

/// Why a GPU cannot be used in mainland China (gpus.csv china_status: restricted, not-sold),
/// naming the part sold there instead; empty when it may be.
std::string china_block(const Gpu& gpu);

/// Whether the catalog lists a cloud instance of `gpu` (in mainland-China regions when `china`).
bool rented(const Gpu& gpu, const Catalog& catalog, bool china);

/// Prices the estimate's fleet again in the region's clouds (region "cn": mainland-China
/// instances); a no-op for other regions, whose clouds estimate() already used.
void price_in_region(const Scenario& s, Estimate& e, const Catalog& catalog,
                     const std::string& region);

}  // namespace gpusizer
