#pragma once
// An integer's decimal text, as std::to_chars (and nlohmann's dump()) writes it, in about a third
// of the instructions (issue 18: ~95 for an 11-digit byte count through to_chars, ~70 integers a
// JSONL answer). Eight digits at a time without a division loop (core/decimal_word.h).
#include <bit>
#include <cstdint>
#include <cstring>

#include "core/decimal_word.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpusizer {

/// Room json_integer_text() may write into: the text (at most 20 characters) and the whole
/// words it stores, never past 20 bytes.
inline constexpr int kJsonIntegerRoom = 20;

namespace json_integer_detail {

using decimal_word::digits8;
using decimal_word::kZeros;
using decimal_word::leading;

// `x` (< 10^8) as eight digits.
inline char* eight(char* p, uint64_t x) {
  const uint64_t text = digits8(x) + kZeros;
  std::memcpy(p, &text, 8);
  return p + 8;
}

}  // namespace json_integer_detail

namespace json_integer_detail {

#if defined(__SSE2__)
// The sixteen digits of `high` and `low` (each < 10^8, leading zeros included) as characters,
// high's first, in one SSE2 register: both halves at once, in the lanes (issue 18: the byte
// counts of an answer are 10-12 digits, and Grisu2's digits up to 17). The method is the one of
// W. Mula's SIMD integer-to-text (also in M. Yip's itoa-benchmark, "sse2"):
// - each half splits into its two four-digit quarters y by y = x / 10^4, x * 3518437209 >> 45
//   (3518437209 = ceil(2^45 / 10^4), exact for x < 10^8: the error is below 4e-7 of a unit);
// - each quarter, times 4, fills four 16-bit lanes, where a multiply-high by 8389, 5243, 6554
//   and 32768 and a second by 2^7, 2^11, 2^14 and 2^15 (a shift per lane) leave y / 1000,
//   y / 100, y / 10 and y: (4y x 8389) >> 25, (4y x 5243) >> 21, (4y x 6554) >> 18, each the
//   quotient for y < 10^4 (8389 / 2^23, 5243 / 2^19 and 6554 / 2^16 exceed 10^-3, 10^-2, 10^-1
//   by less than the quotients' distance to the next integer), and (4y x 2^15) >> 17 = y;
// - a digit is its prefix less ten times the prefix before it.
inline __m128i sixteen_digits(uint64_t high, uint64_t low) {
  const __m128i x = _mm_set_epi64x(static_cast<int64_t>(low), static_cast<int64_t>(high));
  const __m128i first = _mm_srli_epi64(_mm_mul_epu32(x, _mm_set1_epi32(-776530087)), 45);
  const __m128i second = _mm_sub_epi32(x, _mm_mul_epu32(first, _mm_set1_epi32(10000)));
  // 16-bit lanes: 4 x (high's quarters), 0, 0, 4 x (low's quarters), 0, 0.
  const __m128i quarters = _mm_slli_epi64(_mm_or_si128(first, _mm_slli_epi64(second, 16)), 2);
  const __m128i divisors = _mm_setr_epi16(8389, 5243, 6554, -32768, 8389, 5243, 6554, -32768);
  const __m128i shifts = _mm_setr_epi16(128, 2048, 16384, -32768, 128, 2048, 16384, -32768);
  const auto digits = [&](__m128i pairs) {  // pairs: two quarters, each in two 16-bit lanes
    const __m128i each = _mm_unpacklo_epi32(pairs, pairs);  // each quarter in four lanes
    const __m128i prefix = _mm_mulhi_epu16(_mm_mulhi_epu16(each, divisors), shifts);
    return _mm_sub_epi16(prefix, _mm_mullo_epi16(_mm_slli_epi64(prefix, 16), _mm_set1_epi16(10)));
  };
  const __m128i high_digits = digits(_mm_unpacklo_epi16(quarters, quarters));
  const __m128i low_digits = digits(_mm_unpackhi_epi16(quarters, quarters));
  return _mm_add_epi8(_mm_packus_epi16(high_digits, low_digits), _mm_set1_epi8('0'));
}

// 10^8 <= v < 10^16: its digits without the leading zeros of the sixteen; stores 16 bytes.
inline char* nine_to_sixteen(char* p, uint64_t v) {
  constexpr uint64_t k8 = 100000000;
  const __m128i text = sixteen_digits(v / k8, v % k8);
  // The leading zeros: v >= 10^8, so one of the first eight characters is not '0'.
  const auto zeros = static_cast<unsigned>(std::countr_zero(
      ~static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(text, _mm_set1_epi8('0'))))));
  alignas(16) char staged[32];
  _mm_store_si128(reinterpret_cast<__m128i*>(staged), text);
  _mm_store_si128(reinterpret_cast<__m128i*>(staged + 16), _mm_setzero_si128());  // read, unused
  std::memcpy(p, staged + zeros, 16);
  return p + 16 - zeros;
}
#endif

// `v` >= 10 (json_integer_text's digits past the first's fast path).
inline char* two_or_more(char* p, uint64_t v) {
  constexpr uint64_t k8 = 100000000, k16 = k8 * k8;
  if (v < k8) return leading(p, v);
#if defined(__SSE2__)
  if (v < k16) return nine_to_sixteen(p, v);
  const uint64_t rest = v % k16;  // v / 10^16 is at most 1,844: four digits
  p = leading(p, v / k16);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), sixteen_digits(rest / k8, rest % k8));
  return p + 16;
#else
  if (v < k16) return eight(leading(p, v / k8), v % k8);
  const uint64_t rest = v % k16;  // v / 10^16 is at most 1,844: four digits
  return eight(eight(leading(p, v / k16), rest / k8), rest % k8);
#endif
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
