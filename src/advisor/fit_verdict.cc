#include "gpusizer/fit_verdict.h"

#include <algorithm>

namespace gpusizer {

FitVerdict apply_fit_verdict(const Scenario& s, Estimate& e) {
  FitVerdict v;
  v.fits = e.memory.fits;
  if (v.fits && !*v.fits) {
    v.keeps_figures = false;
    e.performance.reset();
  }
  const int64_t max_ctx = s.model->max_position_embeddings;
  if (max_ctx <= 0 || s.model->is_cv()) return v;
  v.max_context = max_ctx;
  if (s.seq_len <= max_ctx) return v;
  // The parser's note (scenario.cc) begins with these words.
  const std::string head = "seq_len " + std::to_string(s.seq_len) + " exceeds the model's context";
  auto& w = e.warnings;
  const auto it =
      std::find_if(w.begin(), w.end(), [&](const std::string& x) { return x.starts_with(head); });
  if (it == w.end()) return v;
  v.context_warning = *it;
  std::rotate(w.begin(), it, it + 1);  // first, the others in their order
  return v;
}

}  // namespace gpusizer
