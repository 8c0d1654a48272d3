#pragma once
// How the speed texts write a time: in milliseconds, three significant digits.
#include <string>

namespace gpusizer {

/// Appends `seconds` as milliseconds with three significant digits and " ms": printf's "%.3g"
/// below 1,000 ms ("12.3 ms", "9.63e-05 ms"), whole milliseconds from 1,000 up ("3320 ms", where
/// "%.3g" writes "3.32e+03 ms": a training step is often seconds long, and the exponent form hid
/// it from the reader).
void append_milliseconds(std::string& out, double seconds);

}  // namespace gpusizer
