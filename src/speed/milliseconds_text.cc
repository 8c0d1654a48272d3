#include "speed/milliseconds_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace gpusizer {

char* put_whole_milliseconds(char* out, double ms) {
  // Three significant digits of a value of 4 to 15 integer digits: rounded at 10^(digits - 3)
  // (half-way to even, as printf rounds), written whole. The power of ten is found by compare
  // and the integer written by to_chars: pow, log10 and printf cost ~1,500 instructions.
  uint64_t step = 1;
  while (ms >= static_cast<double>(step) * 999.5) step *= 10;
  const auto rounded = static_cast<uint64_t>(std::nearbyint(ms / static_cast<double>(step)));
  char* end = std::to_chars(out, out + 20, rounded * step).ptr;
  std::memcpy(end, " ms", 3);
  return end + 3;
}

}  // namespace gpusizer
