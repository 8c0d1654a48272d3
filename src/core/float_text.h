#pragma once
// printf's fixed ("%.*f") and general ("%.*g") conversions of a double, in a few tens of
// instructions where fmt's take hundreds (issue 18: formatting the basis strings' numbers took
// ~22k instructions of a JSONL line, part of it in fmt's exact big-number fallback). Each function
// answers only when its text is provably the correctly rounded one that printf and fmt
// ("{:.2f}", "{:g}", "{:.3g}") write; otherwise it returns nullptr and the caller formats the
// value the exact, slow way. The proof: a value times a power of ten up to 1e22 (exact in a
// double) is a double plus its rounding error, and fma gives that error exactly, so the exact
// product is known and is rounded to an integer as it must be; exact ties are left to the slow
// path (printf rounds them to even, in the current rounding mode).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/decimal_word.h"
#include "core/pow10.h"

namespace gpusizer {

/// Room a result of fixed_text() or general_text() needs.
inline constexpr int kFloatTextChars = 32;

namespace float_text_detail {

// The conversions of the values the inline paths below leave (float_text.cc).
char* fixed_text_rest(char* out, double v, int precision);
char* general_text_rest(char* out, double v, int precision);

// Whether |v| (`a`) is a whole number below 10^8, then held in `whole`. Inline, with the word's
// digits (core/decimal_word.h), at each call: such values are half of the basis texts' numbers
// (counts, watts, hours, prices, zeros), and the call, its checks and the digits two at a time
// cost ~100 instructions each (issue 18).
inline bool small_whole(double a, uint32_t& whole) {
  if (!(a < 1e8)) return false;  // NaN fails too; the cast below is then defined
  whole = static_cast<uint32_t>(a);
  return static_cast<double>(whole) == a;
}

// `whole` (below 10^8), after a '-' when v is negative (negative zero too, as printf writes it);
// stores nine bytes at `out`.
inline char* signed_whole(char* out, double v, uint32_t whole) {
  *out = '-';
  out += std::signbit(v) ? 1 : 0;
  if (whole == 0) {
    *out = '0';
    return out + 1;
  }
  return decimal_word::leading(out, whole);
}

}  // namespace float_text_detail

/// printf("%.*f", precision, v) into `out`, the end returned; nullptr when the fast path cannot
/// answer: v not finite, |v| x 10^precision >= 2^53 (but for a whole number below 10^8), 0 < |v|
/// < 1e-250, precision outside 0..15, or an exact tie.
inline char* fixed_text(char* out, double v, int precision) {
  uint32_t whole = 0;
  if (precision >= 0 && precision <= 15 && float_text_detail::small_whole(std::fabs(v), whole)) {
    char* end = float_text_detail::signed_whole(out, v, whole);
    if (precision == 0) return end;
    std::memcpy(end, ".000000000000000", 16);  // the point and `precision` zeros
    return end + 1 + precision;
  }
  return float_text_detail::fixed_text_rest(out, v, precision);
}

/// printf("%.*g", precision, v) into `out`, the end returned; nullptr when the fast path cannot
/// answer: v not finite, |v| >= 1e15, a small value whose exponent form needs 10^k past 1e22
/// (decimal exponent X below precision - 23) or rounds up to 10^-4, 0 < |v| < 1e-250,
/// precision outside 1..15, or an exact tie.
inline char* general_text(char* out, double v, int precision) {
  // A whole number of at most `precision` digits is its digits: "%f" of it has only zeros after
  // the point, which "%g" removes with the point.
  uint32_t whole = 0;
  if (precision >= 1 && precision <= 15 && float_text_detail::small_whole(std::fabs(v), whole) &&
      whole < kPow10U64[precision])
    return float_text_detail::signed_whole(out, v, whole);
  return float_text_detail::general_text_rest(out, v, precision);
}

}  // namespace gpusizer
