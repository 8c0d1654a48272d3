#pragma once
// Name matching for lookups and "did you mean" suggestions.
#include <string>
#include <string_view>
#include <vector>

namespace gpusizer {

/// Lower-case, keep letters and digits only: "A100-SXM4 80GB" -> "a100sxm480gb".
std::string normalize_name(std::string_view name);

/// A hash of normalize_name(name) made without the string (h = h x 131 + each kept byte): names
/// equal once normalised hash equal, for indexes that only need to tell them apart.
size_t normalized_name_hash(std::string_view name);

/// The `count` candidates closest to `name` by edit distance over normalised names.
std::vector<std::string> closest_names(std::string_view name,
                                       const std::vector<std::string>& candidates,
                                       size_t count = 3);

/// Text from the input as a message quotes it: at most 80 bytes (whole UTF-8 characters), the
/// rest said as "... (N bytes)", so that a hostile name of megabytes is not echoed back whole.
std::string shown_input(std::string_view text);

}  // namespace gpusizer
