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

/// Where read_plain_object puts an object's members.
class MemberSink {
 public:
  /// The null value that the member `key`'s value is to be read into, or nullptr to decline the
  /// text (a key the sink does not take, or one it was given already).
  virtual nlohmann::json* value_for(std::string_view key) = 0;

 protected:
  ~MemberSink() = default;
};

/// `text` read as parse_plain_json reads it when it is a plain object, each member's value read
/// into the null value `sink` gives for its key, in the text's order, instead of into the
/// object's map (issue 18: a scenario line's object, its map nodes and their keys made and freed
/// were ~4k instructions a line). False when the text is not a plain object or the sink declines
/// a key: the text is not judged, and the values read so far are the sink's to free.
bool read_plain_object(std::string_view text, MemberSink& sink);

/// Keeps a string value read by read_plain_object or parse_plain_json for the thread's next string
/// values, its std::string and bytes reused (issue 18): `value` is left null. Any other value, and
/// a string past the kept count or size, is left as it is, to be destroyed by its owner.
void recycle_string_value(nlohmann::json& value);

}  // namespace gpusizer
