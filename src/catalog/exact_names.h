#pragma once
// Names spelled exactly as the data files spell them, each to its row: the catalog answers the
// usual spellings of a GPU from here, byte for byte, before it normalizes a name into a string and
// hashes that (issue 18: ~300 instructions a lookup, two a JSONL line). A miss is not an answer:
// the caller then goes its old way, so a spelling is added only with the row that way finds.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gpusizer {

class ExactNames {
 public:
  /// Room for `expected` spellings, so that adding them does not rehash.
  explicit ExactNames(size_t expected = 0) { rows_.reserve(expected); }
  /// Adds `spelling` for `row` unless the spelling is in already (the first row added keeps it);
  /// whether it was added.
  bool add(std::string_view spelling, uint32_t row);
  /// The row of `name` spelled byte for byte as added; none for any other spelling.
  std::optional<uint32_t> find(std::string_view name) const {
    const auto it = rows_.find(name);
    if (it == rows_.end()) return std::nullopt;
    return it->second;
  }
  size_t size() const { return rows_.size(); }

 private:
  // Looked up by a view of the asked name, without making a string of it.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> rows_;
};

}  // namespace gpusizer
