#pragma once
// A scenario's JSON text as the answer reads it (a JSONL line, an HTTP body). Nearly every line is
// a plain object of scenario keys: its members are read from the text into their own values, and
// no tree is made for the object itself (issue 18: the object's map, its nodes and their keys,
// made and freed, were ~4.5k instructions of a ~74k line). Any other text is read as
// parse_json_input reads it, into a tree, with the same errors.
#include <array>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace gpusizer {

struct ScenarioFieldsAccess;

class ScenarioText {
 public:
  /// Reads `text`; throws parse_json_input's InputError (`where` names the text) when it is not
  /// JSON. A text that is JSON but not an object is read: the answer says what it lacks.
  ScenarioText(std::string_view text, const std::string& where);
  ~ScenarioText();
  ScenarioText(const ScenarioText&) = delete;  // the members point into the object itself
  ScenarioText& operator=(const ScenarioText&) = delete;

  /// Whether the text is a JSON object.
  bool is_object() const { return by_members_ || tree_.is_object(); }
  /// The value of the top-level member `key`, nullptr when there is none (or no object).
  const nlohmann::json* member(std::string_view key) const;
  /// The same value, to edit in place (the server's path rule rewrites a model's path).
  nlohmann::json* member(std::string_view key);
  /// The text as parse_json_input's tree, made from the members at the first call when the text
  /// was read by its members (for a caller that edits the scenario: the CLI's flags).
  nlohmann::json& tree();

  /// The scenario's top-level keys (scenario_keys().top; scenario_text.cc checks the count).
  static constexpr size_t kKeys = 30;

 private:
  friend struct ScenarioFieldsAccess;
  struct Sink;

  void free_members();

  bool by_members_ = false;  ///< read by its members: tree_ is unused
  nlohmann::json tree_;      ///< otherwise the text's tree
  /// Each top-level key's value (scenario_keys().top's order), nullptr when absent.
  std::array<nlohmann::json*, kKeys> at_{};
  /// The values given, made in place in the order the text gives them (no allocation a line).
  size_t made_ = 0;
  alignas(nlohmann::json) unsigned char values_[kKeys * sizeof(nlohmann::json)];
};

}  // namespace gpusizer
