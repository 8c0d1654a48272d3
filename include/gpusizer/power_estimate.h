#pragma once
// What the power estimator returns: GPU, node and fleet draw, heat, UPS, energy and racks
// (src/estimate/power.h, estimate_power). Keys and units as docs/contract.md.
#include <cstdint>
#include <optional>
#include <string>

namespace gpusizer {

struct PowerEstimate {
  std::optional<double> gpu_watts;        ///< all GPUs at TDP
  std::optional<double> node_watts;       ///< per node: GPUs + host, with the design margin
  std::optional<double> btu_per_hour;     ///< heat of all nodes at peak
  std::optional<int64_t> nodes;           ///< ceil(gpu_count / gpus_per_node)
  std::optional<double> node_peak_watts;  ///< per node: GPUs + host, no margin
  std::optional<double> fleet_watts;      ///< all nodes, with the design margin
  std::optional<double> ups_kva;          ///< fleet_watts / power factor
  std::optional<double> annual_kwh;       ///< all nodes at peak x utilization x 8760 h x PUE
  std::optional<double> rack_budget_watts;
  std::optional<double> run_kwh;         ///< training: energy of the whole run, PUE included
  std::optional<int64_t> gpus_per_node;  ///< GPUs in one node (the last node may hold fewer)
  std::string server;                    ///< server form whose host is powered (servers.csv)
  std::optional<int64_t> racks;          ///< racks at rack_budget_watts; none if a node exceeds it
};

}  // namespace gpusizer
