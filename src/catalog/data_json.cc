#include "catalog/data_json.h"

#include <fmt/format.h>

#include <cmath>

#include "gpusizer/error.h"
#include "gpusizer/names.h"

namespace gpusizer::data {
namespace {

std::string field(const std::string& where, const char* key) {
  return where + "." + key;
}

// Line of byte `offset` in `text`, counted from 1.
size_t line_of(std::string_view text, size_t offset) {
  size_t line = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

}  // namespace

nlohmann::json parse_json(std::string_view text, const std::string& file) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(file + " line " + std::to_string(line_of(text, e.byte > 0 ? e.byte - 1 : 0)),
                     std::string("malformed JSON: ") + e.what(), "bad_file");
  }
}

bool is_comment_key(std::string_view key) {
  auto ends_with = [&](std::string_view tail) {
    return key.size() >= tail.size() && key.substr(key.size() - tail.size()) == tail;
  };
  return key.starts_with('_') || ends_with("source") || ends_with("_note") || ends_with("_comment");
}

void reject_unknown_keys(const nlohmann::json& obj, const std::string& where,
                         const std::vector<std::string>& known) {
  if (!obj.is_object()) throw InputError(where, "must be a JSON object", "bad_file");
  for (const auto& [key, value] : obj.items()) {
    if (is_comment_key(key)) continue;
    bool found = false;
    for (const auto& k : known) found = found || k == key;
    if (found) continue;
    std::string msg = "unknown key '" + key + "'";
    const auto near = closest_names(key, known, 1);
    if (!near.empty()) msg += "; did you mean '" + near[0] + "'?";
    throw InputError(where, msg, "bad_file");
  }
}

double number_or(const nlohmann::json& obj, const char* key, const std::string& where, double min,
                 double max, double fallback) {
  if (!obj.is_object() || !obj.contains(key)) return fallback;
  const auto& v = obj.at(key);
  if (!v.is_number()) throw InputError(field(where, key), "must be a number", "bad_file");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < min || x > max)
    throw InputError(field(where, key),
                     fmt::format("must be between {} and {}, not {}", min, max, x), "bad_file");
  return x;
}

double required_number(const nlohmann::json& obj, const char* key, const std::string& where,
                       double min, double max) {
  if (!obj.is_object() || !obj.contains(key))
    throw InputError(field(where, key), "is missing", "bad_file");
  return number_or(obj, key, where, min, max, 0);
}

bool bool_or(const nlohmann::json& obj, const char* key, const std::string& where, bool fallback) {
  if (!obj.is_object() || !obj.contains(key)) return fallback;
  const auto& v = obj.at(key);
  if (!v.is_boolean()) throw InputError(field(where, key), "must be true or false", "bad_file");
  return v.get<bool>();
}

bool required_bool(const nlohmann::json& obj, const char* key, const std::string& where) {
  if (!obj.is_object() || !obj.contains(key))
    throw InputError(field(where, key), "is missing", "bad_file");
  return bool_or(obj, key, where, false);
}

const nlohmann::json& required_object(const nlohmann::json& obj, const char* key,
                                      const std::string& where) {
  if (!obj.is_object() || !obj.contains(key) || !obj.at(key).is_object())
    throw InputError(field(where, key), "is missing or not an object", "bad_file");
  return obj.at(key);
}

}  // namespace gpusizer::data
