#pragma once
// Explanations of the advisor's decisions, kept apart from the search: which constraint an option
// misses, its reasons and warnings, its objective value, and the ranking.
#include <string>
#include <vector>

#include "gpusizer/advisor.h"

namespace gpusizer::explain {

/// The hourly, per-million-token and purchase figures used for ranking and budgets.
struct Price {
  std::optional<double> per_hour, per_million_tokens, capex;
  std::string label;  ///< "cloud, <instance>" or "on-prem, amortized"
};

/// The price of an option under the constraints' deployment (cloud, on-prem, or the cheaper).
Price price_of(const Option& o, const Constraints& c);

/// The first constraint an option misses, in words; empty when it meets them all.
std::string unmet_constraint(const Option& o, const Constraints& c);

/// How many times faster the option must run to meet min_tokens_per_s and max_days (1 when it
/// does): more GPUs scale throughput at most linearly, so smaller systems can be skipped.
double speed_shortfall(const Option& o, const Constraints& c);

/// Fills the option's objective value, reasons and warnings.
void describe(Option& o, const Scenario& base, const Constraints& c, const Catalog& catalog,
              const std::string& levers);

/// Sorts best first by the objective, sets scores (100 = best) and the winner's reason.
void rank(std::vector<Option>& options, const Constraints& c);

}  // namespace gpusizer::explain
