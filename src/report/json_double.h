#pragma once
// A double's JSON text exactly as nlohmann's dump() writes it (its Grisu2: Loitsch, PLDI 2010,
// with its cached powers of ten), at about a third of the instructions (issue 18: nlohmann's
// to_chars was ~10% of a figures-only JSONL line). Same arithmetic, cheaper steps: a count of
// leading zeros instead of a shift loop to normalize, one 128-bit product per multiplication,
// the integral digits two at a time when they are all needed, the text laid out once instead of
// digits moved to open a gap for the point. The doubles of an answer's scales (2^-31 to 2^65)
// take their cached power from a table and their digits as one integer (json_double.cc,
// common_text). The answer's writer (json_text_parts.h's write_json_float, defined in
// json_double.cc) reaches those digits in the same call as its whole-number path.

#include <cstdint>
#include <cstring>

#include "report/json_integer.h"

namespace gpusizer {

/// A double's sign bit (0 or 1), the bits of its magnitude and the magnitude: the number
/// writers' first step (json_double.cc, json_figure.cc), the sign taken once.
struct SignedMagnitude {
  uint64_t sign;
  uint64_t bits;
  double value;
};
inline SignedMagnitude signed_magnitude(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  SignedMagnitude m{bits >> 63, bits & ~(uint64_t{1} << 63), 0};
  std::memcpy(&m.value, &m.bits, sizeof m.value);
  return m;
}

/// `magnitude` (0 <= magnitude < 2^63) as dump() writes a whole number, its digits and ".0",
/// at `p`; nullptr when it is not whole. It converts to an integer exactly when it is whole: a
/// conversion and a compare, not floor()'s ~18 instructions (the target has no SSE4.1 rounding
/// instruction).
[[gnu::always_inline]] inline char* whole_number_text(char* p, double magnitude) {
  const auto whole = static_cast<int64_t>(magnitude);  // signed: one instruction each way
  if (static_cast<double>(whole) != magnitude) return nullptr;
  p = json_integer_text(p, static_cast<uint64_t>(whole));
  std::memcpy(p, ".0", 2);
  return p + 2;
}

/// Room json_double_text() may write into, past the text's own at most 25 characters (it stores
/// whole words).
inline constexpr int kJsonDoubleRoom = 64;

/// `v` (finite) as nlohmann::detail::to_chars writes it, at `p`; returns the end.
char* json_double_text(char* p, double v);

}  // namespace gpusizer
