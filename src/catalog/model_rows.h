#pragma once
// data/models.jsonl as the catalog holds it: every row's names at once (for lookups, aliases and
// suggestions) and each row's Model parsed either at load or when it is first asked for. A
// command reads one model of the ~70; parsing all of them was a third of gpusizer's start-up.
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpusizer/model.h"

namespace gpusizer {

/// The names a lookup needs before the row is parsed (the fields Catalog's lookup reads).
struct ModelName {
  std::string id, name, hf_id;
};

class ModelRows {
 public:
  ModelRows() = default;
  /// Parses every row now: a file from a user's --data-dir, whose errors belong at load.
  static std::shared_ptr<const ModelRows> parsed(std::string_view text);
  /// Reads each row's name and hf_id now and the rest when first asked for: `text` must outlive
  /// the rows (the built-in file, which the tests parse whole). Thread-safe.
  static std::shared_ptr<const ModelRows> deferred(std::string_view text);

  size_t size() const { return names_.size(); }
  const std::vector<ModelName>& names() const { return names_; }
  /// Row `i`'s Model, parsed now if it was not yet.
  const Model& at(size_t i) const;
  /// Every row's Model, in file order.
  const std::vector<Model>& all() const;
  /// The row whose id is `name` byte for byte, where it is also the first row of its normalized
  /// id (the row Catalog's index by normalized name keeps: ids are indexed in file order, the
  /// first one of a key wins and no alias displaces an id). The usual spelling is found this way
  /// without normalizing it (issue 18); any other name is the normalized index's.
  std::optional<size_t> exact_id(std::string_view name) const {
    const auto it = exact_ids_.find(name);
    if (it == exact_ids_.end()) return std::nullopt;
    return it->second;
  }

 private:
  struct Row {
    std::string_view text;  // the line, for a deferred row
    int line = 0;           // 1-based, for messages
  };
  std::vector<ModelName> names_;
  std::vector<Row> rows_;
  mutable std::vector<Model> models_;
  std::unique_ptr<std::once_flag[]> parsed_;  // one per deferred row
  // Views of names_' ids (names_ is not changed once read; the rows are not copied).
  std::unordered_map<std::string_view, size_t> exact_ids_;

  void index_exact_ids();
};

}  // namespace gpusizer
