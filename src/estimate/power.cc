#include "estimate/power.h"

#include <fmt/format.h>

#include <algorithm>

#include "gpusizer/units.h"

namespace gpusizer {

namespace embedded {
std::string_view find(std::string_view name);
}

namespace {

const nlohmann::json& facility() {
  static const nlohmann::json f = nlohmann::json::parse(embedded::find("facility.json"));
  return f;
}

}  // namespace

void estimate_power(const Scenario& s, const Catalog& /*catalog*/, Estimate& e) {
  if (!s.gpu || !s.gpu->tdp_w) return;
  const nlohmann::json& f = facility();
  const double tdp = *s.gpu->tdp_w;
  const int64_t per_node = std::min(s.gpu_count, s.gpus_per_node);
  const int64_t nodes = (s.gpu_count + s.gpus_per_node - 1) / s.gpus_per_node;
  const double margin = f.value("power_margin", 0.25);
  e.power.gpu_watts = tdp * static_cast<double>(s.gpu_count);
  const double node_peak = tdp * static_cast<double>(per_node) + f.value("host_base_watts", 800.0) +
                           f.value("host_watts_per_gpu", 150.0) * static_cast<double>(per_node);
  e.power.node_watts = node_peak * (1.0 + margin);
  // All of it ends up as heat: 1 kW = 3412 BTU/h.
  e.power.btu_per_hour = node_peak * static_cast<double>(nodes) / 1000.0 * kBtuPerHourPerKw;
  e.basis["gpu_watts"] = fmt::format("{} x {:g} W board power (TDP)", s.gpu_count, tdp);
  e.basis["node_watts"] = fmt::format(
      "({} GPUs x {:g} W + host {:g} W + {:g} W per GPU slot) x (1 + {:g} margin)", per_node, tdp,
      f.value("host_base_watts", 800.0), f.value("host_watts_per_gpu", 150.0), margin);
  e.basis["btu_per_hour"] = "peak watts of all nodes x 3.412 BTU/h per W";
  const double rack = f.value("rack_budget_watts", 6000.0);
  if (*e.power.node_watts > rack)
    e.warnings.push_back(fmt::format("one node needs {:.1f} kW with margin, above a typical {:.0f} "
                                     "kW rack budget",
                                     *e.power.node_watts / 1000.0, rack / 1000.0));
}

}  // namespace gpusizer
