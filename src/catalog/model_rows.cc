#include "catalog/model_rows.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "catalog/model_record.h"
#include "gpusizer/error.h"
#include "gpusizer/names.h"

namespace gpusizer {
namespace {

// The lines of a JSONL text that hold something, with their 1-based numbers.
template <typename Visit>
void for_each_line(std::string_view text, Visit visit) {
  int n = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    ++n;
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) visit(line, n);
    start = end + 1;
  }
}

std::string where(int line) {
  return "models.jsonl line " + std::to_string(line);
}

Model parse_row(std::string_view line, int n) {
  nlohmann::json record;
  try {
    record = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(where(n), std::string("malformed JSON: ") + e.what(), "bad_file");
  }
  return model_from_record(record, where(n));
}

// Reads the top-level "name" and "hf_id" strings of one record and stops once it has both (the
// catalog's rows begin with them), so that a deferred row costs a few dozen bytes of lexing.
class NameReader : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::string name, hf_id;
  bool error = false;

  bool key(string_t& k) override {
    target_ = depth_ == 1 && k == "name" ? &name : depth_ == 1 && k == "hf_id" ? &hf_id : nullptr;
    return true;
  }
  bool string(string_t& v) override {
    if (target_) {
      *target_ = v;
      seen_ |= target_ == &name ? 1 : 2;
    }
    target_ = nullptr;
    return seen_ != 3;  // false ends the reading: both names are in
  }
  bool start_object(std::size_t) override { return open(); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_array() override { return close(); }
  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    error = true;
    return false;
  }

 private:
  bool value() {
    target_ = nullptr;
    return true;
  }
  bool open() {
    ++depth_;
    return value();
  }
  bool close() {
    --depth_;
    return true;
  }
  int depth_ = 0, seen_ = 0;
  std::string* target_ = nullptr;
};

}  // namespace

std::shared_ptr<const ModelRows> ModelRows::parsed(std::string_view text) {
  auto rows = std::make_shared<ModelRows>();
  for_each_line(text, [&](std::string_view line, int n) {
    Model m = parse_row(line, n);
    rows->names_.push_back({m.id, m.name, m.hf_id});
    rows->models_.push_back(std::move(m));
  });
  rows->index_exact_ids();
  return rows;
}

std::shared_ptr<const ModelRows> ModelRows::deferred(std::string_view text) {
  auto rows = std::make_shared<ModelRows>();
  for_each_line(text, [&](std::string_view line, int n) {
    NameReader reader;
    nlohmann::json::sax_parse(line.begin(), line.end(), &reader);
    // A row whose names cannot be read this way is parsed now, for its message or its names.
    if (reader.error || reader.name.empty()) {
      const Model m = parse_row(line, n);
      reader.name = m.name;
      reader.hf_id = m.hf_id;
    }
    rows->names_.push_back({model_id(reader.name), reader.name, reader.hf_id});
    rows->rows_.push_back({line, n});
  });
  rows->models_.resize(rows->rows_.size());
  rows->parsed_ = std::make_unique<std::once_flag[]>(rows->rows_.size());
  rows->index_exact_ids();
  return rows;
}

void ModelRows::index_exact_ids() {
  // A row whose normalized id an earlier row already has is left out: the normalized index
  // answers the earlier one for it. The ids are compared by the hash of their normalized form,
  // sorted (~15k instructions at start-up; normalizing each id into a set of strings was ~60k).
  // Ids the same once normalized hash the same; two that only share the hash leave the later row
  // out too, which the normalized lookup answers the same.
  std::vector<std::pair<size_t, size_t>> keys(names_.size());  // (hash, row)
  for (size_t i = 0; i < names_.size(); ++i) keys[i] = {normalized_name_hash(names_[i].id), i};
  std::sort(keys.begin(), keys.end());  // rows ascending within a hash
  exact_ids_.reserve(names_.size());
  for (size_t k = 0; k < keys.size(); ++k)
    if (k == 0 || keys[k].first != keys[k - 1].first)
      exact_ids_.emplace(names_[keys[k].second].id, keys[k].second);
}

const Model& ModelRows::at(size_t i) const {
  if (parsed_)
    std::call_once(parsed_[i], [&] { models_[i] = parse_row(rows_[i].text, rows_[i].line); });
  return models_[i];
}

const std::vector<Model>& ModelRows::all() const {
  const size_t deferred = parsed_ ? rows_.size() : 0;
  for (size_t i = 0; i < deferred; ++i) at(i);
  return models_;
}

}  // namespace gpusizer
