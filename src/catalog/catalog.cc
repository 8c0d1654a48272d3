#include "gpusizer/catalog.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>

#include "catalog/csv.h"
#include "catalog/data_json.h"
#include "catalog/exact_names.h"
#include "catalog/fleet_data.h"
#include "catalog/hub_names.h"
#include "catalog/model_rows.h"
#include "catalog/speed_index.h"
#include "core/same_text.h"
#include "embed/embedded.h"
#include "gpusizer/error.h"
#include "gpusizer/json/engine_profile.h"
#include "gpusizer/json/site.h"
#include "gpusizer/json/speed_bands.h"
#include "gpusizer/names.h"

namespace gpusizer {
namespace {

std::optional<double> parse_number(const std::string& s) {
  if (s.empty() || s == "NA") return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return std::nullopt;
  return v;
}

// A numeric column of gpus.csv: empty or NA (not available), else a finite number in [min, max]
// written as nothing but a number; anything else names the file, line and column.
std::optional<double> gpu_number(const CsvRecord& f, const char* column, const std::string& where,
                                 double min, double max) {
  const std::string& text = f[column];
  if (text.empty() || text == "NA") return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(v) || v < min || v > max)
    throw InputError(where + ": " + column,
                     "must be a number between " + fmt::format("{}", min) + " and " +
                         fmt::format("{}", max) + " (or NA), not '" + text + "'",
                     "bad_file");
  return v;
}

std::vector<Gpu> parse_gpus(std::string_view text) {
  std::vector<Gpu> gpus;
  for (const CsvRecord& f : parse_csv_records(text, "gpus.csv")) {
    Gpu g;
    g.fields = f.columns;
    const std::string where = "gpus.csv line " + std::to_string(f.line);
    g.id = f["id"];
    if (g.id.empty()) throw InputError(where + ": id", "is missing", "bad_file");
    g.name = f["name"];
    g.vendor = f["vendor"];
    g.segment = f["segment"];
    g.architecture = f["architecture"];
    g.form_factor_class = f["form_factor_class"];
    g.release_year = gpu_number(f, "release_year", where, 1990, 2100);
    g.memory_gb = gpu_number(f, "memory_gb", where, 0.001, 1e5).value_or(0);
    if (g.memory_gb <= 0) throw InputError(where + ": memory_gb", "is missing", "bad_file");
    g.memory_type = f["memory_type"];
    g.memory_bandwidth_gbps = gpu_number(f, "memory_bandwidth_gbps", where, 1, 1e+06);
    g.fp32_tflops = gpu_number(f, "fp32_tflops", where, 0, 1e+06);
    g.tf32_tflops = gpu_number(f, "tf32_tflops_dense", where, 0, 1e+06);
    g.fp16_tflops = gpu_number(f, "fp16_tflops_dense", where, 0, 1e+06);
    g.bf16_tflops = gpu_number(f, "bf16_tflops_dense", where, 0, 1e+06);
    g.fp8_tflops = gpu_number(f, "fp8_tflops_dense", where, 0, 1e+06);
    g.int8_tops = gpu_number(f, "int8_tops_dense", where, 0, 1e+07);
    g.int4_or_fp4_tops = gpu_number(f, "int4_or_fp4_dense", where, 0, 1e+07);
    g.int4_or_fp4_kind = f["int4_or_fp4_kind"];
    g.nvlink = f["nvlink"] == "yes";
    g.scaleup_interconnect = f["scaleup_interconnect"];
    g.scaleup_gbps_bidir = gpu_number(f, "scaleup_gbps_bidir", where, 0, 1e+06);
    g.pcie_gen_lanes = f["pcie_gen_lanes"];
    g.tdp_w = gpu_number(f, "tdp_w", where, 1, 100000);
    g.ecc = f["ecc"];
    g.mig_max_instances = gpu_number(f, "mig_max_instances", where, 0, 1024);
    g.launch_price_usd = gpu_number(f, "launch_price_usd", where, 0, 1e+08);
    g.cloud_usd_per_gpu_hr = gpu_number(f, "cloud_usd_per_gpu_hr", where, 0, 10000);
    g.cloud_instance = f["cloud_instance"];
    g.cloud_price_date = f["cloud_price_date"];
    g.china_export_note = f["china_export_note"];
    g.confidence = f["confidence"];
    g.source_urls = f["source_urls"];
    // Topology and sale in China: typed columns, every row filled (docs/advisor.md, topology).
    g.fast_link_domain =
        static_cast<int64_t>(gpu_number(f, "fast_link_domain", where, 0, 4096).value_or(-1));
    if (g.fast_link_domain < 0)
      throw InputError(where + ": fast_link_domain", "is missing", "bad_file");
    g.pcie_gen = static_cast<int>(gpu_number(f, "pcie_gen", where, 0, 9).value_or(-1));
    if (g.pcie_gen < 0) throw InputError(where + ": pcie_gen", "is missing", "bad_file");
    g.scaleout_gbps_per_gpu = gpu_number(f, "scaleout_gbps_per_gpu", where, 0.1, 1e5);
    g.topology_source = f["topology_source"];
    g.china_status = f["china_status"];
    if (g.china_status != "available" && g.china_status != "licence" &&
        g.china_status != "restricted" && g.china_status != "not-sold")
      throw InputError(
          where + ": china_status",
          "must be available, licence, restricted or not-sold, not '" + g.china_status + "'",
          "bad_file");
    g.china_variant = f["china_variant"];
    gpus.push_back(std::move(g));
  }
  return gpus;
}

std::vector<NumberFormat> parse_formats(std::string_view text) {
  std::vector<NumberFormat> formats;
  for (const CsvRecord& f : parse_csv_records(text, "formats.csv")) {
    NumberFormat nf;
    nf.id = f["id"];
    nf.kind = f["kind"];
    nf.bits_per_value = parse_number(f["bits_per_value"]).value_or(0);
    if (nf.id.empty() || nf.bits_per_value <= 0)
      throw InputError("formats.csv line " + std::to_string(f.line),
                       "needs an id and a positive bits_per_value", "bad_file");
    nf.embedding_format = f["embedding_format"];
    nf.lm_head_format = f["lm_head_format"];
    nf.dense_format = f["dense_format"];
    nf.usable_for = f["usable_for"];
    nf.compute_dtype = f["compute_dtype"];
    nf.needs = f["needs"];
    nf.source = f["source"];
    nf.notes = f["notes"];
    // llama.cpp's DP4A kernels' counted work (gguf rows; empty elsewhere: 0, not counted).
    nf.dp4a.mmq_dp4a = parse_number(f["dp4a_mmq_dp4a"]).value_or(0);
    nf.dp4a.mmq_alu = parse_number(f["dp4a_mmq_alu"]).value_or(0);
    nf.dp4a.mmq_lsu = parse_number(f["dp4a_mmq_lsu"]).value_or(0);
    nf.dp4a.mmvq_cycles_per_weight = parse_number(f["dp4a_mmvq_cycles"]).value_or(0);
    formats.push_back(std::move(nf));
  }
  // The embedding, head and dense-layer formats name other rows of the same table.
  auto bits_of = [&](const std::string& id, size_t row) {
    if (id.empty()) return 0.0;
    for (const auto& g : formats)
      if (g.id == id) return g.bits_per_value;
    throw InputError("formats.csv " + formats[row].id, "names an unknown format '" + id + "'",
                     "bad_file");
  };
  for (size_t i = 0; i < formats.size(); ++i) {
    formats[i].embedding_bits = bits_of(formats[i].embedding_format, i);
    formats[i].lm_head_bits = bits_of(formats[i].lm_head_format, i);
    formats[i].dense_bits = bits_of(formats[i].dense_format, i);
  }
  return formats;
}

// A data file of a --data-dir: a regular file (a FIFO or device would block or never end) of at
// most 64 MiB (the built-in files total under 1 MiB).
std::string read_data_file(const std::string& path, const std::string& name) {
  constexpr std::uintmax_t kMaxBytes = 64u << 20;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(name, "'" + path + "' is not a regular file", "bad_file");
  if (std::filesystem::file_size(path, ec) > kMaxBytes)
    throw InputError(name, "'" + path + "' is larger than 64 MiB", "bad_file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(name, "cannot read '" + path + "'", "bad_file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

[[noreturn]] void unknown(std::string_view name, const std::string& field, const char* what,
                          const std::vector<std::string>& ids) {
  std::string msg = std::string("unknown ") + what + " '" + shown_input(name) + "'";
  const auto near = closest_names(name, ids);
  if (!near.empty()) {
    msg += "; did you mean ";
    for (size_t i = 0; i < near.size(); ++i) msg += (i ? ", " : "") + near[i];
    msg += "?";
  }
  throw InputError(field, msg, "unknown_name");
}

// Whether normalised `key` occurs in `id` starting at the beginning of one of its tokens
// ("4090" in "rtx-4090-24gb"), so that a typo inside a token ("lama") is not taken as a match.
bool matches_at_token_start(const std::string& id, const std::string& key) {
  std::string norm;
  std::vector<size_t> starts;
  bool boundary = true;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      boundary = true;
      continue;
    }
    if (boundary) starts.push_back(norm.size());
    boundary = false;
    norm += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (size_t start : starts)
    if (norm.compare(start, key.size(), key) == 0) return true;
  return false;
}

// Whether normalised `id` (or name) is `key` followed by a memory size only ("rtx309024gb" for
// "rtx3090"), digits and "gb": the card itself, beside its variants that add words
// ("rtx3090ti24gb").
bool key_and_memory_size(const std::string& id, const std::string& key) {
  if (id.size() <= key.size() + 2 || id.compare(0, key.size(), key) != 0) return false;
  const std::string_view rest = std::string_view(id).substr(key.size());
  if (rest.substr(rest.size() - 2) != "gb") return false;
  const std::string_view digits = rest.substr(0, rest.size() - 2);
  return std::all_of(digits.begin(), digits.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// Resolves `name` against ids, then aliases, then unique normalised-substring matches; of
// several, the one that is the name but for its memory size ("rtx-3090": rtx-3090-24gb, not
// rtx-3090-ti-24gb; "l40": l40-48gb, not l40s-48gb).
template <typename Item>
const Item& lookup(const std::vector<Item>& items,
                   const std::unordered_map<std::string, size_t>& index, std::string_view name,
                   const std::string& field, const char* what) {
  const std::string key = normalize_name(name);
  if (auto it = index.find(key); it != index.end()) return items[it->second];
  if (key.size() >= 3) {
    std::vector<const Item*> partial;
    for (const auto& it : items)
      if (matches_at_token_start(it.id, key) || matches_at_token_start(it.name, key))
        partial.push_back(&it);
    if (partial.size() == 1) return *partial[0];
    const Item* sized = nullptr;
    size_t sized_count = 0;
    for (const Item* it : partial)
      if (key_and_memory_size(normalize_name(it->id), key) ||
          key_and_memory_size(normalize_name(it->name), key)) {
        sized = it;
        ++sized_count;
      }
    if (sized_count == 1) return *sized;
    if (partial.size() > 1) {
      std::string msg = std::string("'") + std::string(name) + "' is ambiguous: it matches ";
      for (size_t i = 0; i < partial.size(); ++i) msg += (i ? ", " : "") + partial[i]->id;
      throw InputError(field, msg, "unknown_name");
    }
  }
  std::vector<std::string> ids;
  for (const auto& it : items) ids.push_back(it.id);
  unknown(name, field, what, ids);
}

// Normalised id and alias -> position; ids win over aliases of the same spelling.
template <typename Item>
std::unordered_map<std::string, size_t> build_index(
    const std::vector<Item>& items,
    const std::vector<std::pair<std::string, std::string>>& aliases) {
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < items.size(); ++i) index.emplace(normalize_name(items[i].id), i);
  for (const auto& [alias, target] : aliases)
    if (auto it = index.find(normalize_name(target)); it != index.end())
      index.emplace(alias, it->second);
  return index;
}

// The GPUs' ids and aliases as the data files spell them that `index` finds once normalised, each
// to the position it finds: an exact hit is what lookup() answers for that spelling (issue 18:
// lookup() normalises a name into a string and hashes it, ~300 instructions). The rows' names
// ("GeForce RTX 4090 24GB") are left to the normalised way: seldom given so, and each is longer
// than a string's inline bytes (an allocation more a catalog read).
std::shared_ptr<const ExactNames> exact_gpu_names(
    const std::vector<Gpu>& gpus, const std::vector<std::string_view>& aliases,
    const std::unordered_map<std::string, size_t>& index) {
  auto exact = std::make_shared<ExactNames>(gpus.size() + aliases.size());
  const auto add = [&](std::string_view spelling) {
    if (const auto it = index.find(normalize_name(spelling)); it != index.end())
      exact->add(spelling, static_cast<uint32_t>(it->second));
  };
  for (const Gpu& g : gpus) add(g.id);
  for (const std::string_view alias : aliases) add(alias);
  return exact;
}

}  // namespace

namespace {

// The row of a FormatRef that was never set: shared by every such one, and owned by none (the
// aliasing constructor over an empty owner), so that such a ref is made, copied and freed
// without a count (issue 18: two atomic counts and a guard a ref, three refs a Scenario made
// and destroyed, ~80 instructions a line). Never freed: a ref may outlive any other static.
const std::shared_ptr<const NumberFormat>& unset_format() {
  static const std::shared_ptr<const NumberFormat> unset(std::shared_ptr<const void>(),
                                                         new NumberFormat());
  return unset;
}

}  // namespace

FormatRef::FormatRef() : row_(unset_format()) {}

bool NumberFormat::usable_for_role(const std::string& role) const {
  // usable_for is a ';'-separated list such as "weights;kv": the role compared byte by byte at
  // each entry's start, then the entry skipped to its ';' (issue 18: find and compare, two calls
  // an entry, were ~140 instructions a test, one test each time a scenario's format is looked up;
  // a role is most often the list's first or second entry).
  const char* p = usable_for.data();
  const char* const end = p + usable_for.size();
  const char* const r = role.data();
  const size_t n = role.size();
  for (;;) {
    size_t same = 0;
    while (same < n && p + same < end && p[same] == r[same] && r[same] != ';') ++same;
    if (same == n && (p + n == end || p[n] == ';')) return true;
    while (p < end && *p != ';') ++p;
    if (p == end) return false;
    ++p;
  }
}

const std::vector<std::string>& Catalog::file_names() {
  static const std::vector<std::string> names = {"gpus.csv",
                                                 "models.jsonl",
                                                 "formats.csv",
                                                 "engines.json",
                                                 "aliases.csv",
                                                 "speed.json",
                                                 "speed_bands.json",
                                                 "costs.json",
                                                 "facility.json",
                                                 "instances.csv",
                                                 "servers.csv",
                                                 "validation/memory_cases.jsonl",
                                                 "validation/throughput_cases.jsonl"};
  return names;
}

Catalog Catalog::from_texts(const std::vector<std::pair<std::string, std::string>>& texts) {
  auto text = [&](const std::string& name) -> std::string_view {
    for (const auto& [n, t] : texts)
      if (n == name) return t;
    return embedded::find(name);
  };
  for (const auto& [name, t] : texts) {
    if (std::find(file_names().begin(), file_names().end(), name) == file_names().end())
      throw InputError(name, "is not a gpusizer data file", "bad_file");
    if (const size_t nul = t.find('\0'); nul != std::string::npos)
      throw InputError(
          name + " line " +
              std::to_string(
                  1 + std::count(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(nul), '\n')),
          "holds a NUL byte: not a text file", "bad_file");
  }
  Catalog c;
  c.gpus_ = std::make_shared<const std::vector<Gpu>>(parse_gpus(text("gpus.csv")));
  // The built-in rows are tested whole, so they are parsed as they are asked for; a user's own
  // file is parsed now, so that its errors come at load.
  const bool own_models = std::any_of(texts.begin(), texts.end(),
                                      [](const auto& t) { return t.first == "models.jsonl"; });
  c.model_rows_ = own_models ? ModelRows::parsed(text("models.jsonl"))
                             : ModelRows::deferred(text("models.jsonl"));
  c.formats_ =
      std::make_shared<const std::vector<NumberFormat>>(parse_formats(text("formats.csv")));
  {
    const nlohmann::json engines = data::parse_json(text("engines.json"), "engines.json");
    c.engines_ = read_engine_profiles(engines, "engines.json");
    c.device_ = read_device_profile(engines, "engines.json");
    c.engine_defaults_ = read_engine_defaults(engines, "engines.json");
    c.zero3_ = read_zero3_defaults(engines, "engines.json");
  }
  c.speed_ = SpeedProfile::parse(text("speed.json"), "speed.json");
  c.speed_bands_ = read_speed_bands(data::parse_json(text("speed_bands.json"), "speed_bands.json"),
                                    "speed_bands.json");
  c.costs_ = read_cost_defaults(data::parse_json(text("costs.json"), "costs.json"), "costs.json");
  c.facility_ = read_facility_defaults(data::parse_json(text("facility.json"), "facility.json"),
                                       "facility.json");
  c.instances_ = parse_instances(text("instances.csv"), *c.gpus_);
  c.servers_ = parse_servers(text("servers.csv"), *c.gpus_);
  c.instances_by_gpu_.resize(c.gpus_->size());
  for (size_t i = 0; i < c.instances_.size(); ++i)
    c.instances_by_gpu_[c.instances_[i].gpu_row].push_back(static_cast<uint32_t>(i));
  c.memory_cases_ = std::string(text("validation/memory_cases.jsonl"));
  c.throughput_cases_ = std::string(text("validation/throughput_cases.jsonl"));
  for (const auto& g : *c.gpus_) c.gpu_aliases_.emplace_back(normalize_name(g.name), g.id);
  for (const auto& m : c.model_rows_->names()) {
    if (!m.hf_id.empty()) c.model_aliases_.emplace_back(normalize_name(m.hf_id), m.id);
    c.model_aliases_.emplace_back(normalize_name(m.name), m.id);
  }
  const auto rows = parse_csv(text("aliases.csv"), "aliases.csv");
  std::vector<std::string_view> gpu_alias_spellings;
  for (size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].size() < 3) continue;
    const bool gpu = rows[i][1] == "gpu";
    (gpu ? c.gpu_aliases_ : c.model_aliases_).emplace_back(normalize_name(rows[i][0]), rows[i][2]);
    if (gpu) gpu_alias_spellings.emplace_back(rows[i][0]);
  }
  c.gpu_index_ = build_index(*c.gpus_, c.gpu_aliases_);
  c.gpu_exact_ = exact_gpu_names(*c.gpus_, gpu_alias_spellings, c.gpu_index_);
  c.speed_index_ = std::make_shared<const SpeedIndex>(c.speed_, c.engines_, *c.gpus_, *c.formats_);
  c.model_index_ = build_index(c.model_rows_->names(), c.model_aliases_);
  return c;
}

