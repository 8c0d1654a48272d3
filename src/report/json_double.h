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

namespace gpusizer {

/// Room json_double_text() may write into, past the text's own at most 25 characters (it stores
/// whole words).
inline constexpr int kJsonDoubleRoom = 64;

/// `v` (finite) as nlohmann::detail::to_chars writes it, at `p`; returns the end.
char* json_double_text(char* p, double v);

}  // namespace gpusizer
