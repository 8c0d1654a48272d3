#pragma once
// Powers of ten as integers, for the number writers (float_text.cc, json_double.cc): the digit
// counts of integers and the scale of a fraction's digits.
#include <cstdint>

namespace gpusizer {

/// 10^0 .. 10^19: every power of ten a uint64_t holds.
inline constexpr uint64_t kPow10U64[20] = {1,
                                           10,
                                           100,
                                           1000,
                                           10000,
                                           100000,
                                           1000000,
                                           10000000,
                                           100000000,
                                           1000000000,
                                           10000000000,
                                           100000000000,
                                           1000000000000,
                                           10000000000000,
                                           100000000000000,
                                           1000000000000000,
                                           10000000000000000,
                                           100000000000000000,
                                           1000000000000000000,
                                           10000000000000000000u};

}  // namespace gpusizer
