#pragma once
// The catalog: every data file, parsed once into typed tables (GPUs, models, number formats,
// engine profiles, the speed profile, the site's cost and facility defaults, the validation
// cases), from the files compiled into the binary or a user's own directory, file by file. It is
// the one way data enters gpusizer and is passed by reference to everything that reads data.
// Lookups are case-insensitive, take aliases, and answer an unknown name with the closest ones.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpusizer/engine_profile.h"
#include "gpusizer/fleet.h"
#include "gpusizer/gpu.h"
#include "gpusizer/model.h"
#include "gpusizer/names.h"
#include "gpusizer/number_format.h"
#include "gpusizer/site.h"
#include "gpusizer/speed_bands.h"
#include "gpusizer/speed_profile.h"
#include "gpusizer/store_access.h"

namespace gpusizer {

class SpeedIndex;  // src/catalog/speed_index.h
class ModelRows;   // src/catalog/model_rows.h
class ExactNames;  // src/catalog/exact_names.h

class Catalog {
 public:
  /// The data files gpusizer reads, by name under data/ (or a --data-dir).
  static const std::vector<std::string>& file_names();

  /// For the faces (CLI, server) and tests: the catalog of `GPUSIZER_DATA_DIR` when that is set,
  /// else the built-in one; loaded once. The library below the faces never calls it.
  static const Catalog& builtin();
  /// The data files compiled into the binary.
  static Catalog embedded();
  /// Reads the data files from `dir`; files missing there come from the built-in copy. A `dir`
  /// that is not a directory, or a bad value in any file, throws InputError naming the file.
  static Catalog load(const std::string& dir);
  /// Builds a catalog from file texts by name (see file_names()); names missing from `texts`
  /// take the built-in copy.
  static Catalog from_texts(const std::vector<std::pair<std::string, std::string>>& texts);

  const std::vector<Gpu>& gpus() const { return *gpus_; }
  /// Every model row (the built-in rows are parsed when first asked for: see model_rows.h).
  const std::vector<Model>& models() const;
  const std::vector<NumberFormat>& formats() const { return *formats_; }
  /// engines.json: every engine's typed profile, and the device figures apart from them.
  const std::vector<EngineProfile>& engines() const { return engines_; }
  const DeviceProfile& device() const { return device_; }
  const EngineDefaults& engine_defaults() const { return engine_defaults_; }
  /// engines.json deepspeed.zero3.
  const Zero3Defaults& zero3_defaults() const { return zero3_; }
  /// data/speed.json.
  const SpeedProfile& speed() const { return speed_; }
  /// The speed profile's entries for each engine, GPU and format row, looked up once
  /// (src/catalog/speed_index.h); null in a catalog that was not read from data files.
  const SpeedIndex* speed_index() const { return speed_index_.get(); }
  /// data/speed_bands.json: how far measurements fall from the speed figures.
  const SpeedBands& speed_bands() const { return speed_bands_; }
  /// data/costs.json and data/facility.json.
  const CostAssumptions& cost_defaults() const { return costs_; }
  const Facility& facility_defaults() const { return facility_; }
  /// data/instances.csv and data/servers.csv: whole cloud instances and on-prem servers.
  const std::vector<CloudInstance>& instances() const { return instances_; }
  const std::vector<ServerForm>& servers() const { return servers_; }
  /// The positions in instances() of the instances of the GPU at position `gpu_row` of gpus(), in
  /// the order of instances(); none past the rows (or in a catalog not read from data files).
  const std::vector<uint32_t>& instances_of_row(size_t gpu_row) const {
    static const std::vector<uint32_t> kNone;
    return gpu_row < instances_by_gpu_.size() ? instances_by_gpu_[gpu_row] : kNone;
  }
  /// The validation cases (validation/memory_cases.jsonl, validation/throughput_cases.jsonl),
  /// as text: their readers name the line of a bad case.
  const std::string& memory_cases() const { return memory_cases_; }
  const std::string& throughput_cases() const { return throughput_cases_; }
  /// The local model stores where a model name that is not in the catalog is looked up
  /// (docs/model-stores.md): none unless a face allows some with allow_model_stores (the gpusizer
  /// command allows every store for its commands, `serve` those named by --model-stores).
  const StoreAccess& model_stores() const { return model_stores_; }
  void allow_model_stores(StoreAccess access) { model_stores_ = std::move(access); }
  /// The GGUF (or other `kind`) format closest in bits per value; empty when there is none.
  std::string closest_format(std::string_view kind, double bits_per_value) const;

