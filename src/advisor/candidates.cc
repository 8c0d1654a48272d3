// The shared candidate steps (advisor/candidates.h); the GPU filter and lever words are
// recommend.cc's, shared from there.
#include "advisor/candidates.h"

#include "estimate/layout.h"

namespace gpusizer {

MemoryFit memory_fit(const Scenario& s, const Estimate& e, double headroom) {
  MemoryFit f;
  f.needed = memory_needed(s, e);
  f.capacity = e.memory.capacity.value_or(0);
  f.fits = e.memory.fits.value_or(false) && f.needed <= f.capacity * (1.0 - headroom);
  return f;
}

Scenario candidate(const Scenario& parsed, const ScenarioGiven& given, const ScenarioEdit& edit,
                   const Catalog& catalog) {
  return resolved(edited(parsed, given, edit, catalog), catalog);
}

}  // namespace gpusizer
