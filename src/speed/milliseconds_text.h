#pragma once
// How the speed texts write a time: in milliseconds, three significant digits.
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/float_text.h"

namespace gpusizer {

/// Writes `ms` (999.5 or more, below 10^15) at `out` as whole milliseconds to three significant
/// digits and " ms"; returns the end.
char* put_whole_milliseconds(char* out, double ms);

/// A time in seconds as append_milliseconds writes it, as a piece of append_text
/// (core/text_append.h): a speed text's times and the literals between them written into one
/// buffer and appended once (issue 18: a string append per time and per literal, five to
/// twenty a text).
struct Milliseconds {
  double seconds;
};

/// The most a time takes: general_text's longest text or sixteen whole digits, and " ms".
constexpr size_t piece_room(Milliseconds) {
  return kFloatTextChars + 3;
}

/// `seconds` as milliseconds with three significant digits and " ms": printf's "%.3g" below
/// 1,000 ms ("12.3 ms", "9.63e-05 ms"), whole milliseconds from 1,000 up ("3320 ms", where
/// "%.3g" writes "3.32e+03 ms": a training step is often seconds long, and the exponent form hid
/// it from the reader), written at `p` (piece_room's bytes); returns the end, or null where
/// general_text declines the value (append_milliseconds then takes printf's).
inline char* put_piece(char* p, Milliseconds t) {
  const double ms = t.seconds * 1e3;
  if (ms >= 999.5 && ms < 1e15) return put_whole_milliseconds(p, ms);
  // general_text() writes the same digits as "%.3g" without printf's cost, the unit after them.
  char* end = general_text(p, ms, 3);
  if (!end) return nullptr;
  std::memcpy(end, " ms", 3);
  return end + 3;
}

/// Appends `seconds` as put_piece writes it, printf's "%.3g ms" where general_text declines.
inline void append_milliseconds(std::string& out, double seconds) {
  char buf[piece_room(Milliseconds{})];
  if (char* end = put_piece(buf, Milliseconds{seconds})) {
    out.append(buf, end);
    return;
  }
  std::snprintf(buf, sizeof buf, "%.3g ms", seconds * 1e3);
  out.append(buf);
}

/// The piece's own append, for append_text's piece-by-piece path.
inline void append_piece(std::string& out, Milliseconds t) {
  append_milliseconds(out, t.seconds);
}

}  // namespace gpusizer
