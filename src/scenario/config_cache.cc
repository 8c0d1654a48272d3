#include "scenario/config_cache.h"
#include "gpusizer/json/importers.h"

#include <map>
#include <mutex>

namespace gpusizer {
namespace {

// Enough distinct configs for any batch that sweeps a few models; past it the cache starts over
// rather than grow with a server's traffic.
constexpr size_t kMaxConfigs = 64;

// An order on JSON values that tells types apart: nlohmann's own operator< holds 4096 and 4096.0
// equivalent, and the importer may accept one and refuse the other.
int compare(const nlohmann::json& a, const nlohmann::json& b) {
  // (value_t's own operator< ranks the three number types alike: compare the enum's values.)
  const auto ta = static_cast<int>(a.type()), tb = static_cast<int>(b.type());
  if (ta != tb) return ta < tb ? -1 : 1;
  if (a.is_object() || a.is_array()) {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
      if (a.is_object())
        if (const int k = i.key().compare(j.key()); k != 0) return k;
      if (const int v = compare(*i, *j); v != 0) return v;
    }
    return 0;
  }
  if (a == b) return 0;
  return a < b ? -1 : 1;
}

struct Key {
  std::string where;
  nlohmann::json config;
};

// A lookup compares the caller's config in place (no copy of the tree per line).
struct KeyView {
  const std::string& where;
  const nlohmann::json& config;
};

struct KeyLess {
  using is_transparent = void;
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    if (const int w = a.where.compare(b.where); w != 0) return w < 0;
    return compare(a.config, b.config) < 0;
  }
};

struct Cache {
  std::mutex mutex;
  std::map<Key, ImportedModel, KeyLess> imported;
};

Cache& cache() {
  static Cache c;
  return c;
}

}  // namespace

ImportedModel import_hf_config_cached(const nlohmann::json& config, const std::string& where) {
  Cache& c = cache();
  {
    const std::lock_guard<std::mutex> lock(c.mutex);
    if (auto it = c.imported.find(KeyView{where, config}); it != c.imported.end())
      return it->second;
  }
  // The import itself runs unlocked: it does not depend on the cache, and a second thread that
  // imports the same config meanwhile stores the same value.
  ImportedModel imported = import_hf_config(config, where);
  const std::lock_guard<std::mutex> lock(c.mutex);
  if (c.imported.size() >= kMaxConfigs) c.imported.clear();
  c.imported.emplace(Key{where, config}, imported);
  return imported;
}

}  // namespace gpusizer
