#pragma once
// The pieces of a basis text appended to a string one by one, without a format: a literal,
// an integer as "{}" writes it, a double as "{:g}" writes it (format_text's text; fmt documents
// "g" as printf's "%g", C17 7.21.6.1). fmt's compiled format copies each literal piece of a text
// through a call into its buffer and each double through its formatter's context; a text of a
// few short pieces costs several times its bytes (issue 18). A producer whose text is a short
// run of literals and numbers writes it here straight into the basis (Basis::set_with).
#include <fmt/compile.h>
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>

#include "core/float_text.h"

namespace gpusizer {

/// "{}" of an integer: its decimal digits, a '-' before a negative one.
inline void append_integer(std::string& out, int64_t v) {
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  out.append(buf, static_cast<size_t>(end - buf));
}

/// "{:g}" of a double (printf's "%g", six significant digits): float_text's fast path, and fmt's
/// own formatter for what it declines (exponent forms, ties, non-finite values).
inline void append_general(std::string& out, double v) {
  char buf[kFloatTextChars];
  if (const char* end = general_text(buf, v, 6))
    out.append(buf, static_cast<size_t>(end - buf));
  else
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:g}"), v);
}

/// "{:.Nf}" of a double, N = `precision` (printf's "%.*f"); with `plus`, "{:+.Nf}" (a '+' before
/// a value without a minus sign). float_text's fast path, fmt's own formatter for the rest.
inline void append_fixed(std::string& out, double v, int precision, bool plus = false) {
  char buf[kFloatTextChars + 1];
  char* p = buf;
  if (plus && !std::signbit(v)) *p++ = '+';
  if (const char* end = fixed_text(p, v, precision))
    out.append(buf, static_cast<size_t>(end - buf));
  else if (plus)
    fmt::format_to(std::back_inserter(out), "{:+.{}f}", v, precision);
  else
    fmt::format_to(std::back_inserter(out), "{:.{}f}", v, precision);
}

/// A double as "{:g}" writes it, for append_text.
struct General {
  double value;
};
/// A double as "{:.Nf}" writes it, N = `precision`, and with `plus` as "{:+.Nf}", for append_text.
struct Fixed {
  double value;
  int precision;
  bool plus = false;
};

inline void append_piece(std::string& out, std::string_view text) {
  out.append(text);
}
/// A literal: its length is the array's less the terminating '\0', known at compile time (issue
/// 18: the conversion to a view measured it with strlen, five times a text). The array pieces of
/// a text are its literals; a buffer goes in as a view of what it holds.
template <size_t N>
void append_piece(std::string& out, const char (&literal)[N]) {
  static_assert(N >= 1);
  out.append(literal, N - 1);
}
inline void append_piece(std::string& out, char c) {
  out.push_back(c);
}
inline void append_piece(std::string& out, int64_t v) {
  append_integer(out, v);
}
inline void append_piece(std::string& out, int v) {
  append_integer(out, v);
}
inline void append_piece(std::string& out, General g) {
  append_general(out, g.value);
}
inline void append_piece(std::string& out, Fixed f) {
  append_fixed(out, f.value, f.precision, f.plus);
}
// A bare double says neither "{:g}" nor "{:.Nf}": name the form (General or Fixed).
void append_piece(std::string& out, double) = delete;

// Each piece written at `p` (put_piece, returning the end, or null for a number float_text
// declines) within the room piece_room says it may take.
template <size_t N>
constexpr size_t piece_room(const char (&)[N]) {
  return N - 1;
}
inline size_t piece_room(std::string_view text) {
  return text.size();
}
constexpr size_t piece_room(char) {
  return 1;
}
constexpr size_t piece_room(int64_t) {
  return 20;
}
constexpr size_t piece_room(int) {
  return 11;
}
constexpr size_t piece_room(General) {
  return kFloatTextChars;
}
constexpr size_t piece_room(Fixed) {
  return kFloatTextChars + 1;
}
template <size_t N>
char* put_piece(char* p, const char (&literal)[N]) {
  std::memcpy(p, literal, N - 1);
  return p + N - 1;
}
inline char* put_piece(char* p, std::string_view text) {
  if (!text.empty()) std::memcpy(p, text.data(), text.size());
  return p + text.size();
}
inline char* put_piece(char* p, char c) {
  *p = c;
  return p + 1;
}
inline char* put_piece(char* p, int64_t v) {
  return std::to_chars(p, p + 20, v).ptr;
}
inline char* put_piece(char* p, int v) {
  return std::to_chars(p, p + 11, v).ptr;
}
inline char* put_piece(char* p, General g) {
  return general_text(p, g.value, 6);
}
inline char* put_piece(char* p, Fixed f) {
  if (f.plus && !std::signbit(f.value)) *p++ = '+';
  return fixed_text(p, f.value, f.precision);
}

// A piece append_text can write into its buffer (a producer's own piece type may add both).
template <class Piece>
concept Puttable = requires(char* p, const Piece& piece) {
  { put_piece(p, piece) } -> std::same_as<char*>;
  piece_room(piece);
};

/// A text of literals and numbers appended in one call, read as its template reads:
/// append_text(out, "cloud: ", count, " x ", name, " (", General{price}, "/h)"). The pieces are
/// written into a buffer on the stack and appended once (issue 18: a string append, a call with
/// its checks, for each of a text's ~10 pieces); a text longer than the buffer, a piece without
/// put_piece, or a number float_text declines (then fmt writes it) takes the append per piece.
template <class... Pieces>
void append_text(std::string& out, const Pieces&... pieces) {
  constexpr bool kPut = (Puttable<Pieces> && ...);
  if constexpr (kPut) {
    constexpr size_t kRoom = 512;
    if ((piece_room(pieces) + ... + 0) <= kRoom) {
      char buffer[kRoom];
      char* p = buffer;
      if ((((p = put_piece(p, pieces)) != nullptr) && ...)) {
        out.append(buffer, static_cast<size_t>(p - buffer));
        return;
      }
    }
  }
  (append_piece(out, pieces), ...);
}

}  // namespace gpusizer
