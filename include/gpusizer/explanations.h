#pragma once
// What the estimators say about their figures besides the numbers: the basis of
// each figure (formula and source) and the warnings. Every estimator (memory,
// speed, power, bands) takes an `Explanations*`; null asks for numbers only,
// and then no text is built at all. No decision reads these texts: they are
// rendered, never parsed.
#include <string>
#include <vector>

#include "gpusizer/basis.h"

namespace gpusizer {

struct Explanations {
  Basis basis;                        ///< figure name -> formula and source
  std::vector<std::string> warnings;  ///< in the order the estimators raised them
};

}  // namespace gpusizer
