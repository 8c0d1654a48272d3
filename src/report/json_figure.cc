#include "report/json_figure.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/pow10.h"
#include "report/json_double.h"
#include "report/json_integer.h"
#include "report/json_text_parts.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpusizer {
namespace {

static_assert(kFigureDigits == 6, "the scales below are for six digits");
constexpr uint64_t kFirstFigure = 100000;  // 10^(kFigureDigits - 1)

// 10^0 .. 10^9 as doubles: each exact, so a product or quotient by one rounds once.
constexpr double kExact10[10] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

// 10^-4 .. 10^6 for the decimal exponent's test; index i holds 10^(i - 4).
constexpr double kDecade[11] = {1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6};

// A figure below 10^6 as six digits and a decimal exponent: digits x 10^(exponent - 5), the
// digits in [10^5, 10^6), exponent = floor(log10 of the figure).
struct Rounded {
  uint64_t digits;
  int exponent;
};

// x rounded to the nearest integer, ties to even (the FPU's mode); x in [0, 2^63).
uint64_t nearest(double x) {
#if defined(__SSE2__)
  return static_cast<uint64_t>(_mm_cvtsd_si64(_mm_set_sd(x)));  // one instruction
#else
  return static_cast<uint64_t>(std::llrint(x));
#endif
}

// `m` (10^-4 <= m < 10^6, its bits `bits`) as six digits. Forced inline: GCC kept it a call from
// both of its callers (issue 18: ~120 instructions a JSONL line).
[[gnu::always_inline]] inline Rounded round_to_digits(double m, uint64_t bits) {
  // m is in [2^e2, 2^(e2+1)), so floor(log10 m) is floor(e2 log10 2) or one more (78913 / 2^18 is
  // log10 2 to 7 digits, exact enough for |e2| < 1,000); the arithmetic shift floors.
  const int e2 = static_cast<int>(bits >> 52) - 1023;
  int exponent = (e2 * 78913) >> 18;
  exponent += m >= kDecade[exponent + 5] ? 1 : 0;
  // One rounding of the scaled value (the power is exact), then one to an integer. Where the
  // decade test was off by the table's rounding (10^-k is not a double), the digits come out
  // 10^6 and are scaled back.
  uint64_t digits = nearest(m * kExact10[kFigureDigits - 1 - exponent]);
  if (digits == 10 * kFirstFigure) {
    digits = kFirstFigure;
    ++exponent;
  }
  return {digits, exponent};
}

// The double nearest the rounded figure: digits and 10^|j| are exact, so it rounds once.
double value_of(const Rounded& r) {
  const int j = r.exponent - (kFigureDigits - 1);
  const auto digits = static_cast<double>(r.digits);
  return j >= 0 ? digits * kExact10[j] : digits / kExact10[-j];
}

// Whether Grisu2 may write more digits than six for v = value_of(r). It writes the decimal d
// that is the figure whenever d lies inside its interval around v: the half-way points to v's
// neighbours, narrowed by its cached power's rounding (a few units in 2^-10 of an ulp; Loitsch,
// PLDI 2010, section 5). From 10^5 d is v itself (an integer). Below, d = digits / 10^j is
// tested exactly against v = M x 2^E: d - v = (digits x 2^-E - M x 10^j) / 10^j ulps. That
// numerator is at most 10^j / 2 (v is d rounded), so it is exact modulo 2^64 though its terms
// are not. Closer than 31/64 of an ulp to an end of the interval, or v a power of two (whose
// interval below is half as wide), the figure goes the exact way (~3% of figures).
bool near_interval_end(const Rounded& r, double v) {
  if (r.exponent >= kFigureDigits - 1) return false;
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const uint64_t significand = (bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
  if (significand == uint64_t{1} << 52) return true;
  const int minus_e = 1075 - static_cast<int>(bits >> 52);  // -E: 10^-4 <= v < 10^5, so 36..66
  const uint64_t ten_j = kPow10U64[kFigureDigits - 1 - r.exponent];
  // Two shifts: one of 64 or more is undefined, and modulo 2^64 it is zero.
  const uint64_t scaled_d = (r.digits << (minus_e / 2)) << (minus_e - minus_e / 2);
  const auto gap = static_cast<int64_t>(scaled_d - significand * ten_j);
  const uint64_t distance = gap < 0 ? 0 - static_cast<uint64_t>(gap) : static_cast<uint64_t>(gap);
  return distance * 64 > ten_j * 31;
}

constexpr char kPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// The six digits of r at `text` (8 bytes of room), as three pairs; returns how many are left
// once trailing zeros are dropped (the first digit is not zero).
int six_digits(char* text, uint64_t digits) {
  const auto n = static_cast<uint32_t>(digits);
  const uint32_t high = n / 10000, rest = n - high * 10000, middle = rest / 100;
  std::memcpy(text, kPairs + 2 * high, 2);
  std::memcpy(text + 2, kPairs + 2 * middle, 2);
  std::memcpy(text + 4, kPairs + 2 * (rest - middle * 100), 2);
  // The digits as one little-endian word: a '0' byte XOR '0' is zero, so the trailing zeros are
  // the leading zero bytes of the six-byte value.
  uint64_t word;
  std::memcpy(&word, text, 8);
  const uint64_t nonzero = (word ^ 0x303030303030) & 0xFFFFFFFFFFFF;
  return kFigureDigits - (std::countl_zero(nonzero) - 16) / 8;
}

// `length` digits of `text` laid out as nlohmann's format_buffer lays out a number whose first
// `point` digits are whole (-3 <= point <= 7).
char* laid_out(char* p, const char* text, int length, int point) {
  if (point >= length) {  // whole: the digits, zeros, ".0"
    std::memcpy(p, text, 8);
    std::memset(p + length, '0', 8);
    std::memcpy(p + point, ".0", 2);
    return p + point + 2;
  }
  if (point > 0) {  // the point among the digits
    std::memcpy(p, text, 8);
    p[point] = '.';
    std::memcpy(p + point + 1, text + point, 8);
    return p + length + 1;
  }
  std::memcpy(p, "0.000000", 8);  // 0.000ddd
  std::memcpy(p + 2 - point, text, 8);
  return p + 2 - point + length;
}

}  // namespace

double json_figure_value(double v) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double m = std::fabs(v);
  if (m >= 0x1p52) return v;
  if (m >= 1e6) return std::copysign(static_cast<double>(nearest(m)), v);
  if (m >= 1e-4) {
    uint64_t bits;
    std::memcpy(&bits, &m, sizeof bits);
    return std::copysign(value_of(round_to_digits(m, bits)), v);
  }
  // Below 10^-4 (no answer's figure): the C library's correctly rounded decimal.
  char text[32];
  std::snprintf(text, sizeof text, "%.*e", kFigureDigits - 1, v);
  return std::strtod(text, nullptr);
}

