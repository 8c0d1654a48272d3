#pragma once
// The catalog: GPUs, models, number formats and engine profiles, from the built-in data files or
// a user's own directory. Lookups are case-insensitive, take aliases, and answer an unknown name
// with the closest valid ones.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpusizer/gpu.h"
#include "gpusizer/model.h"
#include "gpusizer/number_format.h"

namespace gpusizer {

class Catalog {
 public:
  /// The catalog compiled into the binary, overridden file by file from the directory named by
  /// the GPUSIZER_DATA_DIR environment variable when it is set.
  static const Catalog& builtin();
  /// Reads the data files from `dir`; files missing there come from the built-in copy.
  static Catalog load(const std::string& dir);
  /// Builds a catalog from the texts of the data files (used by both of the above).
  static Catalog from_texts(std::string_view gpus_csv, std::string_view models_jsonl,
                            std::string_view formats_csv, std::string_view engines_json,
                            std::string_view aliases_csv);

  const std::vector<Gpu>& gpus() const { return gpus_; }
  const std::vector<Model>& models() const { return models_; }
  const std::vector<NumberFormat>& formats() const { return formats_; }
  const nlohmann::json& engines() const { return engines_; }

  /// Finds a GPU by id, name or alias; throws InputError naming `field` with suggestions.
  const Gpu& gpu(std::string_view name, const std::string& field = "gpu") const;
  /// The same GPU, shared: what a Scenario holds, without copying the row.
  GpuRef gpu_ref(std::string_view name, const std::string& field = "gpu") const;
  /// Finds a model by catalog id, name, Hugging Face id or alias.
  const Model& model(std::string_view name, const std::string& field = "model") const;
  /// Finds a number format usable for `role` (weights, kv, optimizer).
  const NumberFormat& format(std::string_view name, const std::string& role,
                             const std::string& field) const;
  /// The engine profile (data/engines.json) for an engine name.
  const nlohmann::json& engine(std::string_view name, const std::string& field = "engine") const;

 private:
  std::vector<Gpu> gpus_;
  std::vector<std::shared_ptr<const Gpu>> shared_gpus_;  // the same rows, for gpu_ref
  std::vector<Model> models_;
  std::vector<NumberFormat> formats_;
  nlohmann::json engines_;
  std::vector<std::pair<std::string, std::string>> gpu_aliases_;    // normalised alias -> id
  std::vector<std::pair<std::string, std::string>> model_aliases_;  // normalised alias -> id
  std::unordered_map<std::string, size_t> gpu_index_;    // normalised id or alias -> position
  std::unordered_map<std::string, size_t> model_index_;  // normalised id or alias -> position
};

/// Lower-case, keep letters and digits only: "A100-SXM4 80GB" -> "a100sxm480gb".
std::string normalize_name(std::string_view name);

/// The `count` candidates closest to `name` by edit distance over normalised names.
std::vector<std::string> closest_names(std::string_view name,
                                       const std::vector<std::string>& candidates,
                                       size_t count = 3);

}  // namespace gpusizer
