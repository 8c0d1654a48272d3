#include "gpusizer/catalog.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "catalog/csv.h"
#include "catalog/model_record.h"
#include "embed/embedded.h"
#include "gpusizer/error.h"

namespace gpusizer {
namespace {

std::optional<double> parse_number(const std::string& s) {
  if (s.empty() || s == "NA") return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return std::nullopt;
  return v;
}

std::vector<Gpu> parse_gpus(std::string_view text) {
  std::vector<Gpu> gpus;
  for (const CsvRecord& f : parse_csv_records(text, "gpus.csv")) {
    Gpu g;
    g.fields = f.columns;
    for (const auto& [column, value] : f.columns)
      if (value == "NA") g.unsupported.push_back(column);
    const std::string where = "gpus.csv line " + std::to_string(f.line);
    g.id = f["id"];
    if (g.id.empty()) throw InputError(where + ": id", "is missing", "bad_file");
    g.name = f["name"];
    g.vendor = f["vendor"];
    g.segment = f["segment"];
    g.architecture = f["architecture"];
    g.form_factor_class = f["form_factor_class"];
    g.release_year = parse_number(f["release_year"]);
    g.memory_gb = parse_number(f["memory_gb"]).value_or(0);
    if (g.memory_gb <= 0) throw InputError(where + ": memory_gb", "must be positive", "bad_file");
    g.memory_type = f["memory_type"];
    g.memory_bandwidth_gbps = parse_number(f["memory_bandwidth_gbps"]);
    g.fp32_tflops = parse_number(f["fp32_tflops"]);
    g.tf32_tflops = parse_number(f["tf32_tflops_dense"]);
    g.fp16_tflops = parse_number(f["fp16_tflops_dense"]);
    g.bf16_tflops = parse_number(f["bf16_tflops_dense"]);
    g.fp8_tflops = parse_number(f["fp8_tflops_dense"]);
    g.int8_tops = parse_number(f["int8_tops_dense"]);
    g.int4_or_fp4_tops = parse_number(f["int4_or_fp4_dense"]);
    g.int4_or_fp4_kind = f["int4_or_fp4_kind"];
    g.nvlink = f["nvlink"] == "yes";
    g.scaleup_interconnect = f["scaleup_interconnect"];
    g.scaleup_gbps_bidir = parse_number(f["scaleup_gbps_bidir"]);
    g.pcie_gen_lanes = f["pcie_gen_lanes"];
    g.tdp_w = parse_number(f["tdp_w"]);
    g.ecc = f["ecc"];
    g.mig_max_instances = parse_number(f["mig_max_instances"]);
    g.launch_price_usd = parse_number(f["launch_price_usd"]);
    g.cloud_usd_per_gpu_hr = parse_number(f["cloud_usd_per_gpu_hr"]);
    g.cloud_instance = f["cloud_instance"];
    g.cloud_price_date = f["cloud_price_date"];
    g.china_export_note = f["china_export_note"];
    g.confidence = f["confidence"];
    g.source_urls = f["source_urls"];
    gpus.push_back(std::move(g));
  }
  return gpus;
}

std::vector<Model> parse_models(std::string_view text) {
  std::vector<Model> models;
  std::istringstream in{std::string(text)};
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = "models.jsonl line " + std::to_string(n);
    nlohmann::json record;
    try {
      record = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      throw InputError(where, std::string("malformed JSON: ") + e.what(), "bad_file");
    }
    models.push_back(model_from_record(record, where));
  }
  return models;
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
    nf.usable_for = f["usable_for"];
    nf.compute_dtype = f["compute_dtype"];
    nf.needs = f["needs"];
    nf.source = f["source"];
    nf.notes = f["notes"];
    formats.push_back(std::move(nf));
  }
  return formats;
}

std::string read_file_or_empty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

