#pragma once
// a == b with the first bytes compared before the call to memcmp: the catalog's format and engine
// lookups, an engine's task and vendor lists and the scenario's key index scan short names, and
// most entries of a name's length differ in their first byte ("bf16" beside "fp16", "lora" beside
// "full"), so the call is seldom made (issue 18: a call per entry compared).
#include <cstring>
#include <string_view>

namespace gpusizer {

inline bool same_text(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         (a.empty() || (a[0] == b[0] && std::memcmp(a.data(), b.data(), a.size()) == 0));
}

}  // namespace gpusizer
