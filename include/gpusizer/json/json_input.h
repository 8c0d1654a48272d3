#pragma once
// Strict parsing of request and scenario JSON from users (CLI --input, JSONL lines, HTTP bodies).
// RFC 8259 leaves duplicate names and out-of-range numbers to the implementation (sec. 4 and 6);
// nlohmann keeps the last duplicate silently, stops at a NUL byte as if the text ended there, and
// throws out_of_range for a number that overflows a double. Here each is bad input naming where.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace gpusizer {

/// Parses `text` as one JSON value. Throws InputError:
/// - code "bad_json", field `where`: malformed JSON, or a NUL byte anywhere in the text;
/// - code "bad_input", field `where`.KEY.PATH: an object holding the same key twice;
/// - code "out_of_range", field KEY.PATH: a number that is not a finite double (1e400).
/// Nesting is not limited here: callers check the depth first (json_too_deep / the 64-level
/// guard) so that a deep text cannot exhaust the stack.
nlohmann::json parse_json_input(std::string_view text, const std::string& where);

}  // namespace gpusizer
