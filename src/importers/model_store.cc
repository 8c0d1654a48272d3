// Local model stores. Layouts as the stores' own code writes them:
// - Hugging Face: huggingface_hub constants.py (HF_HUB_CACHE, else HF_HOME/hub, else
//   XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub) and file_download.py
//   (models--ORG--NAME/refs/main holds the commit; snapshots/COMMIT/ holds the files).
// - ModelScope: modelscope/utils/file_utils.py (MODELSCOPE_CACHE, default ~/.cache/modelscope;
//   models under hub/), hub/cache_manager.py (hub/models/ORG/NAME, older hub/ORG/NAME) and
//   snapshot_download, which writes a '.' of the name as "___" ("Qwen2___5-7B-Instruct").
// - Ollama: server/modelpath.go and manifest.go (OLLAMA_MODELS, default ~/.ollama/models;
//   manifests/HOST/NAMESPACE/NAME/TAG, default registry.ollama.ai/library/NAME/latest; the layer
//   of mediaType application/vnd.ollama.image.model is blobs/sha256-HEX, a GGUF file).
#include "gpusizer/model_store.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "gpusizer/error.h"
#include "gpusizer/names.h"
#include "importers/json_guard.h"

namespace gpusizer {
namespace fs = std::filesystem;
namespace {

constexpr uintmax_t kMaxRefsFile = 256;       // a commit hash and a newline
constexpr uintmax_t kMaxManifest = 1u << 20;  // Ollama manifests are about 1 KB
constexpr size_t kMaxListed = 10'000;         // entries listed per store
constexpr size_t kMaxNameLength = 256;
constexpr int kMaxFilesSummed = 100'000;  // files summed for one model's size

const char* kOllamaModelLayer = "application/vnd.ollama.image.model";

// A name component a store may hold: letters, digits and ._- , not starting with '.', so that
// "..", hidden folders and absolute paths are never looked up.
bool safe_component(std::string_view s) {
  if (s.empty() || s.size() > 128 || s[0] == '.') return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t begin = 0;
  for (;;) {
    const size_t at = s.find(sep, begin);
    out.emplace_back(s.substr(begin, at == std::string_view::npos ? s.npos : at - begin));
    if (at == std::string_view::npos) return out;
    begin = at + 1;
  }
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::optional<fs::path> home(const EnvLookup& env) {
  if (auto h = env("HOME")) return fs::path(*h);
  return std::nullopt;
}

std::optional<fs::path> hf_root(const EnvLookup& env) {
  if (auto v = env("HF_HUB_CACHE")) return fs::path(*v);
  if (auto v = env("HF_HOME")) return fs::path(*v) / "hub";
  if (auto v = env("XDG_CACHE_HOME")) return fs::path(*v) / "huggingface" / "hub";
  if (auto h = home(env)) return *h / ".cache" / "huggingface" / "hub";
  return std::nullopt;
}

std::optional<fs::path> modelscope_root(const EnvLookup& env) {
  if (auto v = env("MODELSCOPE_CACHE")) return fs::path(*v);
  if (auto h = home(env)) return *h / ".cache" / "modelscope";
  return std::nullopt;
}

std::optional<fs::path> ollama_root(const EnvLookup& env) {
  if (auto v = env("OLLAMA_MODELS")) return fs::path(*v);
  if (auto h = home(env)) return *h / ".ollama" / "models";
  return std::nullopt;
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// A small text file, at most `cap` bytes; a larger one is a broken entry.
std::string read_small(const fs::path& p, uintmax_t cap) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(p, ec);
  if (ec) throw InputError(p.string(), "cannot read the file", "bad_file");
  if (size > cap)
    throw InputError(p.string(), "is larger than " + std::to_string(cap) + " bytes", "bad_file");
  std::ifstream in(p, std::ios::binary);
  if (!in) throw InputError(p.string(), "cannot open the file", "bad_file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double bytes_under(const fs::path& dir) {
  double total = 0;
  int files = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (++files > kMaxFilesSummed) break;
    std::error_code fe;
    if (!it->is_regular_file(fe)) continue;  // follows the snapshot's symlinks to the blobs
    const uintmax_t n = fs::file_size(it->path(), fe);
    if (!fe) total += static_cast<double>(n);
  }
  return total;
}

// --- Hugging Face -------------------------------------------------------------------------

std::optional<LocalModel> hf_entry(const fs::path& repo, const std::string& name) {
  if (!is_dir(repo)) return std::nullopt;
  const fs::path refs = repo / "refs" / "main";
  std::string commit;
  if (is_file(refs)) {
    commit = read_small(refs, kMaxRefsFile);
    while (!commit.empty() &&
           (commit.back() == '\n' || commit.back() == '\r' || commit.back() == ' '))
      commit.pop_back();
    if (!safe_component(commit))
      throw InputError(refs.string(), "does not hold a commit id", "bad_file");
  } else {
    // A cache filled by a revision other than main has no refs/main: one snapshot is unambiguous.
    std::vector<std::string> snaps;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(repo / "snapshots", ec)) {
      if (snaps.size() > 1) break;
      if (is_dir(e.path())) snaps.push_back(e.path().filename().string());
    }
    if (snaps.size() != 1)
      throw InputError(refs.string(),
                       snaps.empty() ? "is missing and the cache holds no snapshot"
                                     : "is missing and the cache holds several snapshots",
                       "bad_file");
    commit = snaps[0];
  }
  const fs::path snapshot = repo / "snapshots" / commit;
  if (!is_dir(snapshot))
    throw InputError(refs.string(), "names snapshot " + commit + ", which is missing", "bad_file");
  return LocalModel{ModelStore::kHfCache, name, snapshot.string(), refs.string()};
}

std::optional<LocalModel> find_hf(const std::vector<std::string>& parts, const EnvLookup& env) {
  const auto root = hf_root(env);
  if (!root || parts.size() > 2) return std::nullopt;
  std::string folder = "models";
  for (const auto& p : parts) folder += "--" + p;
  return hf_entry(*root / folder, parts.size() == 2 ? parts[0] + "/" + parts[1] : parts[0]);
}

// --- ModelScope ---------------------------------------------------------------------------

std::vector<fs::path> modelscope_bases(const fs::path& root) {
  // Current layout first, then the older ones (MODELSCOPE_CACHE once named the hub itself).
  return {root / "hub" / "models", root / "hub", root / "models", root};
}

std::optional<LocalModel> find_modelscope(const std::vector<std::string>& parts,
                                          const EnvLookup& env) {
  const auto root = modelscope_root(env);
  if (!root || parts.size() != 2) return std::nullopt;
  const std::string name = parts[0] + "/" + parts[1];
  for (const fs::path& base : modelscope_bases(*root))
    for (const std::string& folder : {replace_all(parts[1], ".", "___"), parts[1]}) {
      const fs::path dir = base / parts[0] / folder;
      if (is_dir(dir)) return LocalModel{ModelStore::kModelScope, name, dir.string(), dir.string()};
    }
  return std::nullopt;
}

// --- Ollama -------------------------------------------------------------------------------

std::string ollama_display(const std::string& host, const std::string& ns, const std::string& name,
                           const std::string& tag) {
  std::string out;
  if (host != "registry.ollama.ai") out = host + "/" + ns + "/";
  if (host == "registry.ollama.ai" && ns != "library") out = ns + "/";
  return out + name + ":" + tag;
}

std::optional<LocalModel> ollama_entry(const fs::path& root, const fs::path& manifest,
                                       const std::string& display) {
  if (!is_file(manifest)) return std::nullopt;
  const OllamaManifest m =
      parse_ollama_manifest(read_small(manifest, kMaxManifest), manifest.string());
  const fs::path blob = root / "blobs" / ("sha256-" + m.model_digest.substr(7));
  if (!is_file(blob))
    throw InputError(manifest.string(),
                     "names model blob " + blob.filename().string() + ", which is missing",
                     "bad_file");
  return LocalModel{ModelStore::kOllama, display, blob.string(), manifest.string()};
}

std::optional<LocalModel> find_ollama(std::string_view name, const EnvLookup& env) {
  const auto root = ollama_root(env);
  if (!root) return std::nullopt;
  std::string tag = "latest";
  std::string_view path = name;
  if (const size_t colon = name.rfind(':'); colon != std::string_view::npos) {
    tag = std::string(name.substr(colon + 1));
    path = name.substr(0, colon);
  }
  auto parts = split(path, '/');
  if (!safe_component(tag) || parts.empty() || parts.size() > 3) return std::nullopt;
  for (const auto& p : parts)
    if (!safe_component(p)) return std::nullopt;
  if (parts.size() == 1) parts.insert(parts.begin(), "library");
  if (parts.size() == 2) parts.insert(parts.begin(), "registry.ollama.ai");
  const fs::path manifest = *root / "manifests" / parts[0] / parts[1] / parts[2] / tag;
  return ollama_entry(*root, manifest, ollama_display(parts[0], parts[1], parts[2], tag));
}

bool allowed(const StoreAccess& a, ModelStore s) {
  return std::find(a.stores.begin(), a.stores.end(), s) != a.stores.end();
}

template <class F>
void for_subdirs(const fs::path& dir, F&& f) {
  std::error_code ec;
  std::vector<fs::path> subs;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (subs.size() >= kMaxListed) break;
    const std::string n = it->path().filename().string();
    if (!n.empty() && n[0] != '.' && is_dir(it->path())) subs.push_back(it->path());
  }
  std::sort(subs.begin(), subs.end());
  for (const auto& s : subs) f(s);
}

void list_one(std::vector<LocalListing>& out, size_t& count,
              const std::function<LocalModel()>& find, const LocalModel& fallback,
              const std::function<double(const LocalModel&)>& size) {
  if (++count > kMaxListed) return;
  LocalListing l;
  try {
    l.model = find();
    l.bytes = size(l.model);
  } catch (const InputError& e) {
    l.model = fallback;
    l.error = e.what();
  }
  out.push_back(std::move(l));
}

}  // namespace

