// A training run's energy and price: the nodes at their peak draw for the run, times the PUE.
#include "cost/run_cost.h"

#include <gtest/gtest.h>

#include "gpusizer/scenario.h"

namespace gpusizer {
namespace {

// Two nodes drawing 10.2 kW each at peak for a 100-hour run, PUE 1.5: 20.4 kW x 100 h x 1.5 =
// 3,060 kWh. Without the ownership's assumptions the run is priced at PUE 1: 2,040 kWh.
TEST(RunCost, EnergyIsThePeakDrawOverTheRunTimesPue) {
  Scenario s;
  s.task = Task::kFull;
  PerformanceEstimate perf;
  perf.time_to_train_s = 100 * 3600.0;
  PowerEstimate power;
  power.node_peak_watts = 10200;
  power.nodes = 2;
  EXPECT_DOUBLE_EQ(*training_run_kwh(s, perf, power, 1.5), 3060.0);
  const RunCost run = price_training_run(s, perf, std::nullopt, power);
  EXPECT_DOUBLE_EQ(*run.kwh, 2040.0);
  EXPECT_FALSE(run.usd_total);
  EXPECT_EQ(run.basis, "20.4 kW x 100.0 h x PUE 1");
}

// No energy without a run to time (no training.tokens: no time to train), without a node count,
// or for serving.
TEST(RunCost, NoEnergyWithoutARunOrNodes) {
  Scenario s;
  s.task = Task::kFull;
  PerformanceEstimate perf;
  PowerEstimate power;
  power.node_peak_watts = 10200;
  power.nodes = 2;
  EXPECT_FALSE(training_run_kwh(s, perf, power, 1.5));
  perf.time_to_train_s = 3600.0;
  EXPECT_TRUE(training_run_kwh(s, perf, power, 1.5));
  PowerEstimate no_nodes = power;
  no_nodes.nodes.reset();
  EXPECT_FALSE(training_run_kwh(s, perf, no_nodes, 1.5));
  s.task = Task::kInference;
  EXPECT_FALSE(training_run_kwh(s, perf, power, 1.5));
}

}  // namespace
}  // namespace gpusizer
