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
namespace gpusizer {

/// Room a result of fixed_text() or general_text() needs.
inline constexpr int kFloatTextChars = 32;

/// printf("%.*f", precision, v) into `out`, the end returned; nullptr when the fast path cannot
/// answer: v not finite, |v| x 10^precision >= 2^53 (but for a whole number below 10^8), 0 < |v|
/// < 1e-250, precision outside 0..15, or an exact tie.
char* fixed_text(char* out, double v, int precision);

/// printf("%.*g", precision, v) into `out`, the end returned; nullptr when the fast path cannot
/// answer: v not finite, |v| >= 1e15, a small value whose exponent form needs 10^k past 1e22
/// (decimal exponent X below precision - 23) or rounds up to 10^-4, 0 < |v| < 1e-250,
/// precision outside 1..15, or an exact tie.
char* general_text(char* out, double v, int precision);

}  // namespace gpusizer
