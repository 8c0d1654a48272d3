#include "gpusizer/error_summary.h"

#include <algorithm>
#include <cmath>

namespace gpusizer {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(v.size() - 1, lo + 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

ErrorSummary summarize(const std::string& group, const std::vector<double>& errors) {
  ErrorSummary s;
  s.group = group;
  s.n = errors.size();
  if (errors.empty()) return s;
  std::vector<double> abs_errors;
  abs_errors.reserve(errors.size());
  for (double e : errors) abs_errors.push_back(std::fabs(e));
  s.median = quantile(abs_errors, 0.5);
  s.p90 = quantile(abs_errors, 0.9);
  s.max = *std::max_element(abs_errors.begin(), abs_errors.end());
  s.bias = quantile(errors, 0.5);
  return s;
}

}  // namespace gpusizer
