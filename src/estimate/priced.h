#pragma once
// The figures a search ranks candidates on: what estimate() computes (memory, speed, power,
// ownership and cost) with no text: no basis strings, speed bands or warnings (issue 18). The
// numbers are those of estimate(s, catalog): the same estimators, with a null explanations sink.
#include "gpusizer/estimate.h"

namespace gpusizer {

/// estimate(s, catalog) without basis, bands or warnings: the figures to rank and check
/// constraints on, for searches that explain only the options they return.
Estimate estimate_priced(const Scenario& s, const Catalog& catalog);

}  // namespace gpusizer
