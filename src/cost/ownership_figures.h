#pragma once
// Ownership's figures alone, for searches that rank many candidates (issue 18): ownership_cost
// without its text (no basis lines, no not_rented reason, no break-even verdict), the cloud and
// on-prem prices the same numbers.
#include <optional>
#include <string>

#include "cost/fleet.h"
#include "gpusizer/cost.h"

namespace gpusizer {

/// ownership_cost(s, performance, power, a, catalog, region) with the cloud and on-prem costs only:
/// `basis`, `not_rented` and `break_even` are left empty.
Ownership ownership_figures(const Scenario& s,
                            const std::optional<PerformanceEstimate>& performance,
                            const PowerEstimate& power, const CostAssumptions& a,
                            const Catalog& catalog, const std::string& region = "");

/// ownership_cost without its basis lines: the figures, not_rented and the break-even verdict (an
/// answer that leaves the basis out, "basis": false).
Ownership ownership_without_basis(const Scenario& s,
                                  const std::optional<PerformanceEstimate>& performance,
                                  const PowerEstimate& power, const CostAssumptions& a,
                                  const Catalog& catalog, const std::string& region = "");

/// What an ownership says besides its figures: nothing (searches), the verdict (an answer
/// without its basis, "basis": false), or the verdict and the basis lines. kRentOnly says nothing
/// either and leaves the on-prem figures out unless a training run's price falls back on them
/// (no rent, a run's length known; cost/run_cost.h): for an answer that writes no cost (a setup
/// that does not fit), which writes the rent's basis line and the run's price alone (issue 18).
enum class OwnershipText { kNone, kVerdict, kBasis, kRentOnly };

/// The estimate's ownership (src/estimate/estimate.cc): ownership_figures, ownership_without_basis
/// or ownership_cost by `text`, in the scenario's region, with the nodes that power was estimated
/// with (`plan`, estimate_power's; null: planned here) and the assumptions moved into the answer
/// instead of copied (issue 18: a plan of the nodes and a copy of costs.json's map per estimate).
/// Written into `o`, default-constructed: the estimate's own, made in place (issue 18: an
/// Ownership returned was moved into the estimate's optional and destroyed, its ten strings each).
void estimate_ownership(const Scenario& s, const std::optional<PerformanceEstimate>& performance,
                        const PowerEstimate& power, CostAssumptions&& a, const Catalog& catalog,
                        const NodePlan* plan, OwnershipText text, Ownership& o);

}  // namespace gpusizer
