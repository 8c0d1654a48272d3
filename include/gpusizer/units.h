#pragma once
// Units. Memory is counted in bytes (double while computing, integers at the surface).
// The articles mix GB (1e9) and GiB (2^30); gpusizer always says which one it prints.
#include <cstdint>

namespace gpusizer {

inline constexpr double kKB = 1e3;
inline constexpr double kMB = 1e6;
inline constexpr double kGB = 1e9;
inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// BTU per hour dissipated by one kilowatt (1 W = 3.412 BTU/h; NIST SP 811 conversion factor).
inline constexpr double kBtuPerHourPerKw = 3412.14;

}  // namespace gpusizer
