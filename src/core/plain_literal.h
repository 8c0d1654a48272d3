#pragma once
// A literal known, when the program is compiled, to need no escaping in a JSON string, so that
// the writers copy it without testing it (issue 18).
#include <cstddef>
#include <string_view>

namespace gpusizer {

/// Called by PlainLiteral's constructor for a character JSON escapes: not constexpr, so that
/// the compiler refuses the literal and names this function.
inline void a_literal_needs_json_escaping() {}

/// A literal that needs no escaping in a JSON string (json_plain, report/json_text_parts.h:
/// printable ASCII, no quote or backslash): a literal that would need it does not compile.
class PlainLiteral {
 public:
  template <size_t N>
  consteval PlainLiteral(const char (&text)[N]) : text_(text, N - 1) {  // NOLINT: a literal
    for (const char c : text_)
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7f ||
          c == '"' || c == '\\')
        a_literal_needs_json_escaping();  // not constexpr: the literal does not compile
  }
  constexpr std::string_view view() const { return text_; }
  constexpr operator std::string_view() const { return text_; }  // NOLINT: read as text

 private:
  std::string_view text_;
};

}  // namespace gpusizer
