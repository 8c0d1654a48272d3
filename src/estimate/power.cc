#include "estimate/power.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>

#include "gpusizer/units.h"

namespace gpusizer {

void estimate_power(const Scenario& s, const Facility& f, const CostAssumptions& money,
                    Estimate& e) {
  if (!s.gpu || !s.gpu->tdp_w) return;
  const double tdp = *s.gpu->tdp_w;
  const int64_t per_node = std::min(s.gpu_count, s.gpus_per_node);
  const int64_t nodes = (s.gpu_count + s.gpus_per_node - 1) / s.gpus_per_node;
  e.power.gpu_watts = tdp * static_cast<double>(s.gpu_count);
  // The articles (sec. 5.2): peak draws summed, plus a 20-30% margin for the supply.
  const double node_peak = tdp * static_cast<double>(per_node) + f.host_base_watts +
                           f.host_watts_per_gpu * static_cast<double>(per_node);
  e.power.nodes = nodes;
  e.power.node_peak_watts = node_peak;
  e.power.node_watts = node_peak * (1.0 + f.power_margin);
  e.power.fleet_watts = *e.power.node_watts * static_cast<double>(nodes);
  // All of it ends up as heat: 1 kW = 3412 BTU/h.
  e.power.btu_per_hour = node_peak * static_cast<double>(nodes) / 1000.0 * kBtuPerHourPerKw;
  // UPS apparent power: kVA = kW / power factor.
  e.power.ups_kva = *e.power.fleet_watts / 1000.0 / f.power_factor;
  // Energy a year at the facility meter: peak x utilization x 8760 h x PUE (an upper bound:
  // GPUs rarely hold TDP).
  e.power.annual_kwh =
      node_peak * static_cast<double>(nodes) / 1000.0 * money.utilization * 8760.0 * money.pue;
  e.power.rack_budget_watts = f.rack_budget_watts;
  e.basis["gpu_watts"] =
      fmt::format(FMT_COMPILE("{} x {:g} W board power (TDP)"), s.gpu_count, tdp);
  e.basis["node_watts"] = fmt::format(
      FMT_COMPILE("({} GPUs x {:g} W + host {:g} W + {:g} W per GPU slot) x (1 + {:g} margin)"),
      per_node, tdp, f.host_base_watts, f.host_watts_per_gpu, f.power_margin);
  e.basis["btu_per_hour"] = "peak watts of all nodes x 3.412 BTU/h per W";
  e.basis["ups_kva"] =
      fmt::format(FMT_COMPILE("fleet watts with margin / {:g} power factor"), f.power_factor);
  e.basis["annual_kwh"] = fmt::format(FMT_COMPILE("peak kW x {:g} utilization x 8760 h x PUE {:g}"),
                                      money.utilization, money.pue);
  if (*e.power.node_watts > f.rack_budget_watts)
    e.warnings.push_back(
        fmt::format(FMT_COMPILE("one node needs {:.1f} kW with margin, above a typical {:.0f} "
                                "kW rack budget"),
                    *e.power.node_watts / 1000.0, f.rack_budget_watts / 1000.0));
  const Gpu& g = *s.gpu;
  if (g.segment == "consumer" && per_node > f.consumer_cards_per_closed_chassis)
    e.warnings.push_back(fmt::format(
        FMT_COMPILE(
            "{} x {} in one closed chassis: open-air coolers recirculate hot air and throttle; use "
            "blower or liquid-cooled cards, or at most {} per chassis; {}"),
        per_node, g.name, f.consumer_cards_per_closed_chassis,
        g.has_ecc() ? "ECC only at a capacity cost" : "no ECC memory"));
}

}  // namespace gpusizer
