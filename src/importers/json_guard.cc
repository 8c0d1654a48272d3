#include "importers/json_guard.h"

#include <algorithm>

#include "gpusizer/error.h"

namespace gpusizer {
namespace {

constexpr int kMaxDepth = 64;

// Deepest nesting of arrays and objects outside strings (RFC 8259 sec. 2 and 7 grammar).
int max_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{')
      deepest = std::max(deepest, ++depth);
    else if (c == ']' || c == '}')
      --depth;
    if (deepest > kMaxDepth) break;
  }
  return deepest;
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 (RFC 3629 sec. 4 table).
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

nlohmann::json parse_json_guarded(std::string_view text, const std::string& where,
                                  const std::string& code) {
  if (max_depth(text) > kMaxDepth)
    throw InputError(where, "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels",
                     code);
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) throw InputError(where, "is not valid JSON", code);
  return j;
}

std::string sanitize_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence(s, i);
    if (n == 0) {
      out.push_back('?');
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace gpusizer
