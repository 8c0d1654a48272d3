#include "speed/milliseconds_text.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/float_text.h"

namespace gpusizer {

void append_milliseconds(std::string& out, double seconds) {
  char buf[64];
  const double ms = seconds * 1e3;
  if (ms >= 999.5 && ms < 1e15) {
    // Three significant digits of a value of 4+ integer digits: rounded at 10^(digits - 3), the
    // half-way case to even as printf rounds it, and written whole.
    const double step = std::pow(10.0, std::floor(std::log10(ms)) - 2.0);
    std::snprintf(buf, sizeof buf, "%.0f ms", std::nearbyint(ms / step) * step);
    out.append(buf);
    return;
  }
  // general_text() writes the same digits as "%.3g" without printf's cost, the unit after them in
  // the buffer: one append (issue 18: ~40 instructions of each of the eight to ten times a
  // training estimate's basis writes).
  if (char* end = general_text(buf, ms, 3)) {
    std::memcpy(end, " ms", 3);
    out.append(buf, end + 3);
    return;
  }
  std::snprintf(buf, sizeof buf, "%.3g ms", ms);
  out.append(buf);
}

}  // namespace gpusizer