std::string_view store_id(ModelStore store) {
  switch (store) {
    case ModelStore::kHfCache:
      return "hf-cache";
    case ModelStore::kModelScope:
      return "modelscope";
    case ModelStore::kOllama:
      return "ollama";
  }
  return "hf-cache";
}

std::vector<ModelStore> parse_store_list(std::string_view list, const std::string& field) {
  std::vector<ModelStore> out;
  auto add = [&out](ModelStore s) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  for (const std::string& item : split(list, ',')) {
    if (item == "hf" || item == "hf-cache" || item == "huggingface")
      add(ModelStore::kHfCache);
    else if (item == "modelscope" || item == "ms")
      add(ModelStore::kModelScope);
    else if (item == "ollama")
      add(ModelStore::kOllama);
    else if (item == "all")
      for (ModelStore s : {ModelStore::kHfCache, ModelStore::kModelScope, ModelStore::kOllama})
        add(s);
    else if (item != "none" && !item.empty())
      throw InputError(field, "unknown model store '" + shown_input(item) +
                                  "'; use hf, modelscope, ollama, "
                                  "all or none");
  }
  return out;
}

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());  // NOLINT(concurrency-mt-unsafe): read only
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string(v);
  };
}

OllamaManifest parse_ollama_manifest(std::string_view text, const std::string& where) {
  const nlohmann::json j = parse_json_guarded(text, where);
  if (!j.is_object() || !j.contains("layers") || !j["layers"].is_array())
    throw InputError(where, "is not an Ollama manifest (no \"layers\" array)", "bad_file");
  OllamaManifest m;
  const auto& layers = j["layers"];
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto& l = layers[i];
    const std::string at = where + ": layers[" + std::to_string(i) + "]";
    if (!l.is_object()) throw InputError(at, "must be an object", "bad_file");
    if (auto s = l.find("size"); s != l.end()) {
      if (!s->is_number() || s->get<double>() < 0 || s->get<double>() > 1e15)
        throw InputError(at + ".size", "must be a byte count", "bad_file");
      m.layer_bytes += s->get<double>();
    }
    const auto type = l.find("mediaType");
    if (type == l.end() || !type->is_string() || *type != kOllamaModelLayer) continue;
    const auto digest = l.find("digest");
    const std::string d =
        digest != l.end() && digest->is_string() ? digest->get<std::string>() : "";
    const bool hex = d.size() == 71 && d.starts_with("sha256:") &&
                     std::all_of(d.begin() + 7, d.end(), [](char c) {
                       return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                     });
    if (!hex) throw InputError(at + ".digest", "must be sha256:<64 hex digits>", "bad_file");
    if (m.model_digest.empty()) m.model_digest = d;
  }
  if (m.model_digest.empty())
    throw InputError(where, std::string("has no layer of mediaType ") + kOllamaModelLayer,
                     "bad_file");
  return m;
}

