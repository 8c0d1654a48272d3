#pragma once
// Byte counts are computed in double (a 1e7 x 1e7-token KV cache is 5e19 bytes, past int64) and
// written to JSON as integers. The conversion saturates: past the int64 range it gives the
// nearest end instead of the undefined result of llround / static_cast (C++20 [conv.fpint]: a
// value that does not fit is undefined behaviour; glibc's llround returns INT64_MIN).
#include <cmath>
#include <cstdint>
#include <limits>

namespace gpusizer {

/// `v` rounded to the nearest integer, halves away from zero (llround's rule, C17 7.12.9.7),
/// clamped to [INT64_MIN, INT64_MAX]; NaN gives 0. Inline rather than libm's llround (a call,
/// ~25 instructions, for each of an answer's ~20 byte counts; issue 18): the truncation is exact
/// inside the range, and so is the fraction v - whole (below 2^52 both have the fraction's
/// precision; from 2^52 on a double is whole and the fraction is 0).
inline int64_t saturating_int64(double v) {
  constexpr double kTwo63 = 9223372036854775808.0;  // 2^63, exact in a double
  if (std::isnan(v)) return 0;
  if (v >= kTwo63) return std::numeric_limits<int64_t>::max();
  if (v <= -kTwo63) return std::numeric_limits<int64_t>::min();
  const auto whole = static_cast<int64_t>(v);  // toward zero
  const double fraction = v - static_cast<double>(whole);
  if (fraction >= 0.5) return whole + 1;
  if (fraction <= -0.5) return whole - 1;
  return whole;
}

/// a + b, clamped to the int64 range.
inline int64_t saturating_add(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out))
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  return out;
}

}  // namespace gpusizer
