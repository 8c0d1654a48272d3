#pragma once
// How the speed texts write a time: in milliseconds, three significant digits.
#include <cstdio>
#include <cstring>
#include <string>

#include "core/float_text.h"

namespace gpusizer {

/// Appends `ms` (999.5 or more) as whole milliseconds to three significant digits and " ms".
void append_whole_milliseconds(std::string& out, double ms);

/// Appends `seconds` as milliseconds with three significant digits and " ms": printf's "%.3g"
/// below 1,000 ms ("12.3 ms", "9.63e-05 ms"), whole milliseconds from 1,000 up ("3320 ms", where
/// "%.3g" writes "3.32e+03 ms": a training step is often seconds long, and the exponent form hid
/// it from the reader). Inline: the speed texts write eight to fifteen times a line (issue 18).
inline void append_milliseconds(std::string& out, double seconds) {
  const double ms = seconds * 1e3;
  if (ms >= 999.5 && ms < 1e15) {
    append_whole_milliseconds(out, ms);
    return;
  }
  // general_text() writes the same digits as "%.3g" without printf's cost, the unit after them in
  // the buffer: one append.
  char buf[64];
  if (char* end = general_text(buf, ms, 3)) {
    std::memcpy(end, " ms", 3);
    out.append(buf, end + 3);
    return;
  }
  std::snprintf(buf, sizeof buf, "%.3g ms", ms);
  out.append(buf);
}

}  // namespace gpusizer
