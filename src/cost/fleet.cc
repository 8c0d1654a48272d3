#include "cost/fleet.h"

#include <algorithm>

#include "catalog/speed_index.h"

namespace gpusizer {

NodePlan plan_nodes(const Gpu& gpu, int64_t gpu_count, int64_t gpus_per_node,
                    const Catalog& catalog) {
  NodePlan plan;
  const int64_t count = std::max<int64_t>(1, gpu_count);
  int64_t per_node = std::min(count, std::max<int64_t>(1, gpus_per_node));
  const ServerForm* fits = nullptr;     // smallest form holding per_node
  const ServerForm* largest = nullptr;  // largest form holding the GPU at all
  auto cheaper = [](const ServerForm* a, const ServerForm* b) {
    return a->chassis_usd.value_or(0) < b->chassis_usd.value_or(0);
  };
  // A GPU that is one of the catalog's rows reads which forms hold it from the row's position,
  // found when servers.csv was read (ServerForm::holds_row), not by comparing the form's holds
  // with its id, class and segment (issue 18: ~650 instructions an estimate); a GPU built
  // elsewhere, by its strings.
  const size_t row = row_position(catalog.gpus(), &gpu);
  for (const ServerForm& f : catalog.servers()) {
    if (!(row < f.holds_row.size() ? f.holds_row[row] : f.holds_gpu(gpu))) continue;
    if (!largest || f.max_gpus > largest->max_gpus) largest = &f;
    if (f.max_gpus < per_node) continue;
    if (!fits || f.max_gpus < fits->max_gpus || (f.max_gpus == fits->max_gpus && cheaper(&f, fits)))
      fits = &f;
  }
  if (!fits && largest) {
    fits = largest;
    per_node = largest->max_gpus;
  }
  plan.server = fits;
  plan.gpus_per_node = per_node;
  plan.nodes = (count + per_node - 1) / per_node;
  return plan;
}

std::optional<InstancePlan> cheapest_instances(const Gpu& gpu, int64_t gpu_count, int64_t node_gpus,
                                               int64_t linked_gpus, const Catalog& catalog,
                                               double usd_to_cny, bool china) {
  const int64_t count = std::max<int64_t>(1, gpu_count);
  const int64_t node = std::clamp<int64_t>(node_gpus, 1, count);
  const int64_t group = std::clamp<int64_t>(linked_gpus, 1, node);  // must share one instance
  std::optional<InstancePlan> best, best_small;  // holding a whole node / smaller shapes
  // Inlined by force: with the group test g++ 12 calls it once a listed shape, ~80 instructions
  // an estimate that rents (issue 18, tools/mean_instructions.sh estimate_full_inference).
  for_each_instance(
      gpu, catalog, china, [&](const CloudInstance& i) __attribute__((always_inline)) {
        InstancePlan p;
        p.instance = &i;
        p.instance_usd_per_hour = i.cny ? i.price_per_hour / usd_to_cny : i.price_per_hour;
        if (i.gpus >= node) {
          // Whole nodes, as many in one instance as it holds: ceil(nodes / nodes per instance).
          const int64_t nodes = (count + node - 1) / node, per_instance = i.gpus / node;
          p.count = (nodes + per_instance - 1) / per_instance;
          p.usd_per_hour = p.instance_usd_per_hour * static_cast<double>(p.count);
          if (!best || p.usd_per_hour < best->usd_per_hour) best = p;
        } else if (i.gpus >= group && i.gpus % group == 0) {
          p.count = (count + i.gpus - 1) / i.gpus;
          p.usd_per_hour = p.instance_usd_per_hour * static_cast<double>(p.count);
          // No shape holds a node: the largest shape, then the cheapest of those.
          if (!best_small || i.gpus > best_small->instance->gpus ||
              (i.gpus == best_small->instance->gpus && p.usd_per_hour < best_small->usd_per_hour))
            best_small = p;
        }
      });
  return best ? best : best_small;
}

}  // namespace gpusizer