Catalog Catalog::embedded() {
  return from_texts({});
}

Catalog Catalog::load(const std::string& dir) {
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_directory(dir, ec))
    throw InputError("--data-dir", "'" + dir + "' is not a directory", "bad_file");
  std::vector<std::pair<std::string, std::string>> texts;
  for (const std::string& name : file_names()) {
    const std::string path = dir + "/" + name;
    if (!std::filesystem::exists(path, ec)) continue;
    texts.emplace_back(name, read_data_file(path, name));
  }
  return from_texts(texts);
}

const Catalog& Catalog::builtin() {
  static const Catalog catalog = [] {
    if (const char* dir = std::getenv("GPUSIZER_DATA_DIR"); dir && *dir) return load(dir);
    return embedded();
  }();
  return catalog;
}

std::string Catalog::closest_format(std::string_view kind, double bits) const {
  std::string best;
  double gap = 1e9;
  for (const auto& f : *formats_)
    if (f.kind == kind && std::abs(f.bits_per_value - bits) < gap) {
      gap = std::abs(f.bits_per_value - bits);
      best = f.id;
    }
  return best;
}

namespace {

// A thread's last few look-ups in one kind of catalog table: the row a look-up found for a
// spelling (and, for formats, a role) in a table, replaced in turn (issue 18: a format's scan of
// formats.csv and its role's test were ~185 instructions a look-up, a model's or a GPU's hashed
// name ~140-200, each once or more a line, for the few spellings a batch names over and over).
// An entry shares its table, so no other table takes that address while it can match; a
// table's index is made with it and never changed (Catalog::from_texts).
template <typename Table, typename Row>
class FoundRows {
 public:
  const Row* find(const Table* table, std::string_view name, std::string_view role = {}) const {
    for (const Entry& e : entries_)
      if (e.table.get() == table && e.name_size == name.size() && e.role_size == role.size() &&
          (name.empty() || std::memcmp(e.name, name.data(), name.size()) == 0) &&
          (role.empty() || std::memcmp(e.role, role.data(), role.size()) == 0))
        return e.row;
    return nullptr;
  }
  void keep(const std::shared_ptr<const Table>& table, const Row& row, std::string_view name,
            std::string_view role = {}) {
    if (name.size() > sizeof(Entry::name) || role.size() > sizeof(Entry::role)) return;
    Entry& e = entries_[next_];
    next_ = (next_ + 1) % entries_.size();
    e.table = table;
    e.row = &row;
    e.name_size = static_cast<uint8_t>(name.size());
    e.role_size = static_cast<uint8_t>(role.size());
    if (!name.empty()) std::memcpy(e.name, name.data(), name.size());
    if (!role.empty()) std::memcpy(e.role, role.data(), role.size());
  }

