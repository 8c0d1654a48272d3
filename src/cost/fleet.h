#pragma once
// A fleet as whole machines: how many nodes of which server form hold the GPUs (power and
// on-prem price), and which cloud instance shape rents them whole (data/instances.csv).
#include <cstdint>
#include <optional>
#include <string>

#include "catalog/speed_index.h"
#include "gpusizer/catalog.h"

namespace gpusizer {

/// The nodes that hold `gpu_count` GPUs with at most `gpus_per_node` in each.
struct NodePlan {
  int64_t nodes = 0;
  int64_t gpus_per_node = 0;           ///< in each node; the last one may hold fewer
  const ServerForm* server = nullptr;  ///< the smallest form that holds that many; may be null
};

/// Nodes of min(gpu_count, gpus_per_node) GPUs each, in the smallest server form of
/// data/servers.csv that holds the GPU and that many (the cheapest of equal size); when no form
/// holds that many, nodes of the largest form that holds the GPU.
NodePlan plan_nodes(const Gpu& gpu, int64_t gpu_count, int64_t gpus_per_node,
                    const Catalog& catalog);

/// The fleet rented whole: `count` instances of one shape.
struct InstancePlan {
  const CloudInstance* instance = nullptr;
  int64_t count = 0;
  double instance_usd_per_hour = 0;  ///< one instance in USD
  double usd_per_hour = 0;           ///< all of them
};

/// Calls `take` with each cloud instance of `gpu` in mainland-China regions (`china`) or outside
/// them, in the order of instances.csv. A GPU that is one of the catalog's rows finds them by the
/// row's position, listed when instances.csv was read (Catalog::instances_of_row; issue 18: ~1.4k
/// instructions an estimate comparing the id with every instance's, then ~480 testing every
/// instance's row); a GPU built elsewhere, by its id. The region and currency are tested as the
/// flags found when the file was read (CloudInstance::china).
template <typename Take>
void for_each_instance(const Gpu& gpu, const Catalog& catalog, bool china, Take&& take) {
  const std::vector<CloudInstance>& instances = catalog.instances();
  const size_t row = row_position(catalog.gpus(), &gpu);
  if (row < catalog.gpus().size()) {
    for (const uint32_t i : catalog.instances_of_row(row))
      if (instances[i].china == china) take(instances[i]);
  } else {
    for (const CloudInstance& i : instances)
      if (i.gpu_id == gpu.id && i.china == china) take(i);
  }
}

/// The cheapest way to rent `gpu_count` GPUs as whole instances of one shape, each holding a
/// whole node of `node_gpus` GPUs (a node is one machine: 8 x A10G is one g5.48xlarge, not eight
/// g5.xlarge). A shape smaller than the node is used only when no shape holds a node, and only
/// when it holds whole groups of `linked_gpus`, a replica's GPUs less its pipeline stages
/// (Scenario::replica_gpus / pp): tensor, expert and context parallelism exchange activations
/// every layer over the node's link, which separate instances do not share (two 1-GPU instances
/// cannot run TP 2 at NVLink speed); pipeline stages and serving replicas can cross instances.
/// Training passes the whole node: its gradient reduction is timed on the node's link. CNY prices
/// are converted at `usd_to_cny`. `china`: instances of mainland-China regions only, else only the
/// others. Empty when no instance of the GPU is listed there or none holds a group.
std::optional<InstancePlan> cheapest_instances(const Gpu& gpu, int64_t gpu_count, int64_t node_gpus,
                                               int64_t linked_gpus, const Catalog& catalog,
                                               double usd_to_cny, bool china);

}  // namespace gpusizer