std::optional<LocalModel> find_local_model(std::string_view name, const StoreAccess& access) {
  if (access.stores.empty() || !access.env || name.empty() || name.size() > kMaxNameLength)
    return std::nullopt;
  const bool tagged = name.find(':') != std::string_view::npos;
  const auto parts = split(name, '/');
  const bool plain =
      !tagged && parts.size() <= 2 && std::all_of(parts.begin(), parts.end(), safe_component);
  if (plain && allowed(access, ModelStore::kHfCache))
    if (auto m = find_hf(parts, access.env)) return m;
  if (plain && allowed(access, ModelStore::kModelScope))
    if (auto m = find_modelscope(parts, access.env)) return m;
  if (allowed(access, ModelStore::kOllama))
    if (auto m = find_ollama(name, access.env)) return m;
  return std::nullopt;
}

ImportedModel import_local_model(const LocalModel& local) {
  if (local.store == ModelStore::kOllama) return import_gguf_path(local.path);
  return import_model_path(local.path);
}

std::vector<LocalListing> list_local_models(const StoreAccess& access) {
  std::vector<LocalListing> out;
  if (!access.env) return out;
  const EnvLookup& env = access.env;
  auto folder_size = [](const LocalModel& m) { return bytes_under(m.path); };
  if (allowed(access, ModelStore::kHfCache))
    if (const auto root = hf_root(env)) {
      size_t count = 0;
      for_subdirs(*root, [&](const fs::path& repo) {
        const std::string folder = repo.filename().string();
        if (!folder.starts_with("models--")) return;
        const std::string name = replace_all(folder.substr(8), "--", "/");
        list_one(
            out, count, [&] { return *hf_entry(repo, name); },
            LocalModel{ModelStore::kHfCache, name, repo.string(), repo.string()}, folder_size);
      });
    }
  if (allowed(access, ModelStore::kModelScope))
    if (const auto root = modelscope_root(env)) {
      size_t count = 0;
      std::vector<std::string> seen;
      for (const fs::path& base : modelscope_bases(*root))
        for_subdirs(base, [&](const fs::path& org) {
          const std::string o = org.filename().string();
          if (o == "models" || o == "datasets" || o == "hub" || o == "temp" || o == "ast_indexer")
            return;
          for_subdirs(org, [&](const fs::path& dir) {
            const std::string name = o + "/" + replace_all(dir.filename().string(), "___", ".");
            if (std::find(seen.begin(), seen.end(), dir.string()) != seen.end()) return;
            seen.push_back(dir.string());
            const LocalModel m{ModelStore::kModelScope, name, dir.string(), dir.string()};
            list_one(
                out, count, [&] { return m; }, m, folder_size);
          });
        });
    }
  if (allowed(access, ModelStore::kOllama))
    if (const auto root = ollama_root(env)) {
      size_t count = 0;
      for_subdirs(*root / "manifests", [&](const fs::path& host) {
        for_subdirs(host, [&](const fs::path& ns) {
          for_subdirs(ns, [&](const fs::path& model) {
            std::error_code ec;
            std::vector<fs::path> tags;
            for (fs::directory_iterator it(model, ec), end; !ec && it != end; it.increment(ec))
              if (is_file(it->path()) && tags.size() < kMaxListed) tags.push_back(it->path());
            std::sort(tags.begin(), tags.end());
            for (const fs::path& tag : tags) {
              const std::string display =
                  ollama_display(host.filename().string(), ns.filename().string(),
                                 model.filename().string(), tag.filename().string());
              list_one(
                  out, count, [&] { return *ollama_entry(*root, tag, display); },
                  LocalModel{ModelStore::kOllama, display, tag.string(), tag.string()},
                  [&](const LocalModel&) {
                    return parse_ollama_manifest(read_small(tag, kMaxManifest), tag.string())
                        .layer_bytes;
                  });
            }
          });
        });
      });
    }
  return out;
}

}  // namespace gpusizer