[[noreturn]] void unknown(std::string_view name, const std::string& field, const char* what,
                          const std::vector<std::string>& ids) {
  std::string msg = std::string("unknown ") + what + " '" + std::string(name) + "'";
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

// Resolves `name` against ids, then aliases, then unique normalised-substring matches.
template <typename Item>
const Item& lookup(const std::vector<Item>& items,
                   const std::unordered_map<std::string, size_t>& index, std::string_view name,
                   const std::string& field, const char* what) {
  const std::string key = normalize_name(name);
  if (auto it = index.find(key); it != index.end()) return items[it->second];
  if (key.size() >= 3) {
    std::vector<const Item*> partial;
    for (const auto& it : items)
      if (matches_at_token_start(it.id, key)) partial.push_back(&it);
    if (partial.size() == 1) return *partial[0];
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

}  // namespace

bool NumberFormat::usable_for_role(const std::string& role) const {
  // usable_for is a ';'-separated list such as "weights;kv".
  for (size_t start = 0; start <= usable_for.size();) {
    const size_t end = std::min(usable_for.find(';', start), usable_for.size());
    if (usable_for.compare(start, end - start, role) == 0) return true;
    start = end + 1;
  }
  return false;
}

Catalog Catalog::from_texts(std::string_view gpus_csv, std::string_view models_jsonl,
                            std::string_view formats_csv, std::string_view engines_json,
                            std::string_view aliases_csv) {
  Catalog c;
  c.gpus_ = parse_gpus(gpus_csv);
  c.models_ = parse_models(models_jsonl);
  c.formats_ = parse_formats(formats_csv);
  try {
    c.engines_ = nlohmann::json::parse(engines_json);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError("engines.json", std::string("malformed JSON: ") + e.what(), "bad_file");
  }
  for (const auto& g : c.gpus_) c.gpu_aliases_.emplace_back(normalize_name(g.name), g.id);
  for (const auto& m : c.models_) {
    if (!m.hf_id.empty()) c.model_aliases_.emplace_back(normalize_name(m.hf_id), m.id);
    c.model_aliases_.emplace_back(normalize_name(m.name), m.id);
  }
  const auto rows = parse_csv(aliases_csv, "aliases.csv");
  for (size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].size() < 3) continue;
    auto& list = rows[i][1] == "gpu" ? c.gpu_aliases_ : c.model_aliases_;
    list.emplace_back(normalize_name(rows[i][0]), rows[i][2]);
  }
  c.gpu_index_ = build_index(c.gpus_, c.gpu_aliases_);
  for (const auto& g : c.gpus_) c.shared_gpus_.push_back(std::make_shared<const Gpu>(g));
  c.model_index_ = build_index(c.models_, c.model_aliases_);
  return c;
}

Catalog Catalog::load(const std::string& dir) {
  auto file = [&](const char* name) {
    std::string text = read_file_or_empty(dir + "/" + name);
    return text.empty() ? std::string(embedded::find(name)) : text;
  };
  return from_texts(file("gpus.csv"), file("models.jsonl"), file("formats.csv"),
                    file("engines.json"), file("aliases.csv"));
}

const Catalog& Catalog::builtin() {
  static const Catalog catalog = [] {
    if (const char* dir = std::getenv("GPUSIZER_DATA_DIR"); dir && *dir) return load(dir);
    return from_texts(embedded::find("gpus.csv"), embedded::find("models.jsonl"),
                      embedded::find("formats.csv"), embedded::find("engines.json"),
                      embedded::find("aliases.csv"));
  }();
  return catalog;
}

const Gpu& Catalog::gpu(std::string_view name, const std::string& field) const {
  return lookup(gpus_, gpu_index_, name, field, "GPU");
}

GpuRef Catalog::gpu_ref(std::string_view name, const std::string& field) const {
  const Gpu& g = gpu(name, field);
  return shared_gpus_[static_cast<size_t>(&g - gpus_.data())];
}

const Model& Catalog::model(std::string_view name, const std::string& field) const {
  return lookup(models_, model_index_, name, field, "model");
}

const NumberFormat& Catalog::format(std::string_view name, const std::string& role,
                                    const std::string& field) const {
  for (const auto& f : formats_)
    if (f.id == name && f.usable_for_role(role)) return f;  // the common, exact spelling
  std::vector<std::string> valid;
  for (const auto& f : formats_)
    if (f.usable_for_role(role)) {
      if (normalize_name(f.id) == normalize_name(name)) return f;
      valid.push_back(f.id);
    }
  unknown(name, field, (role + " format").c_str(), valid);
}

const nlohmann::json& Catalog::engine(std::string_view name, const std::string& field) const {
  if (auto it = engines_.find(std::string(name)); it != engines_.end() && name[0] != '_')
    return *it;
  std::vector<std::string> valid;
  for (const auto& [key, value] : engines_.items()) {
    if (key.empty() || key[0] == '_') continue;
    if (normalize_name(key) == normalize_name(name)) return value;
    valid.push_back(key);
  }
  unknown(name, field, "engine", valid);
}

}  // namespace gpusizer