namespace {

// The figures write_json_figure's fractional path leaves: whole numbers, those below 10^-4 or from
// 10^6, and the ones not finite. Out of line, so that the fractional path (most of an answer's
// figures) is a leaf that saves no registers (issue 18).
[[gnu::noinline]] char* other_figure(char* p, double v) {
  const auto [sign, magnitude_bits, magnitude] = signed_magnitude(v);
  if (magnitude < 1e6) {
    *p = '-';
    p += sign;
    // A whole number (a fifth of an answer's doubles: prices, watts, years; zero too).
    if (char* end = whole_number_text(p, magnitude)) return end;
    return json_double_text(p, json_figure_value(magnitude));  // below 10^-4
  }
  if (magnitude_bits >= uint64_t{0x7FF} << 52) {  // infinite or NaN
    std::memcpy(p, "null", 4);
    return p + 4;
  }
  const double rounded = json_figure_value(magnitude);  // its whole number
  *p = '-';
  p += sign;
  if (rounded >= 1e15) return json_double_text(p, rounded);
  return whole_number_text(p, rounded);
}

}  // namespace

char* write_json_figure(char* p, double v) {
  static_assert(kJsonFloatChars >= kJsonDoubleRoom);
  static_assert(kJsonFloatChars >= 1 + 2 + 3 + 8 + 8);  // sign, "0.", zeros, laid_out's stores
  const auto [sign, magnitude_bits, magnitude] = signed_magnitude(v);
  // From 10^-4 to below 10^6 the conversion to an integer is defined: a whole number is exactly
  // its integer.
  if (!(magnitude >= 1e-4 && magnitude < 1e6) ||
      static_cast<double>(static_cast<int64_t>(magnitude)) == magnitude)
    return other_figure(p, v);
  *p = '-';
  p += sign;
  const Rounded r = round_to_digits(magnitude, magnitude_bits);
  if (const double rounded = value_of(r); near_interval_end(r, rounded))
    return json_double_text(p, rounded);
  char text[16];
  const int length = six_digits(text, r.digits);
  return laid_out(p, text, length, r.exponent + 1);
}

}  // namespace gpusizer