 private:
  struct Entry {
    std::shared_ptr<const Table> table;  // null: empty
    const Row* row = nullptr;
    uint8_t name_size = 0, role_size = 0;
    char name[46];  // a model's Hugging Face id fits
    char role[16];
  };
  std::array<Entry, 4> entries_{};
  size_t next_ = 0;
};

}  // namespace

const Gpu& Catalog::gpu(std::string_view name, const std::string& field) const {
  thread_local FoundRows<std::vector<Gpu>, Gpu> found;
  if (const Gpu* row = found.find(gpus_.get(), name)) return *row;
  const Gpu* row = nullptr;
  if (gpu_exact_)
    if (const auto exact = gpu_exact_->find(name)) row = &(*gpus_)[*exact];
  if (!row) row = &lookup(*gpus_, gpu_index_, name, field, "GPU");
  found.keep(gpus_, *row, name);
  return *row;
}

GpuRef Catalog::gpu_ref(std::string_view name, const std::string& field) const {
  // The aliasing constructor: the row, owned through the catalog's shared table.
  return std::shared_ptr<const Gpu>(gpus_, &gpu(name, field));
}

const std::vector<Model>& Catalog::models() const {
  static const std::vector<Model> none;
  return model_rows_ ? model_rows_->all() : none;
}

