#include "core/json_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gpusizer/error.h"
#include "gpusizer/names.h"

namespace gpusizer {
namespace {

// The field's path, made only for an error (a path joined on every read cost an allocation).
std::string join(std::string_view path, std::string_view key) {
  std::string field(path);
  if (!path.empty()) field += '.';
  field += key;
  return field;
}

std::string type_name(const nlohmann::json& v) {
  return v.type_name();
}

}  // namespace

namespace detail {

double read_number_given(const nlohmann::json& value, std::string_view key, std::string_view path,
                         double min, double max) {
  if (!value.is_number())
    throw InputError(join(path, key), "must be a number, not " + type_name(value));
  const double v = value.get<double>();
  if (!std::isfinite(v))
    throw InputError(join(path, key), "must be a finite number", "out_of_range");
  if (v < min || v > max)
    throw InputError(join(path, key), fmt::format("must be between {} and {}, not {}", min, max, v),
                     "out_of_range");
  return v;
}

int64_t read_int_given(const nlohmann::json& value, std::string_view key, std::string_view path,
                       int64_t min, int64_t max) {
  const double v =
      read_number_given(value, key, path, static_cast<double>(min), static_cast<double>(max));
  if (std::floor(v) != v) throw InputError(join(path, key), "must be a whole number");
  return static_cast<int64_t>(v);
}

bool read_bool_given(const nlohmann::json& value, std::string_view key, std::string_view path) {
  if (!value.is_boolean())
    throw InputError(join(path, key), "must be true or false, not " + type_name(value));
  return value.get<bool>();
}

std::string_view read_string_given(const nlohmann::json& value, std::string_view key,
                                   std::string_view path) {
  if (!value.is_string())
    throw InputError(join(path, key), "must be a string, not " + type_name(value));
  return value.get_ref<const std::string&>();
}

}  // namespace detail

namespace {

const nlohmann::json* member(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

}  // namespace

std::optional<double> read_number(const nlohmann::json& obj, const char* key, std::string_view path,
                                  double min, double max) {
  return read_number_value(member(obj, key), key, path, min, max);
}

std::optional<int64_t> read_int(const nlohmann::json& obj, const char* key, std::string_view path,
                                int64_t min, int64_t max) {
  return read_int_value(member(obj, key), key, path, min, max);
}

std::optional<bool> read_bool(const nlohmann::json& obj, const char* key, std::string_view path) {
  return read_bool_value(member(obj, key), key, path);
}

std::optional<std::string> read_string(const nlohmann::json& obj, const char* key,
                                       std::string_view path) {
  if (auto v = read_string_value(member(obj, key), key, path)) return std::string(*v);
  return std::nullopt;
}

namespace {

// A byte as std::tolower lowers it in the "C" locale (the program never calls setlocale): A to Z
// only, inline (issue 18: a library call a byte, ~240 instructions for a line's task).
inline char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c | 0x20) : c;
}

// The index of `value` in `allowed`, lower-cased (allowed names are lower case), or npos.
size_t lowered_index(std::string_view value, const std::vector<std::string>& allowed) {
  for (size_t i = 0; i < allowed.size(); ++i) {
    const std::string& a = allowed[i];
    if (a.size() != value.size()) continue;
    size_t k = 0;
    while (k < a.size() && a[k] == ascii_lower(value[k])) ++k;
    if (k == a.size()) return i;
  }
  return std::string::npos;
}

[[noreturn]] void throw_unknown_name(std::string_view value,
                                     const std::vector<std::string>& allowed,
                                     const std::string& field) {
  std::string msg = "unknown value '" + shown_input(value) + "'; expected one of ";
  for (size_t i = 0; i < allowed.size(); ++i) msg += (i ? ", " : "") + allowed[i];
  const auto near = closest_names(value, allowed, 1);
  if (!near.empty()) msg += " (did you mean " + near[0] + "?)";
  throw InputError(field, msg, "unknown_name");
}

}  // namespace

size_t name_index(std::string_view value, const std::vector<std::string>& allowed,
                  const std::string& field) {
  const size_t i = lowered_index(value, allowed);
  if (i == std::string::npos) throw_unknown_name(value, allowed, field);
  return i;
}

std::optional<size_t> read_enum_index(const nlohmann::json* value, std::string_view key,
                                      std::string_view path,
                                      const std::vector<std::string>& allowed) {
  auto v = read_string_value(value, key, path);
  if (!v) return std::nullopt;
  const size_t i = lowered_index(*v, allowed);
  if (i == std::string::npos) throw_unknown_name(*v, allowed, join(path, key));
  return i;
}

std::optional<std::string> read_enum(const nlohmann::json& obj, const char* key,
                                     std::string_view path,
                                     const std::vector<std::string>& allowed) {
  if (auto i = read_enum_index(member(obj, key), key, path, allowed)) return allowed[*i];
  return std::nullopt;
}

std::string unknown_key_note(std::string_view key, std::string_view path,
                             const std::vector<std::string>& known) {
  std::string w = "ignored unknown field '" + shown_input(join(path, key)) + "'";
  const auto near = closest_names(key, known, 1);
  if (!near.empty()) w += " (did you mean '" + near[0] + "'?)";
  return w;
}

std::vector<std::string> unknown_keys(const nlohmann::json& obj, std::string_view path,
                                      const std::vector<std::string>& known) {
  std::vector<std::string> warnings;
  for (const auto& [key, value] : obj.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    warnings.push_back(unknown_key_note(key, path, known));
  }
  return warnings;
}

KeyIndex::KeyIndex(const std::vector<std::string>& keys) : keys_(keys) {
  for (const std::string& key : keys_)
    if (key.size() >= kLengths) throw std::logic_error("KeyIndex: a key of 40 bytes or more");
  for (size_t length = 0; length < kLengths; ++length) {
    first_[length] = order_.size();
    for (size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i].size() == length) order_.push_back(static_cast<int>(i));
  }
  first_[kLengths] = order_.size();
}

}  // namespace gpusizer
