#pragma once
// data/models.jsonl as the catalog holds it: every row's names at once (for lookups, aliases and
// suggestions) and each row's Model parsed either at load or when it is first asked for. A
// command reads one model of the ~70; parsing all of them was a third of gpusizer's start-up.
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
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

 private:
  struct Row {
    std::string_view text;  // the line, for a deferred row
    int line = 0;           // 1-based, for messages
  };
  std::vector<ModelName> names_;
  std::vector<Row> rows_;
  mutable std::vector<Model> models_;
  std::unique_ptr<std::once_flag[]> parsed_;  // one per deferred row
};

}  // namespace gpusizer
