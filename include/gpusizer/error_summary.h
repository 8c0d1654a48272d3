#pragma once
// The one summary of estimator errors against measurements, shared by the memory validation
// (gpusizer/validation.h) and the speed validation and calibration (gpusizer/calibrate.h).
#include <cstddef>
#include <string>
#include <vector>

namespace gpusizer {

/// Statistics of the relative errors (predicted / measured - 1) of a set of rows.
struct ErrorSummary {
  std::string group;   ///< source group; the speed summary's "" is every group
  std::string metric;  ///< the compared figure (speed: a compare key, "all metrics"); "" for memory
  std::string use;     ///< calibrate, validate or all (speed); "" for memory
  size_t n = 0;
  double median = 0, p90 = 0, max = 0;  ///< of the absolute errors
  double bias = 0;                      ///< median of the signed errors
};

/// The q-quantile of `values` by linear interpolation between closest ranks (Hyndman & Fan 1996,
/// type 7, numpy's default); 0 for no values.
double quantile(std::vector<double> values, double q);

/// Summary statistics of the signed relative errors `signed_errors`.
ErrorSummary summarize(const std::string& group, const std::vector<double>& signed_errors);

}  // namespace gpusizer
