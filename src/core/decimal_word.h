#pragma once
// Up to eight decimal digits made in one 64-bit word, without a division loop: the number is
// split by multiplications by reciprocals in the word's lanes (two halves of four digits, then
// four pairs, then eight bytes), and the leading zeros dropped with a count of trailing zero
// bits (the first digit sits in the lowest byte). Shared by the JSON integers
// (report/json_integer.h) and the basis texts' whole numbers (core/float_text.h).
#include <bit>
#include <cstdint>
#include <cstring>

namespace gpusizer::decimal_word {

// The digits are laid out in a word's bytes, the first in the lowest: a little-endian layout.
static_assert(std::endian::native == std::endian::little, "decimal_word assumes little-endian");

/// The eight decimal digits of `x` (< 10^8, leading zeros included), one per byte, the most
/// significant in the lowest byte; numbers, not characters yet.
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

/// `x` (1 <= x < 10^8) without leading zeros; stores eight bytes at `p`, returns the end.
inline char* leading(char* p, uint64_t x) {
  const uint64_t d = digits8(x);
  const int zeros = std::countr_zero(d) / 8;  // leading zero digits (d is not 0)
  const uint64_t text = (d + kZeros) >> (8 * zeros);
  std::memcpy(p, &text, 8);
  return p + 8 - zeros;
}

}  // namespace gpusizer::decimal_word
