#pragma once
// An integer's decimal text, as std::to_chars (and nlohmann's dump()) writes it, in about a third
// of the instructions (issue 18: ~95 for an 11-digit byte count through to_chars, ~70 integers a
// JSONL answer). Eight digits at a time without a division loop: the eight are split by
// multiplications by reciprocals in the lanes of one 64-bit word (two halves of four digits,
// then four pairs, then eight bytes), and the leading zeros dropped with a count of trailing zero
// bits (the first digit sits in the lowest byte).
#include <bit>
#include <cstdint>
#include <cstring>

namespace gpusizer {

// The digits are laid out in a word's bytes, the first in the lowest: a little-endian layout.
static_assert(std::endian::native == std::endian::little,
              "json_integer_text assumes little-endian");

/// Room json_integer_text() may write into: the text (at most 20 characters) and the whole
/// words it stores, never past 20 bytes.
inline constexpr int kJsonIntegerRoom = 20;

namespace json_integer_detail {

// The eight decimal digits of `x` (< 10^8, leading zeros included), one per byte, the most
// significant in the lowest byte; numbers, not characters yet.
inline uint64_t digits8(uint64_t x) {
  uint64_t v = (x / 10000) | ((x % 10000) << 32);  // two lanes of four digits
  // Each lane / 100: x * 10486 >> 20 is exact below 43,699, and the product fits the lane.
  uint64_t q = ((v * 10486) >> 20) & 0x0000007F0000007FULL;
  v = q | ((v - q * 100) << 16);  // four 16-bit lanes of two digits
  // Each lane / 10: x * 103 >> 10 is exact below 179.
  q = ((v * 103) >> 10) & 0x000F000F000F000FULL;
  return q | ((v - q * 10) << 8);
}

inline constexpr uint64_t kZeros = 0x3030303030303030ULL;  // '0' in every byte

// `x` (1 <= x < 10^8) without leading zeros; stores eight bytes at `p`.
inline char* leading(char* p, uint64_t x) {
  const uint64_t d = digits8(x);
  const int zeros = std::countr_zero(d) / 8;  // leading zero digits (d is not 0)
  const uint64_t text = (d + kZeros) >> (8 * zeros);
  std::memcpy(p, &text, 8);
  return p + 8 - zeros;
}

// `x` (< 10^8) as eight digits.
inline char* eight(char* p, uint64_t x) {
  const uint64_t text = digits8(x) + kZeros;
  std::memcpy(p, &text, 8);
  return p + 8;
}

}  // namespace json_integer_detail

namespace json_integer_detail {

// `v` >= 10 (json_integer_text's digits past the first's fast path).
inline char* two_or_more(char* p, uint64_t v) {
  constexpr uint64_t k8 = 100000000, k16 = k8 * k8;
  if (v < k8) return leading(p, v);
  if (v < k16) return eight(leading(p, v / k8), v % k8);
  const uint64_t rest = v % k16;  // v / 10^16 is at most 1,844: four digits
  return eight(eight(leading(p, v / k16), rest / k8), rest % k8);
}

}  // namespace json_integer_detail

/// `v`'s decimal digits at `p` (room for kJsonIntegerRoom bytes); returns the end. One digit
/// (counts, classes, flags: half of an answer's integers) is written where this is inlined, the
/// rest by a call the compiler may keep out of line (issue 18: the whole function was a call
/// from the writer's integer fields, ~8 instructions more for each one-digit value). Forced
/// inline: once the fields inlined into the describers GCC called this whole function instead.
[[gnu::always_inline]] inline char* json_integer_text(char* p, uint64_t v) {
  if (v < 10) {
    *p = static_cast<char>('0' + v);
    return p + 1;
  }
  return json_integer_detail::two_or_more(p, v);
}

/// `v`'s decimal text, with a minus sign when negative.
[[gnu::always_inline]] inline char* json_integer_text(char* p, int64_t v) {
  uint64_t magnitude = static_cast<uint64_t>(v);
  if (v < 0) {
    *p++ = '-';
    magnitude = 0 - magnitude;  // at most 9.3e18: 19 digits after the sign
  }
  return json_integer_text(p, magnitude);
}

}  // namespace gpusizer
