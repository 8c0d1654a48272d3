#pragma once
// The verdict of an estimate (docs/contract.md, v2): whether the scenario fits, and what follows
// from it for every face. A scenario that does not fit has no speed or cost figures (what it
// would run at, on memory it does not have, means nothing; its "changes" say what would make it
// fit). A context past the model's maximum is the first warning, and is named apart so that
// every face can show it first.
#include <cstdint>
#include <optional>
#include <string>

#include "gpusizer/estimate.h"
#include "gpusizer/scenario.h"

namespace gpusizer {

struct FitVerdict {
  std::optional<bool> fits;            ///< memory.fits; absent without a GPU to fit
  bool keeps_figures = true;           ///< false when it does not fit: no performance, no cost
  std::optional<int64_t> max_context;  ///< the language model's maximum context
  std::optional<std::string> context_warning;  ///< seq_len past it: the warning that says so
};

/// Decides the verdict of `e` for `s` and applies it to `e`: drops the speed figures of a
/// scenario that does not fit and puts the context warning first among the warnings. Call it
/// after everything that reads the figures (the changes that make it fit compare speeds).
FitVerdict apply_fit_verdict(const Scenario& s, Estimate& e);

}  // namespace gpusizer
