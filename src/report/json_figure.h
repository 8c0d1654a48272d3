#pragma once
// An answer's figures in JSON: six significant digits, not a double's shortest round trip.
// A figure is the output of a model whose band is several percent wide (docs/validation.md):
// tokens per second, milliseconds, dollars, watts. Digits past the sixth say nothing, and some
// were only the binary rounding of the arithmetic (a maintenance cost of 459.90000000000003).
// A whole part is never rounded: from 10^6 a figure is its nearest whole number, so counts,
// tokens and whole prices keep every digit. Six digits are also cheaper to write: ~60
// instructions, where nlohmann's Grisu2 takes ~215 for each of the ~30 doubles of an answer
// line (issue 18).

namespace gpusizer {

/// Significant digits of a figure's JSON text.
inline constexpr int kFigureDigits = 6;

/// `v` rounded to kFigureDigits significant digits below 10^6 (scaled by an exact power of ten,
/// then to an integer, ties to even) and to a whole number from 10^6: the double nearest that
/// decimal. `v` itself when it is zero, not finite or from 2^52 (where every double is whole).
double json_figure_value(double v);

/// The JSON text of json_figure_value(v), byte for byte what nlohmann's dump() writes for that
/// double ("null" when it is not finite), at `p`, which has room for kJsonFloatChars
/// (report/json_text_parts.h); returns the end.
char* write_json_figure(char* p, double v);

}  // namespace gpusizer
