#pragma once
// Typed, bounds-checked reads of scenario JSON fields. Every failure names the field's path.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

}  // namespace gpusizer
