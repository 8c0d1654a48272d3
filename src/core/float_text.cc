#include "core/float_text.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/decimal_word.h"
#include "core/pow10.h"

namespace gpusizer {
namespace {

// 10^0 .. 10^22: every one exact in a double (5^22 < 2^53).
constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
constexpr int kMaxPrecision = 15;
constexpr double kTwo53 = 9007199254740992.0;  // from here on a double holds no fraction
// Below it the product's rounding error could be subnormal and so not exact.
constexpr double kSmallest = 1e-250;

// a x 10^n exactly, as the rounded product and its rounding error (a >= kSmallest or 0, n <= 22):
// the error of a double product is itself a double, and fma computes it without rounding.
struct Product {
  double rounded;
  double error;
};

Product times_pow10(double a, int n) {
  const double rounded = a * kPow10[n];
  return {rounded, std::fma(a, kPow10[n], -rounded)};
}

// The integer nearest to the exact product p (< 2^53); false on an exact tie. The conversions
// here and below are to and from int64, which the values below 2^53 fit: one instruction each
// way, where uint64's take a test and a branch more on x86-64 (issue 18). Truncation is the
// floor here (p >= 0), and p.rounded - whole is exact (whole <= p.rounded < whole + 1), and so is
// its difference from 0.5 wherever the sum could come out near zero (between 0.25 and 1,
// Sterbenz); a rounded sum has the exact sum's sign.
bool round_product(const Product& p, uint64_t& rounded) {
  const auto whole = static_cast<int64_t>(p.rounded);
  const double off_half = (p.rounded - static_cast<double>(whole) - 0.5) + p.error;
  if (off_half == 0) return false;
  rounded = static_cast<uint64_t>(whole) + (off_half > 0 ? 1 : 0);
  return true;
}

// "00" .. "99": two digits per division.
constexpr char kPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// The decimal digits of 0 < v < 2^53 (0 for 0): the bit length times log10(2) (1233 / 4096
// rounds it down by less than one digit), then one compare for the digit it may miss.
int digit_count(uint64_t v) {
  const int bits = 64 - std::countl_zero(v | 1);
  const int t = bits * 1233 >> 12;
  return t + (v >= kPow10U64[t] ? 1 : 0);
}

// write_scaled's digits (`count` of them) from the right, two at a time, in `Word` arithmetic:
// 32 bits when they fit, whose divisions by 100 are cheaper than 64 bits' (issue 18).
template <typename Word>
char* write_scaled_as(char* out, Word digits, int decimals, int count) {
  const int whole = std::max(1, count - decimals);
  char* const end = out + whole + (decimals > 0 ? decimals + 1 : 0);
  char* p = end;
  const auto pair = [&p, &digits] {
    const auto i = static_cast<size_t>(digits % 100) * 2;
    digits /= 100;
    p -= 2;
    p[0] = kPairs[i];
    p[1] = kPairs[i + 1];
  };
  int left = decimals;  // the fraction: exactly `decimals` digits
  for (; left >= 2; left -= 2) pair();
  if (left == 1) {
    *--p = static_cast<char>('0' + digits % 10);
    digits /= 10;
  }
  if (decimals > 0) *--p = '.';
  while (p - out >= 2) pair();  // the integral part: `whole` digits
  if (p > out) *--p = static_cast<char>('0' + digits);
  return end;
}

// `digits` (below 10^8) with `decimals` (<= 7) after the point, from the word of its eight
// digits (core/decimal_word.h): the last max(count, decimals + 1) of them, the point stored among
// them, in five stores and no loop (issue 18: the digits two at a time from the right, with a
// branch per pair, were ~55 instructions of each of a basis text's numbers). Stores up to 17
// bytes.
char* write_scaled_word(char* out, uint32_t digits, int decimals) {
  const uint64_t numbers = decimal_word::digits8(digits);
  // The leading zero digits are the low zero bytes; 0 has eight.
  const int count = numbers == 0 ? 0 : 8 - std::countr_zero(numbers) / 8;
  const int shown = std::max(count, decimals + 1);  // "0.00128": the zeros before the digits
  const uint64_t text = (numbers + decimal_word::kZeros) >> (8 * (8 - shown));
  std::memcpy(out, &text, 8);
  if (decimals == 0) return out + shown;
  const int whole = shown - decimals;  // 1 to 7
  out[whole] = '.';
  const uint64_t fraction = text >> (8 * whole);
  std::memcpy(out + whole + 1, &fraction, 8);
  return out + shown + 1;
}

// `digits` (an integer below 2^53) written with `decimals` (<= 18) digits after the point, at
// least one before it: below 10^8 with at most seven decimals from its word, else its length is
// known first, so the digits are written in place from the right, two at a time (issue 18: a
// digit a division into a buffer, then a copy, was ~90 instructions of each of the ~40 numbers
// of a JSONL line's basis).
char* write_scaled(char* out, uint64_t digits, int decimals) {
  if (digits < 100000000 && decimals <= 7)
    return write_scaled_word(out, static_cast<uint32_t>(digits), decimals);
  const int count = digit_count(digits);
  if (digits <= UINT32_MAX)
    return write_scaled_as(out, static_cast<uint32_t>(digits), decimals, count);
  return write_scaled_as(out, digits, decimals, count);
}

// The sign printf writes: '-' for every negative value, negative zero included.
char* write_sign(char* out, double v) {
  if (std::signbit(v)) *out++ = '-';
  return out;
}

// The decimal exponent of 0 < a < 1e15 as the table's literals bound it, -5 for anything below
// 1e-4; a guess the caller checks against the exact product, since 1e-4's literal is not 10^-4.
// From 1 on it is the digit count of a's integral part less one (a >= 10^k exactly when
// floor(a) >= 10^k, both sides whole), not a walk up the table (issue 18).
int decimal_exponent(double a) {
  static constexpr double kSmall[] = {1e-4, 1e-3, 1e-2, 1e-1};
  int x = -5;
  if (a < 1.0) {
    for (double p : kSmall) {
      if (a < p) break;
      ++x;
    }
    return x;
  }
  return digit_count(static_cast<uint64_t>(static_cast<int64_t>(a))) - 1;
}

// Whether the exact product p is at least `bound`, or below it.
bool at_least(const Product& p, double bound) {
  return p.rounded > bound || (p.rounded == bound && p.error >= 0);
}

// "%g" of a short decimal 1e-3 <= a < 1e12 of one to three decimals that has at most
// `precision` significant digits (0.9, 7.56, 0.125; half of the basis texts' other "%g" values),
// or null: a is n / 10^k, n not a multiple of 10, when the double nearest that decimal (a
// correctly rounded division) is a. a then differs from n / 10^k by at most half an ulp, far
// less than half a unit in the precision's last digit (10^-15 of a at the most, an ulp is
// 2^-52 of it), so rounded to the precision a is n / 10^k: its digits, its exponent (from -3
// up to precision - 2, "%f" form) and no trailing zero to remove (issue 18: the product, its
// exact rounding and the zeros' removal, ~100 instructions).
char* short_general(char* out, double v, double a, int precision) {
  const auto scaled = static_cast<int64_t>(a * 1000.0 + 0.5);  // a candidate (< 10^15)
  if (scaled <= 0 || static_cast<double>(scaled) / 1000.0 != a) return nullptr;
  auto n = static_cast<uint64_t>(scaled);
  int k = 3;
  while (k > 0 && n % 10 == 0) {
    n /= 10;
    --k;
  }
  if (k == 0 || digit_count(n) > precision) return nullptr;
  return write_scaled(write_sign(out, v), n, k);
}

// `digits` (precision of them) as "d.ddd" without the fraction's trailing zeros, then the
// exponent x: a sign and at least two digits (C17 7.21.6.1); |x| <= 22 here.
char* write_exponent_form(char* out, double v, uint64_t digits, int precision, int x) {
  int shown = precision - 1;
  while (shown > 0 && digits % 10 == 0) {
    digits /= 10;
    --shown;
  }
  out = write_scaled(write_sign(out, v), digits, shown);
  const int magnitude = x < 0 ? -x : x;
  out[0] = 'e';
  out[1] = x < 0 ? '-' : '+';
  out[2] = static_cast<char>('0' + magnitude / 10);
  out[3] = static_cast<char>('0' + magnitude % 10);
  return out + 4;
}

// "%g"'s exponent form of 10^precision <= a < 1e15 (x, a's decimal exponent, at least the
// precision): the digits of a / 10^k rounded to an integer, k = x - precision + 1, as
// "d.ddde+XX" without the fraction's trailing zeros; null on an exact tie (issue 18: a training
// basis' step times of a second or more, "%.3g ms", went to snprintf at ~2,170 instructions
// each). Every product below is exact: q x 10^k and (q + 1/2) x 10^k are at most 2a + 10^k, a
// multiple of 2^(k-1) below 2^53 x 2^(k-1), so the integer nearest the exact quotient is found
// by compares with a itself, with no rounding error to track.
char* exponent_general(char* out, double v, double a, int x, int precision) {
  const int k = x - precision + 1;
  const double scale = kPow10[k];
  auto q = static_cast<int64_t>(a / scale);  // the floor, or one above it: the quotient rounded
  if (static_cast<double>(q) * scale > a) --q;
  const double mid = (static_cast<double>(q) + 0.5) * scale;
  if (a == mid) return nullptr;
  if (a > mid) ++q;
  auto digits = static_cast<uint64_t>(q);
  if (digits == kPow10U64[precision]) {  // 9.995e+03 to three digits carries to 1.00e+04
    digits = kPow10U64[precision - 1];
    ++x;
  }
  return write_exponent_form(out, v, digits, precision, x);
}

// "%g"'s exponent form below 10^-4 (decimal exponent x <= -5) while 10^k is exact, k = precision
// - 1 - x <= 22: the digits of a x 10^k rounded to an integer, as "d.ddde-XX" without the
// fraction's trailing zeros; null on an exact tie and on a carry up to 10^-4 ("%f" form). x is
// found exactly: a guess from a's binary exponent (floor(e2 log10 2), or one above it, as
// 1233 / 4096 is a little under log10 2; a in [2^e2, 2^(e2 + 1)) puts x within one of it), moved
// until the exact product has `precision` integral digits (issue 18: a decode step's "%.3g ms"
// of 9.63e-05 went to snprintf, ~1,800 instructions). Kept out of line: inlined into
// general_text it cost its common forms a few instructions each (+40 a line with an inline
// config).
[[gnu::noinline]] char* small_exponent_general(char* out, double v, double a, int precision) {
  const int e2 = static_cast<int>(std::bit_cast<uint64_t>(a) >> 52) - 1023;  // a >= kSmallest
  int x = (e2 * 1233) >> 12;
  const double low = kPow10[precision - 1], high = kPow10[precision];
  for (int tries = 0; tries < 3; ++tries) {
    const int k = precision - 1 - x;
    if (k > 22) {  // past the exact powers: unless x is one above the guess, not ours
      if (tries > 0) return nullptr;
      ++x;
      continue;
    }
    const Product scaled = times_pow10(a, k);
    if (!at_least(scaled, low)) {
      --x;
    } else if (at_least(scaled, high)) {
      ++x;
    } else {
      uint64_t digits = 0;
      if (!round_product(scaled, digits)) return nullptr;
      if (digits == static_cast<uint64_t>(high)) {  // 9.9996e-06 to three digits: 1.00e-05
        digits = static_cast<uint64_t>(low);
        ++x;
      }
      if (x > -5) return nullptr;
      return write_exponent_form(out, v, digits, precision, x);
    }
  }
  return nullptr;
}

// printf's "%.*f" and "%.*g" of what the whole-number paths below leave. Kept out of line, so
// that those paths are a leaf that saves no registers and tail-calls here.
[[gnu::noinline]] char* fixed_text_rest(char* out, double v, int precision) {
  if (precision < 0 || precision > kMaxPrecision || !std::isfinite(v)) return nullptr;
  const double a = std::fabs(v);
  if (a != 0 && a < kSmallest) return nullptr;
  // A whole number (half of the basis texts' fixed values): its digits times 10^precision,
  // exact below 2^53, are the rounded product; no product and no rounding to work out.
  if (a < kTwo53) {
    const auto whole = static_cast<int64_t>(a);  // signed: see round_product
    if (static_cast<double>(whole) == a && a * kPow10[precision] < kTwo53)
      return write_scaled(write_sign(out, v), static_cast<uint64_t>(whole) * kPow10U64[precision],
                          precision);
  }
  const Product scaled = times_pow10(a, precision);
  if (!(scaled.rounded < kTwo53)) return nullptr;
  uint64_t digits = 0;
  if (!round_product(scaled, digits)) return nullptr;
  return write_scaled(write_sign(out, v), digits, precision);
}

[[gnu::noinline]] char* general_text_rest(char* out, double v, int precision) {
  if (precision < 1 || precision > kMaxPrecision || !std::isfinite(v)) return nullptr;
  const double a = std::fabs(v);
  if (a == 0) {  // "%g" of zero: "0", "-0"
    out = write_sign(out, v);
    *out++ = '0';
    return out;
  }
  if (a < kSmallest || !(a < kPow10[kMaxPrecision])) return nullptr;
  // A whole number of at most `precision` digits (half of the basis texts' general values) is
  // its digits: "%f" of it has only zeros after the point, which "%g" removes with the point.
  const auto whole = static_cast<int64_t>(a);  // signed: see round_product
  if (static_cast<double>(whole) == a && a < kPow10[precision])
    return write_scaled(write_sign(out, v), static_cast<uint64_t>(whole), 0);
  if (a < 1e12) {
    if (char* end = short_general(out, v, a, precision)) return end;
  }
  // C17 7.21.6.1: "%g" is "%e" when the exponent X of the value rounded to `precision` digits is
  // below -4 or at least the precision, else "%f" with precision - 1 - X decimals; then trailing
  // zeros of the fraction, and a point left bare, are removed.
  const int x = decimal_exponent(a);
  if (x >= precision) return exponent_general(out, v, a, x, precision);
  if (x < -4) return small_exponent_general(out, v, a, precision);
  const int decimals = precision - 1 - x;
  const Product scaled = times_pow10(a, decimals);
  // X is right when the exact product has `precision` digits before the point, and stays right
  // when rounding does not carry it to 10^precision.
  const double low = kPow10[precision - 1], high = kPow10[precision];
  if (!at_least(scaled, low) || at_least(scaled, high)) return nullptr;
  uint64_t digits = 0;
  if (!round_product(scaled, digits)) return nullptr;
  if (digits >= static_cast<uint64_t>(high)) return nullptr;
  // The fraction's trailing zeros, and so a point left bare, removed from the number before it
  // is written rather than from its text after (a whole or short value writes fewer digits).
  int shown = decimals;
  while (shown >= 2 && digits % 100 == 0) {
    digits /= 100;
    shown -= 2;
  }
  if (shown > 0 && digits % 10 == 0) {
    digits /= 10;
    --shown;
  }
  return write_scaled(write_sign(out, v), digits, shown);
}

// Whether |v| (`a`) is a whole number below 10^8, then held in `whole`: half of the basis texts'
// numbers (counts, watts, hours, prices, zeros), written from one word's digits
// (core/decimal_word.h) before anything else is tested (issue 18: the checks, the product's
// paths and the digits two at a time were ~100 instructions each).
bool small_whole(double a, uint32_t& whole) {
  if (!(a < 1e8)) return false;  // NaN fails too; the cast below is then defined
  whole = static_cast<uint32_t>(a);
  return static_cast<double>(whole) == a;
}

// `whole` (below 10^8), after a '-' when v is negative (negative zero too, as printf writes it);
// stores nine bytes at `out`.
char* signed_whole(char* out, double v, uint32_t whole) {
  *out = '-';
  out += std::signbit(v) ? 1 : 0;
  if (whole == 0) {
    *out = '0';
    return out + 1;
  }
  return decimal_word::leading(out, whole);
}

}  // namespace

char* fixed_text(char* out, double v, int precision) {
  uint32_t whole = 0;
  if (precision >= 0 && precision <= kMaxPrecision && small_whole(std::fabs(v), whole)) {
    char* end = signed_whole(out, v, whole);
    if (precision == 0) return end;
    std::memcpy(end, ".000000000000000", 16);  // the point and `precision` zeros
    return end + 1 + precision;
  }
  return fixed_text_rest(out, v, precision);
}

char* general_text(char* out, double v, int precision) {
  // A whole number of at most `precision` digits is its digits: "%f" of it has only zeros after
  // the point, which "%g" removes with the point.
  uint32_t whole = 0;
  if (precision >= 1 && precision <= kMaxPrecision && small_whole(std::fabs(v), whole) &&
      whole < kPow10U64[precision])
    return signed_whole(out, v, whole);
  return general_text_rest(out, v, precision);
}

}  // namespace gpusizer
