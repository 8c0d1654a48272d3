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

/// Whether `why` takes basis texts: given, and its basis not turned off (an answer without its
/// basis, "basis": false, still takes the warnings). Producers that build a text before they
/// write it into the basis ask this first; Basis's own writers skip by themselves.
inline bool wants_basis(const Explanations* why) {
  return why && why->basis.on();
}

}  // namespace gpusizer
