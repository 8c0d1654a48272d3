#pragma once
// Name matching for lookups and "did you mean" suggestions.
#include <string>
#include <string_view>
#include <vector>

namespace gpusizer {

/// Lower-case, keep letters and digits only: "A100-SXM4 80GB" -> "a100sxm480gb".
std::string normalize_name(std::string_view name);

/// The `count` candidates closest to `name` by edit distance over normalised names.
std::vector<std::string> closest_names(std::string_view name,
                                       const std::vector<std::string>& candidates,
                                       size_t count = 3);

}  // namespace gpusizer
