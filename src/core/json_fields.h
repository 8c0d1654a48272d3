#pragma once
// Typed, bounds-checked reads of scenario JSON fields. Every failure names the field's path.
#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/same_text.h"

namespace gpusizer {

/// A positive integer in [min, max]; integral floats such as 1e9 are accepted.
std::optional<int64_t> read_int(const nlohmann::json& obj, const char* key, std::string_view path,
                                int64_t min, int64_t max);
/// A finite number in [min, max].
std::optional<double> read_number(const nlohmann::json& obj, const char* key, std::string_view path,
                                  double min, double max);
std::optional<bool> read_bool(const nlohmann::json& obj, const char* key, std::string_view path);
std::optional<std::string> read_string(const nlohmann::json& obj, const char* key,
                                       std::string_view path);
/// The index in `allowed` of `value` (case-insensitive); otherwise throws InputError naming
/// `field`, listing `allowed` and the closest one.
size_t name_index(std::string_view value, const std::vector<std::string>& allowed,
                  const std::string& field);
/// A string that must be one of `allowed`; otherwise names the closest ones.
std::optional<std::string> read_enum(const nlohmann::json& obj, const char* key,
                                     std::string_view path,
                                     const std::vector<std::string>& allowed);
/// Warnings for keys of `obj` not in `known`, with the closest known key.
std::vector<std::string> unknown_keys(const nlohmann::json& obj, std::string_view path,
                                      const std::vector<std::string>& known);
/// unknown_keys' warning for one key.
std::string unknown_key_note(std::string_view key, std::string_view path,
                             const std::vector<std::string>& known);

// The same reads of a member already found (a one-pass reader, Members below): `value` is the
// member's value, nullptr when the object has no such key; a null value reads as absent, as
// above. `key` and `path` only name the field in an error. The same checks and messages.

namespace detail {
// The reads of a value that is there and not null (the wrappers below test that inline: most
// fields of a line are absent).
double read_number_given(const nlohmann::json& value, std::string_view key, std::string_view path,
                         double min, double max);
int64_t read_int_given(const nlohmann::json& value, std::string_view key, std::string_view path,
                       int64_t min, int64_t max);
bool read_bool_given(const nlohmann::json& value, std::string_view key, std::string_view path);
std::string_view read_string_given(const nlohmann::json& value, std::string_view key,
                                   std::string_view path);
}  // namespace detail

inline std::optional<double> read_number_value(const nlohmann::json* value, std::string_view key,
                                               std::string_view path, double min, double max) {
  if (!value || value->is_null()) return std::nullopt;
  return detail::read_number_given(*value, key, path, min, max);
}
inline std::optional<int64_t> read_int_value(const nlohmann::json* value, std::string_view key,
                                             std::string_view path, int64_t min, int64_t max) {
  if (!value || value->is_null()) return std::nullopt;
  return detail::read_int_given(*value, key, path, min, max);
}
inline std::optional<bool> read_bool_value(const nlohmann::json* value, std::string_view key,
                                           std::string_view path) {
  if (!value || value->is_null()) return std::nullopt;
  return detail::read_bool_given(*value, key, path);
}
/// The string itself, in the JSON value (valid while the value lives).
inline std::optional<std::string_view> read_string_value(const nlohmann::json* value,
                                                         std::string_view key,
                                                         std::string_view path) {
  if (!value || value->is_null()) return std::nullopt;
  return detail::read_string_given(*value, key, path);
}
/// read_enum's check: the index of the value in `allowed`.
std::optional<size_t> read_enum_index(const nlohmann::json* value, std::string_view key,
                                      std::string_view path,
                                      const std::vector<std::string>& allowed);

/// Which of a fixed list of keys a string is: the candidates of its length compared byte by byte
/// (issue 18: a one-pass reader looks each member's key up once, instead of one map search per
/// field it reads).
class KeyIndex {
 public:
  explicit KeyIndex(const std::vector<std::string>& keys);
  /// The key's index in the list, or -1.
  int find(std::string_view key) const {
    if (key.size() >= kLengths) return -1;
    // same_text: the first byte before the rest's call (issue 18: ~140 instructions a line).
    for (size_t i = first_[key.size()]; i < first_[key.size() + 1]; ++i)
      if (same_text(keys_[order_[i]], key)) return order_[i];
    return -1;
  }

 private:
  static constexpr size_t kLengths = 40;  // keys shorter than this are indexed
  std::vector<std::string> keys_;
  std::vector<int> order_;                    ///< indices of keys_ by length
  std::array<size_t, kLengths + 1> first_{};  ///< order_'s first entry of each length
};

/// An object's members read in one pass: the value of each known key (nullptr when absent, a
/// JSON null kept as it is) and the other keys, in the object's order.
template <size_t N>
struct Members {
  std::array<const nlohmann::json*, N> at{};
  std::vector<const std::string*> unknown;

  /// The member's value unless it is absent or null.
  const nlohmann::json* given(size_t key) const {
    const nlohmann::json* v = at[key];
    return v && !v->is_null() ? v : nullptr;
  }
  /// Whether the object has the key, whatever its value (nlohmann's contains).
  bool has(size_t key) const { return at[key] != nullptr; }
};

/// Fills `out` from `object`, a JSON object whose known keys `index` lists (N of them).
template <size_t N>
void read_members(const nlohmann::json& object, const KeyIndex& index, Members<N>& out) {
  for (const auto& [key, value] : object.get_ref<const nlohmann::json::object_t&>()) {
    const int k = index.find(key);
    if (k >= 0)
      out.at[static_cast<size_t>(k)] = &value;
    else
      out.unknown.push_back(&key);
  }
}

}  // namespace gpusizer