const Model& Catalog::model(std::string_view name, const std::string& field) const {
  static const std::vector<ModelName> no_names;
  thread_local FoundRows<ModelRows, Model> found;
  if (const Model* row = found.find(model_rows_.get(), name)) return *row;
  const Model* row = nullptr;
  if (model_rows_)
    if (const auto exact = model_rows_->exact_id(name)) row = &model_rows_->at(*exact);
  if (!row) {
    const std::vector<ModelName>& names = model_rows_ ? model_rows_->names() : no_names;
    const ModelName& named = lookup(names, model_index_, name, field, "model");
    row = &model_rows_->at(static_cast<size_t>(&named - names.data()));
  }
  found.keep(model_rows_, *row, name);
  return *row;
}

ModelRef Catalog::model_ref(std::string_view name, const std::string& field) const {
  // The aliasing constructor: the row, owned through the catalog's shared rows.
  return std::shared_ptr<const Model>(model_rows_, &model(name, field));
}

std::optional<ModelRef> Catalog::reupload_base(std::string_view name) const {
  if (!model_rows_ || model_index_.count(normalize_name(name))) return std::nullopt;
  // Only an exact id or alias of a shorter spelling counts, never a partial match of one.
  for (const std::string& spelling : hub_spellings(name))
    if (const auto it = model_index_.find(normalize_name(spelling)); it != model_index_.end())
      return ModelRef(std::shared_ptr<const Model>(model_rows_, &model_rows_->at(it->second)));
  return std::nullopt;
}

