#include "gpusizer/json/scenario_text.h"

#include <new>

#include "gpusizer/json/json_input.h"
#include "scenario/plain_json.h"
#include "scenario/scenario_fields.h"

namespace gpusizer {

static_assert(ScenarioText::kKeys == key::kTopCount, "ScenarioText holds every top-level key");

namespace {

const KeyIndex& top_keys() {
  static const KeyIndex keys(scenario_keys().top);
  return keys;
}

}  // namespace

// Takes the scenario's keys, each once, into the text's own values. An unknown key declines the
// text (its note names the key, which the tree keeps), and so does a repeated one (its error is
// parse_json_input's).
struct ScenarioText::Sink final : MemberSink {
  explicit Sink(ScenarioText& t) : text(t), keys(top_keys()) {}
  nlohmann::json* value_for(std::string_view key) override {
    const int k = keys.find(key);
    if (k < 0 || text.at_[static_cast<size_t>(k)]) return nullptr;
    auto* value = new (text.values_ + text.made_ * sizeof(nlohmann::json)) nlohmann::json();
    ++text.made_;
    return text.at_[static_cast<size_t>(k)] = value;
  }
  ScenarioText& text;
  const KeyIndex& keys;  // found once a text, not once a key (a call and its guard, issue 18)
};

ScenarioText::ScenarioText(std::string_view text, const std::string& where) {
  Sink sink(*this);
  by_members_ = read_plain_object(text, sink);
  if (by_members_) return;
  free_members();  // what was read before the text was declined
  tree_ = parse_json_input(text, where);
}

ScenarioText::~ScenarioText() {
  free_members();
}

// A string member's storage is kept for the thread's next line (recycle_string_value, issue 18).
// An object member's map is emptied first: nlohmann's destructor would move its members to a
// stack it allocates (a vector the map's size, ~130 instructions a "training" object).
void ScenarioText::free_members() {
  auto* values = reinterpret_cast<nlohmann::json*>(values_);
  for (size_t i = 0; i < made_; ++i) {
    if (values[i].is_string())
      recycle_string_value(values[i]);
    else if (values[i].is_object())
      values[i].get_ref<nlohmann::json::object_t&>().clear();
    values[i].~basic_json();
  }
  made_ = 0;
  at_ = {};
}

nlohmann::json* ScenarioText::member(std::string_view key) {
  if (by_members_) {
    const int k = top_keys().find(key);
    return k < 0 ? nullptr : at_[static_cast<size_t>(k)];
  }
  if (!tree_.is_object()) return nullptr;
  const auto it = tree_.find(key);
  return it == tree_.end() ? nullptr : &*it;
}

const nlohmann::json* ScenarioText::member(std::string_view key) const {
  return const_cast<ScenarioText*>(this)->member(key);  // the same search; nothing is changed
}

nlohmann::json& ScenarioText::tree() {
  if (!by_members_) return tree_;
  tree_ = nlohmann::json(nlohmann::json::value_t::object);
  const std::vector<std::string>& keys = scenario_keys().top;
  for (size_t k = 0; k < kKeys; ++k)
    if (at_[k]) tree_.emplace(keys[k], std::move(*at_[k]));
  free_members();
  by_members_ = false;
  return tree_;
}

ScenarioFields ScenarioFieldsAccess::fields(const ScenarioText& text) {
  if (!text.by_members_) return scenario_fields(text.tree_);
  ScenarioFields fields;
  for (size_t k = 0; k < ScenarioText::kKeys; ++k) fields.at[k] = text.at_[k];
  return fields;
}

}  // namespace gpusizer
