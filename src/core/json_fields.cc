#include "core/json_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

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

std::optional<double> read_number(const nlohmann::json& obj, const char* key, std::string_view path,
                                  double min, double max) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_number())
    throw InputError(join(path, key), "must be a number, not " + type_name(*it));
  const double v = it->get<double>();
  if (!std::isfinite(v))
    throw InputError(join(path, key), "must be a finite number", "out_of_range");
  if (v < min || v > max)
    throw InputError(join(path, key), fmt::format("must be between {} and {}, not {}", min, max, v),
                     "out_of_range");
  return v;
}

std::optional<int64_t> read_int(const nlohmann::json& obj, const char* key, std::string_view path,
                                int64_t min, int64_t max) {
  auto v = read_number(obj, key, path, static_cast<double>(min), static_cast<double>(max));
  if (!v) return std::nullopt;
  if (std::floor(*v) != *v) throw InputError(join(path, key), "must be a whole number");
  return static_cast<int64_t>(*v);
}

std::optional<bool> read_bool(const nlohmann::json& obj, const char* key, std::string_view path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean())
    throw InputError(join(path, key), "must be true or false, not " + type_name(*it));
  return it->get<bool>();
}

std::optional<std::string> read_string(const nlohmann::json& obj, const char* key,
                                       std::string_view path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_string())
    throw InputError(join(path, key), "must be a string, not " + type_name(*it));
  return it->get<std::string>();
}

size_t name_index(std::string_view value, const std::vector<std::string>& allowed,
                  const std::string& field) {
  std::string lowered(value);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (size_t i = 0; i < allowed.size(); ++i)
    if (allowed[i] == lowered) return i;
  std::string msg = "unknown value '" + shown_input(value) + "'; expected one of ";
  for (size_t i = 0; i < allowed.size(); ++i) msg += (i ? ", " : "") + allowed[i];
  const auto near = closest_names(value, allowed, 1);
  if (!near.empty()) msg += " (did you mean " + near[0] + "?)";
  throw InputError(field, msg, "unknown_name");
}

std::optional<std::string> read_enum(const nlohmann::json& obj, const char* key,
                                     std::string_view path,
                                     const std::vector<std::string>& allowed) {
  auto v = read_string(obj, key, path);
  if (!v) return std::nullopt;
  return allowed[name_index(*v, allowed, join(path, key))];
}

std::vector<std::string> unknown_keys(const nlohmann::json& obj, std::string_view path,
                                      const std::vector<std::string>& known) {
  std::vector<std::string> warnings;
  for (const auto& [key, value] : obj.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string w = "ignored unknown field '" + shown_input(join(path, key)) + "'";
    const auto near = closest_names(key, known, 1);
    if (!near.empty()) w += " (did you mean '" + near[0] + "'?)";
    warnings.push_back(w);
  }
  return warnings;
}

}  // namespace gpusizer
