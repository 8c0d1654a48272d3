#pragma once
// Strict reads of the JSON data files (engines.json, speed.json, costs.json, facility.json): every
// figure the code needs must be there, finite and in range, and every key must be known, so that a
// misspelt key is an error naming the file and key rather than a silent C++ default.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gpusizer::data {

/// Parses a data file's text; malformed JSON is an InputError naming the file and its line.
nlohmann::json parse_json(std::string_view text, const std::string& file);

/// Keys that document a figure rather than hold one: "_comment", "..._source", "..._note".
bool is_comment_key(std::string_view key);

/// Throws for a key of `obj` that is neither in `known` nor a comment, naming the closest one.
void reject_unknown_keys(const nlohmann::json& obj, const std::string& where,
                         const std::vector<std::string>& known);

/// A finite number in [min, max] that must be present.
double required_number(const nlohmann::json& obj, const char* key, const std::string& where,
                       double min, double max);

/// A finite number in [min, max], or `fallback` when the key is absent (for figures that inherit
/// from a "defaults" section of the same file, never from C++).
double number_or(const nlohmann::json& obj, const char* key, const std::string& where, double min,
                 double max, double fallback);

/// A boolean that must be present / that inherits.
bool required_bool(const nlohmann::json& obj, const char* key, const std::string& where);
bool bool_or(const nlohmann::json& obj, const char* key, const std::string& where, bool fallback);

/// An object member that must be present.
const nlohmann::json& required_object(const nlohmann::json& obj, const char* key,
                                      const std::string& where);

}  // namespace gpusizer::data
