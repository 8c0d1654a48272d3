#pragma once
// JSON text for output: the same bytes as nlohmann::json::dump(indent, ' ', false,
// error_handler_t::replace), written in bulk. A 10,000-line JSONL batch writes tens of megabytes;
// nlohmann's serializer decodes every byte of every string through a UTF-8 state machine and
// writes through a virtual call per token, which made it a third of a batch's time.
#include <nlohmann/json.hpp>
#include <string>

namespace gpusizer {

/// Appends `value` as JSON text: compact when `indent` < 0, else pretty with `indent` spaces.
/// Invalid UTF-8 in strings is replaced by U+FFFD, never thrown on.
void append_json(std::string& out, const nlohmann::json& value, int indent = -1);

/// `value` as JSON text (see append_json).
std::string json_text(const nlohmann::json& value, int indent = -1);

}  // namespace gpusizer
