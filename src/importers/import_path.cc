// import_model_path: what a path holds decides the reader. A Model comes from config.json when
// there is one; weight files add exact bytes and counts.
#include <algorithm>
#include <filesystem>

#include "gpusizer/error.h"
#include "gpusizer/importers.h"
#include "gpusizer/regular_file.h"
#include "importers/byte_reader.h"
#include "importers/model_guard.h"
#include "importers/safetensors.h"

namespace gpusizer {
namespace fs = std::filesystem;
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// config.json and index files: regular files only, at most kMaxJsonFileBytes.
std::string read_text(const fs::path& p) {
  return read_regular_file(p.string(), kMaxJsonFileBytes, p.string());
}

std::vector<TensorEntry> safetensors_entries(const std::string& path, int64_t& files) {
  if (ends_with(path, ".json")) {
    const fs::path dir = fs::path(path).parent_path();
    std::vector<TensorEntry> all;
    for (const auto& shard : safetensors_index_shards(read_text(path), path)) {
      FileSource src((dir / shard).string(), path + ": shard " + shard);
      auto t = read_safetensors_header(src, (dir / shard).string());
      all.insert(all.end(), std::make_move_iterator(t.begin()), std::make_move_iterator(t.end()));
      ++files;
    }
    return all;
  }
  FileSource src(path, path);
  ++files;
  return read_safetensors_header(src, path);
}

// Without config.json: sizes that the tensor shapes show (embedding V x d, layer count), and the
// exact count of stored parameters as a given total.
Model model_from_tensors(const std::vector<TensorEntry>& tensors, const WeightsFile& w,
                         std::vector<std::string>& notes) {
  Model m;
  m.source = "safetensors shapes (no config.json)";
  m.name = m.id = "imported";
  int64_t layers = 0;
  for (const auto& t : tensors) {
    if (is_embedding_tensor(t.name) && t.shape.size() == 2) {
      m.vocab_size = t.shape[0];
      m.hidden_size = t.shape[1];
    }
    for (const char* marker : {"layers.", ".h.", "blocks."}) {
      const auto at = t.name.find(marker);
      if (at == std::string::npos) continue;
      const char* p = t.name.c_str() + at + std::string_view(marker).size();
      int64_t n = 0, digits = 0;
      for (; *p >= '0' && *p <= '9' && digits < 9; ++p, ++digits) n = n * 10 + (*p - '0');
      if (digits > 0) layers = std::max(layers, n + 1);
      break;
    }
  }
  m.num_layers = layers;
  m.given_params = w.elements;
  notes.emplace_back(
      "no config.json: the parameter count is the stored tensors' total; heads, "
      "KV heads and head_dim are unknown, so KV cache sizes need config.json");
  return m;
}

ImportedModel import_weights(const std::string& path, const fs::path& config, bool shapes_only) {
  int64_t files = 0;
  const auto tensors = safetensors_entries(path, files);
  WeightsFile w = summarize_safetensors(tensors, path);
  w.files = files;
  ImportedModel out;
  if (!config.empty()) {
    out = import_hf_config_text(read_text(config), config.string());
  } else {
    out.model = model_from_tensors(tensors, w, out.warnings);
    check_countable(out.model, path, "bad_file");
    if (!shapes_only)
      throw InputError(
          path,
          "has no config.json beside it: the tensor shapes give the parameter count (" +
              std::to_string(w.elements) +
              ") but not the attention heads, KV heads and head_dim an estimate "
              "needs; put the model's config.json in the same folder, or send "
              "{\"hf_config\": {...}} or {\"params\": N}",
          "bad_input");
  }
  if (out.weights_format.empty()) out.weights_format = w.weights_format;
  out.weights = std::move(w);
  return out;
}

fs::path config_beside(const fs::path& file) {
  const fs::path c = file.parent_path() / "config.json";
  std::error_code ec;
  // exists, not is_regular_file: a config.json that is a FIFO or device is refused when read,
  // not silently skipped.
  return fs::exists(c, ec) ? c : fs::path();
}

}  // namespace

WeightsFile read_safetensors_bytes(std::string_view bytes, const std::string& where) {
  MemorySource src(bytes);
  return summarize_safetensors(read_safetensors_header(src, where), where);
}

WeightsFile read_safetensors_path(const std::string& path) {
  check_path_text(path, "model");
  int64_t files = 0;
  WeightsFile w = summarize_safetensors(safetensors_entries(path, files), path);
  w.files = files;
  return w;
}

ImportedModel import_model_path(const std::string& path, bool shapes_only) {
  check_path_text(path, "model");  // before any file call: a NUL would cut the name short
  std::error_code ec;
  const fs::path p(path);
  if (!fs::exists(p, ec)) throw InputError(path, "no such file or folder", "bad_input");
  if (fs::is_directory(p, ec)) {
    const fs::path config = p / "config.json";
    const bool has_config = fs::exists(config, ec);  // read_text refuses a non-regular one
    if (fs::is_regular_file(p / "model.safetensors.index.json", ec))
      return import_weights((p / "model.safetensors.index.json").string(),
                            has_config ? config : fs::path(), shapes_only);
    std::vector<std::string> safetensors, ggufs;
    for (const auto& e : fs::directory_iterator(p, ec)) {
      const std::string name = e.path().string();
      if (ends_with(name, ".safetensors")) safetensors.push_back(name);
      if (ends_with(name, ".gguf")) ggufs.push_back(name);
    }
    std::sort(safetensors.begin(), safetensors.end());
    std::sort(ggufs.begin(), ggufs.end());
    if (safetensors.size() == 1)
      return import_weights(safetensors[0], has_config ? config : fs::path(), shapes_only);
    if (safetensors.size() > 1)
      throw InputError(path, "holds several .safetensors files but no model.safetensors.index.json",
                       "bad_input");
    if (has_config) return import_hf_config_text(read_text(config), config.string());
    if (!ggufs.empty()) return import_gguf_path(ggufs[0]);
    throw InputError(path, "holds no config.json, .safetensors or .gguf file", "bad_input");
  }
  if (ends_with(path, ".gguf")) return import_gguf_path(path);
  if (ends_with(path, ".safetensors") || ends_with(path, ".safetensors.index.json") ||
      ends_with(path, ".index.json"))
    return import_weights(path, config_beside(p), shapes_only);
  if (ends_with(path, ".json")) return import_hf_config_text(read_text(p), path);
  throw InputError(path, "is not a config.json, model folder, .safetensors(.index.json) or .gguf",
                   "bad_input");
}

}  // namespace gpusizer
