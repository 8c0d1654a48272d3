#pragma once
// Guards for JSON text from strangers: a nesting limit checked before parsing (so a deeply
// nested header cannot exhaust the stack) and UTF-8 repair for strings read from binary files.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace gpusizer {

/// Parses `text` as JSON; throws InputError(`where`, ..., `code`) when it is malformed or nested
/// deeper than 64 levels.
nlohmann::json parse_json_guarded(std::string_view text, const std::string& where,
                                  const std::string& code = "bad_file");

/// `s` with every byte that is not part of a valid UTF-8 sequence replaced by '?', so that it can
/// be stored in a JSON value and dumped safely.
std::string sanitize_utf8(std::string_view s);

}  // namespace gpusizer