  /// Finds a GPU by id, name or alias; throws InputError naming `field` with suggestions.
  const Gpu& gpu(std::string_view name, const std::string& field = "gpu") const;
  /// The same GPU, shared: what a Scenario holds, without copying the row.
  GpuRef gpu_ref(std::string_view name, const std::string& field = "gpu") const;
  /// Finds a model by catalog id, name, Hugging Face id or alias.
  const Model& model(std::string_view name, const std::string& field = "model") const;
  /// The same model, shared: what a Scenario holds, without copying the row.
  ModelRef model_ref(std::string_view name, const std::string& field = "model") const;
  /// The catalog model a re-upload's Hugging Face id was made from, shared, for a name model()
  /// does not know whose shorter spelling is an id or alias exactly (catalog/hub_names.h:
  /// without its organisation, quantization, date and post-training suffixes); else nullopt.
  /// Asked after a model store or a file of that name, which describe the re-upload itself.
  std::optional<ModelRef> reupload_base(std::string_view name) const;
  /// Whether `name` names `found` (what gpu() returned for it) as its id, name or an alias, or
  /// as its id or name without the memory size ("rtx-3090"), case and separators aside: gpu()
  /// also takes the one row a partial name matches ("4080" for the RTX 4080 SUPER), which a
  /// scenario then says it assumed. (A model's other names: report/api.cc names_entry.)
  bool names_exactly(std::string_view name, const Gpu& found) const;
  /// Finds a number format usable for `role` (weights, kv, optimizer).
  const NumberFormat& format(std::string_view name, const std::string& role,
                             const std::string& field) const;
  /// The same row, shared: what a Scenario holds, without copying the row.
  FormatRef format_ref(std::string_view name, const std::string& role,
                       const std::string& field) const;
  /// The engine profile (data/engines.json) for an engine name, case-insensitive; an unknown
  /// name throws InputError naming `field` with the closest engines.
  const EngineProfile& engine(std::string_view name, std::string_view field = "engine") const;

 private:
  /// Shared with the GpuRefs of gpu_ref, so that a scenario's GPU outlives the catalog.
  std::shared_ptr<const std::vector<Gpu>> gpus_ = std::make_shared<const std::vector<Gpu>>();
  std::shared_ptr<const ModelRows> model_rows_;  // shared by the catalog's copies
  /// Shared with the FormatRefs of format_ref, so that a scenario's rows outlive the catalog.
  std::shared_ptr<const std::vector<NumberFormat>> formats_ =
      std::make_shared<const std::vector<NumberFormat>>();
  std::vector<EngineProfile> engines_;
  DeviceProfile device_;
  EngineDefaults engine_defaults_;
  Zero3Defaults zero3_;
  SpeedProfile speed_;
  std::shared_ptr<const SpeedIndex> speed_index_;  // immutable, shared by the catalog's copies
  SpeedBands speed_bands_;
  CostAssumptions costs_;
  Facility facility_;
  std::vector<CloudInstance> instances_;
  std::vector<ServerForm> servers_;
  std::vector<std::vector<uint32_t>> instances_by_gpu_;  // [GPU row] -> positions in instances_
  std::string memory_cases_, throughput_cases_;
  std::vector<std::pair<std::string, std::string>> gpu_aliases_;    // normalised alias -> id
  std::vector<std::pair<std::string, std::string>> model_aliases_;  // normalised alias -> id
  std::unordered_map<std::string, size_t> gpu_index_;    // normalised id or alias -> position
  std::unordered_map<std::string, size_t> model_index_;  // normalised id or alias -> position
  /// Each GPU's id and alias as the data files spell them -> the position gpu_index_ gives it.
  /// Shared by the catalog's copies; null in a catalog not read from data files.
  std::shared_ptr<const ExactNames> gpu_exact_;
  StoreAccess model_stores_;
};

}  // namespace gpusizer
