#pragma once
// The JSON a scenario line is nearly always written in, read straight into nlohmann's tree
// (issue 18: nlohmann's lexer and the strict parser's callback were ~15k instructions of a
// 60-byte line, more than a seventh of it). Anything outside that subset is declined, and
// parse_json_input reads it with nlohmann as before, so every error and its message stay
// nlohmann's.
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace gpusizer {

/// `text` as the tree nlohmann::json::parse builds from it (the same values and the same number
/// types: unsigned for a plain integer, signed for a negative one, double otherwise), when the
/// text is plain: objects without a repeated key, arrays, nesting at most 32 deep, strings of
/// printable ASCII without escapes, integers up to 18 digits, decimals a double holds, true,
/// false, null, and the four JSON whitespace bytes. Otherwise nullopt, the text not judged.
std::optional<nlohmann::json> parse_plain_json(std::string_view text);

}  // namespace gpusizer
