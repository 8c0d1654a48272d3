#include "report/json_double.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/pow10.h"
#include "report/json_integer.h"
#include "report/json_text_parts.h"

namespace gpusizer {
namespace {

__extension__ typedef unsigned __int128 Wide;

// x * y / 2^64, rounded half up: the upper half of the product as Grisu's diy_fp multiplication
// keeps it.
uint64_t times(uint64_t x, uint64_t y) {
  return static_cast<uint64_t>((static_cast<Wide>(x) * y + (uint64_t{1} << 63)) >> 64);
}

constexpr uint32_t kPow10[10] = {1,      10,      100,      1000,      10000,
                                 100000, 1000000, 10000000, 100000000, 1000000000};

// The number of decimal digits of n >= 1.
int digit_count(uint32_t n) {
  const int t = ((32 - std::countl_zero(n)) * 1233) >> 12;  // floor(bits x log10 2), or one over
  return t + 1 - (n < kPow10[t] ? 1 : 0);
}

constexpr char kPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// n's `count` digits at p.
void write_digits(char* p, uint32_t n, int count) {
  char* end = p + count;
  while (n >= 100) {
    end -= 2;
    std::memcpy(end, kPairs + 2 * (n % 100), 2);
    n /= 100;
  }
  if (n >= 10) {
    std::memcpy(end - 2, kPairs + 2 * n, 2);
  } else {
    end[-1] = static_cast<char>('0' + n);
  }
}

// Grisu2's last step: the last digit lowered while that brings the digits closer to the value
// and keeps them inside the interval (`rest` is the digits' distance below the upper bound,
// `dist` the value's, `unit` one step of the last digit, `delta` the interval's width).
void round_toward(char* last, uint64_t dist, uint64_t delta, uint64_t rest, uint64_t unit) {
  while (rest < dist && delta - rest >= unit &&
         (rest + unit < dist || dist - rest > rest + unit - dist)) {
    --*last;
    rest += unit;
  }
}

// Whether Grisu2's digit loop stops after m fraction digits: what is left of p2 / 2^shift after
// its first m decimal digits, (p2 x 10^m) mod 2^shift, is at most the interval's width scaled
// as many times, delta x 10^m. Once true it stays true (the rest times 10 keeps under the width
// times 10), and it is true whenever delta x 10^m reaches 2^shift (the rest never does), in
// particular when the product does not fit 64 bits.
bool stops_after(uint64_t p2, uint64_t delta, int shift, int m) {
  uint64_t width;
  if (__builtin_mul_overflow(delta, kPow10U64[m], &width)) return true;
  return ((p2 * kPow10U64[m]) & ((uint64_t{1} << shift) - 1)) <= width;
}

// The number of fraction digits Grisu2's loop writes for p2 > delta (both below 2^shift), found
// without writing them (issue 18: the loop wrote one digit, ~13 instructions, at a time): the
// first m >= 1 that stops_after holds for. Searched from m0 = floor(bits log10 2) + 1, where
// 2^shift / delta is in [2^bits, 2^(bits+1)) (1233 / 4096 gives that floor for bits <= 60), then
// down while the one before also stops. m0 + 1 always stops: 10^(m0+1) > 10 x 2^bits >=
// 2^(bits+1), so delta x 10^(m0+1) reaches 2^shift; when m0 does not, m0 + 1 is the count
// without a test. 0 past 19 digits (not expected: Grisu2 writes at most 17); the caller then
// runs the loop itself.
[[gnu::always_inline]] inline int fraction_count(uint64_t p2, uint64_t delta, int shift) {
  const int bits =
      shift - (64 - std::countl_zero(delta));  // 2^shift / delta in [2^bits, 2^(bits+1))
  int m = bits <= 0 ? 1 : ((bits * 1233) >> 12) + 1;
  if (m > 19) return 0;
  if (stops_after(p2, delta, shift, m)) {
    while (m > 1 && stops_after(p2, delta, shift, m - 1)) --m;
    return m;
  }
  return m < 19 ? m + 1 : 0;
}

struct Digits {
  char text[48];  // the digits, then '0's (the layout copies whole words)
  int length = 0;
  int exponent = 0;  // the value is text[0, length) x 10^exponent
};

// Grisu2's digits of v > 0 (finite).
void grisu_digits(double v, Digits& out) {
  std::memset(out.text, '0', sizeof out.text);
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  const auto biased = static_cast<int>(bits >> 52);
  const uint64_t f = biased == 0 ? fraction : fraction | (uint64_t{1} << 52);
  const int e = (biased == 0 ? 1 : biased) - 1075;
  // The boundaries halfway to the neighbours, m+ = (2f + 1) 2^(e-1) and m- (a quarter step below
  // when f is a power of two above the smallest normal), all three on m+'s normalized exponent.
  const int z = std::countl_zero(2 * f + 1);
  const int exp2 = e - 1 - z;
  const bool closer = fraction == 0 && biased > 1;
  const auto c = nlohmann::detail::dtoa_impl::get_cached_power_for_binary_exponent(exp2);
  const uint64_t w = times(f << (z + 1), c.f);
  const uint64_t plus = times((2 * f + 1) << z, c.f) - 1;
  const uint64_t minus = times(closer ? (4 * f - 1) << (z - 1) : (2 * f - 1) << z, c.f) + 1;
  const int shift = -(exp2 + c.e + 64);  // 32..60: the integral part fits 32 bits
  const uint64_t one = uint64_t{1} << shift, mask = one - 1;
  uint64_t delta = plus - minus, dist = plus - w;
  auto p1 = static_cast<uint32_t>(plus >> shift);
  uint64_t p2 = plus & mask;
  out.exponent = -c.k;
  const int k = digit_count(p1);
  char* d = out.text;
  if (p2 > delta) {
    // Every integral digit is needed (what follows them is already wider than the interval).
    const int m = fraction_count(p2, delta, shift);
    if (m > 0 && k + m <= 19) [[likely]] {
      // The m fraction digits at once, the integer part of p2 x 10^m / 2^shift, written after
      // p1's as one integer of k + m digits (p1 >= 1: no leading zero).
      const uint64_t scale = kPow10U64[m];
      const auto fraction_digits = static_cast<uint64_t>((static_cast<Wide>(p2) * scale) >> shift);
      d = json_integer_text(d, uint64_t{p1} * scale + fraction_digits);
      std::memset(d, '0', 16);  // the '0's after the digits again (whole words were stored)
      out.exponent -= m;
      out.length = static_cast<int>(d - out.text);
      round_toward(d - 1, dist * scale, delta * scale, (p2 * scale) & mask, one);
      return;
    }
    write_digits(d, p1, k);
    d += k;
    const char* fraction_digits = d;
    do {
      p2 *= 10;
      *d++ = static_cast<char>('0' + (p2 >> shift));
      p2 &= mask;
      delta *= 10;
    } while (p2 > delta);
    const auto m_slow = static_cast<int>(d - fraction_digits);
    out.exponent -= m_slow;
    out.length = static_cast<int>(d - out.text);
    // dist scaled as delta was, in one product (the same value modulo 2^64 as m products by 10;
    // it never wraps: dist <= delta).
    round_toward(d - 1, dist * kPow10U64[m_slow], delta, p2, one);
    return;
  }
  // The digits end inside the integral part: the first prefix within the interval.
  for (int n = k - 1;; --n) {
    const uint32_t pow10 = kPow10[n];
    *d++ = static_cast<char>('0' + p1 / pow10);
    p1 %= pow10;
    const uint64_t rest = (uint64_t{p1} << shift) + p2;
    if (rest <= delta) {
      out.exponent += n;
      out.length = static_cast<int>(d - out.text);
      round_toward(d - 1, dist, delta, rest, uint64_t{pow10} << shift);
      return;
    }
  }
}

// nlohmann's layout of digits `text[0, len)` x 10^(point - len): fixed notation for
// 1e-5 <= v < 1e15, else d.ddde+XX. `text` holds '0's after the digits (whole words are copied).
char* laid_out(char* p, const char* text, int len, int point) {
  if (point >= len && point <= 15) {  // whole: the digits, zeros, ".0"
    std::memcpy(p, text, 24);
    std::memcpy(p + point, ".0", 2);
    return p + point + 2;
  }
  if (point > 0 && point <= 15) {  // the point inside the digits
    std::memcpy(p, text, 16);
    p[point] = '.';
    std::memcpy(p + point + 1, text + point, 24);
    return p + len + 1;
  }
  if (point > -4 && point <= 0) {  // 0.000ddd
    std::memcpy(p, "0.00000", 8);
    std::memcpy(p + 2 - point, text, 24);
    return p + 2 - point + len;
  }
  *p = text[0];
  if (len > 1) {
    p[1] = '.';
    std::memcpy(p + 2, text + 1, 24);
    p += len + 1;
  } else {
    p += 1;
  }
  int x = point - 1;
  *p++ = 'e';
  *p++ = x < 0 ? '-' : '+';
  if (x < 0) x = -x;
  if (x >= 100) {
    *p++ = static_cast<char>('0' + x / 100);
    x %= 100;
  }
  std::memcpy(p, kPairs + 2 * x, 2);
  return p + 2;
}

#if defined(__SSE2__)
// The cached power of ten Grisu2 takes for the normal doubles of the biased exponents
// [kFirstBiased, kFirstBiased + kCommonExponents), about 2^-31 to 2^65 (an answer's doubles are
// 1e-5 to 1e12), with the shift it gives: nlohmann's get_cached_power_for_binary_exponent
// computes an index from the exponent each time (~25 instructions, issue 18), this is one load.
// Filled from that function before main; an entry still zero (a double written by another
// static initializer first) sends the double down the general path.
constexpr int kFirstBiased = 992, kCommonExponents = 96;

struct CommonPower {
  uint64_t f = 0;  // the power's significand (0: not filled)
  int shift = 0;   // 2^shift is one unit of the products' integral part
  int k = 0;       // the power is ~10^-k
};

CommonPower common_powers[kCommonExponents];

// A normal double's m+ = (2f + 1) 2^(e-1) normalized is (2f + 1) << 10 (2f + 1 has 54 bits), on
// the binary exponent biased - 1086.
[[maybe_unused]] const bool common_powers_filled = [] {
  for (int i = 0; i < kCommonExponents; ++i) {
    const int exp2 = kFirstBiased + i - 1086;
    const auto c = nlohmann::detail::dtoa_impl::get_cached_power_for_binary_exponent(exp2);
    common_powers[i] = {c.f, -(exp2 + c.e + 64), c.k};
  }
  return true;
}();

// Digits as one integer `n` of `len` digits, the decimal point after `point` of them.
struct Decimal {
  uint64_t n = 0;
  int len = 0, point = 0;
};

// Grisu2's digits of a normal double of a common exponent (common_powers); false when they
// would not fit common_text's layouts (more than 17 digits, or nlohmann's layout not "d.dd" or
// "0.0dd"). The same arithmetic as grisu_digits, with fewer steps (issue 18: ~300 instructions a
// double, ~20 doubles a line): the digits are one integer, not characters, and Grisu2's last
// step lowers that integer (it never borrows: the last digit stays at least 1, or the digit
// before it would have stopped the digits).
[[gnu::always_inline]] inline bool common_digits(uint64_t bits, const CommonPower& c,
                                                 Decimal& out) {
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  const uint64_t f = fraction | (uint64_t{1} << 52);
  const uint64_t w = times(f << 11, c.f);
  const uint64_t plus = times((2 * f + 1) << 10, c.f) - 1;
  const uint64_t minus = times(fraction == 0 ? (4 * f - 1) << 9 : (2 * f - 1) << 10, c.f) + 1;
  const int shift = c.shift;
  const uint64_t one = uint64_t{1} << shift, mask = one - 1;
  uint64_t delta = plus - minus, dist = plus - w;
  const auto p1 = static_cast<uint32_t>(plus >> shift);
  const uint64_t p2 = plus & mask;
  const int k = digit_count(p1);
  uint64_t n, rest, unit;
  if (p2 > delta) {  // every integral digit, then m fraction digits (grisu_digits' first path)
    const int m = fraction_count(p2, delta, shift);
    if (m == 0 || k + m > 17) return false;
    const uint64_t scale = kPow10U64[m];
    n = uint64_t{p1} * scale + static_cast<uint64_t>((static_cast<Wide>(p2) * scale) >> shift);
    rest = (p2 * scale) & mask;
    dist *= scale;
    delta *= scale;
    unit = one;
    out.len = k + m;
  } else {  // the first prefix of p1's digits within the interval: j digits dropped
    int j = k - 1;
    while (((uint64_t{p1 % kPow10[j]} << shift) + p2) > delta) --j;  // j = 0 always stops
    n = p1 / kPow10[j];
    rest = (uint64_t{p1 % kPow10[j]} << shift) + p2;
    unit = uint64_t{kPow10[j]} << shift;
    out.len = k - j;
  }
  // Grisu2's last step (round_toward) on n.
  while (rest < dist && delta - rest >= unit &&
         (rest + unit < dist || dist - rest > rest + unit - dist)) {
    --n;
    rest += unit;
  }
  out.n = n;
  out.point = k - c.k;  // len + the exponent, -c.k less the fraction digits or plus those dropped
  return out.point > -4 && out.point <= 15 && out.point < out.len;
}

// The text of common_digits: "d.dd" or "0.0dd"; nullptr when common_digits gives none. n's
// digits are laid out once, the point put in as they are copied (not written to a buffer of
// '0's and copied again).
[[gnu::always_inline]] inline char* common_text(char* p, uint64_t bits, const CommonPower& c) {
  Decimal d;
  if (!common_digits(bits, c, d)) return nullptr;
  // n's digits end at text + 32: a 17th from the end at text[15], the other sixteen after it.
  alignas(16) char text[64];
  constexpr uint64_t k8 = 100000000, k16 = k8 * k8;
  uint64_t low = d.n;
  if (d.len == 17) {
    text[15] = static_cast<char>('0' + low / k16);
    low %= k16;
  }
  _mm_store_si128(reinterpret_cast<__m128i*>(text + 16),
                  json_integer_detail::sixteen_digits(low / k8, low % k8));
  const __m128i zeros = _mm_set1_epi8('0');  // what the copies read past the digits
  _mm_store_si128(reinterpret_cast<__m128i*>(text + 32), zeros);
  _mm_store_si128(reinterpret_cast<__m128i*>(text + 48), zeros);
  const char* digits = text + 32 - d.len;
  const int point = d.point;
  if (point > 0) {  // the point inside the digits
    std::memcpy(p, digits, 16);
    p[point] = '.';
    std::memcpy(p + point + 1, digits + point, 16);
    return p + d.len + 1;
  }
  std::memcpy(p, "0.00000", 8);  // 0.000ddd
  std::memcpy(p + 2 - point, digits, 16);
  std::memcpy(p + 18 - point, digits + 16, 16);
  return p + 2 - point + d.len;
}
#endif

}  // namespace

char* json_double_text(char* p, double v) {
  if (std::signbit(v)) {
    *p++ = '-';
    v = -v;
  }
  if (v == 0) {
    std::memcpy(p, "0.0", 3);
    return p + 3;
  }
#if defined(__SSE2__)
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const auto common = static_cast<unsigned>((bits >> 52) - kFirstBiased);
  if (common < kCommonExponents && common_powers[common].f != 0) {
    if (char* end = common_text(p, bits, common_powers[common])) return end;
  }
#endif
  Digits g;
  grisu_digits(v, g);
  return laid_out(p, g.text, g.length, g.length + g.exponent);
}

// Here, beside json_double_text, not in json_text.cc: a double that is not whole goes on to its
// digits in the same call, its sign and magnitude taken once (issue 18: write_json_float and
// json_double_text were two calls, each testing the sign, ~20 instructions of ~25 doubles a line).
char* write_json_float(char* p, double v) {
  static_assert(kJsonFloatChars >= kJsonDoubleRoom);
  const auto [sign, magnitude_bits, magnitude] = signed_magnitude(v);
  // A whole number below 10^15 (a fifth of an answer's doubles: prices, watts, years; zero
  // too), without Grisu2. dump() writes it as its digits and ".0": Grisu2's interval around it is
  // narrower than 1 (its ulp is at most 1/8), so the digits it generates are the integer's,
  // trailing zeros dropped, and nlohmann writes fixed notation up to 15 digits before the point.
  if (magnitude < 1e15) {
    *p = '-';
    p += sign;
    if (char* end = whole_number_text(p, magnitude)) return end;
#if defined(__SSE2__)
    const auto common = static_cast<unsigned>((magnitude_bits >> 52) - kFirstBiased);
    if (common < kCommonExponents && common_powers[common].f != 0) {
      if (char* end = common_text(p, magnitude_bits, common_powers[common])) return end;
    }
#endif
  } else if (magnitude_bits >= uint64_t{0x7FF} << 52) {  // infinite or NaN
    std::memcpy(p, "null", 4);
    return p + 4;
  } else {
    *p = '-';
    p += sign;
  }
  // nlohmann's own shortest round-trip form (Grisu2), so the text is the same as dump()'s.
  Digits g;
  grisu_digits(magnitude, g);
  return laid_out(p, g.text, g.length, g.length + g.exponent);
}

}  // namespace gpusizer