bool Catalog::names_exactly(std::string_view name, const Gpu& found) const {
  if (name == found.id) return true;  // the common case, without normalising (issue 18)
  // A spelling of the data files is in gpu_exact_ only where gpu_index_ has it normalised.
  if (gpu_exact_ && gpu_exact_->find(name)) return true;
  const std::string key = normalize_name(name);
  return gpu_index_.count(key) > 0 || key_and_memory_size(normalize_name(found.id), key) ||
         key_and_memory_size(normalize_name(found.name), key);
}

namespace {

using FormatTable = std::vector<NumberFormat>;

// The row of `formats` that `name` spells for `role` (Catalog::format).
const NumberFormat& scan_formats(const FormatTable& formats, std::string_view name,
                                 const std::string& role, const std::string& field) {
  for (const auto& f : formats)
    if (same_text(f.id, name) && f.usable_for_role(role)) return f;  // the common, exact spelling
  std::vector<std::string> valid;
  for (const auto& f : formats)
    if (f.usable_for_role(role)) {
      if (normalize_name(f.id) == normalize_name(name)) return f;
      valid.push_back(f.id);
    }
  unknown(name, field, (role + " format").c_str(), valid);
}

}  // namespace

const NumberFormat& Catalog::format(std::string_view name, const std::string& role,
                                    const std::string& field) const {
  thread_local FoundRows<FormatTable, NumberFormat> found;
  if (const NumberFormat* row = found.find(formats_.get(), name, role)) return *row;
  const NumberFormat& row = scan_formats(*formats_, name, role, field);
  found.keep(formats_, row, name, role);
  return row;
}

FormatRef Catalog::format_ref(std::string_view name, const std::string& role,
                              const std::string& field) const {
  // The aliasing constructor: the row, owned through the catalog's shared table.
  return std::shared_ptr<const NumberFormat>(formats_, &format(name, role, field));
}

const EngineProfile& Catalog::engine(std::string_view name, std::string_view field) const {
  for (const auto& e : engines_)
    if (same_text(e.name, name)) return e;
  std::vector<std::string> valid;
  for (const auto& e : engines_) {
    if (normalize_name(e.name) == normalize_name(name)) return e;
    valid.push_back(e.name);
  }
  unknown(name, std::string(field), "engine", valid);
}

}  // namespace gpusizer
