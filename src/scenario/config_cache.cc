#include "scenario/config_cache.h"
#include "gpusizer/json/importers.h"

#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

namespace gpusizer {

namespace {

template <typename T>
int three_way(const T& x, const T& y) {
  return x < y ? -1 : y < x ? 1 : 0;
}

// Two doubles, a NaN after every number and equal to another NaN (JSON text holds none; a
// config built in code might), so that the order stays strict and weak.
int three_way_double(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return three_way(std::isnan(x), std::isnan(y));
  return three_way(x, y);
}

// The members (or items) of two containers of the same type, in order: the shorter first, then
// the first key or value that differs.
template <typename Container, typename Compare>
int compare_items(const Container& x, const Container& y, Compare item) {
  if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
  for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j)
    if (const int v = item(*i, *j); v != 0) return v;
  return 0;
}

}  // namespace

int compare_json(const nlohmann::json& a, const nlohmann::json& b) {
  using nlohmann::json;
  // (value_t's own operator< ranks the three number types alike: compare the enum's values.)
  const auto ta = static_cast<int>(a.type()), tb = static_cast<int>(b.type());
  if (ta != tb) return ta < tb ? -1 : 1;
  // Each type's own values compared in place (issue 18: nlohmann's iterators, and its == and <
  // on each leaf, made a lookup of Llama-2-7B's config ~2.4k instructions a comparison).
  switch (a.type()) {
    case json::value_t::object:
      return compare_items(a.get_ref<const json::object_t&>(), b.get_ref<const json::object_t&>(),
                           [](const auto& x, const auto& y) {
                             if (const int k = x.first.compare(y.first); k != 0) return k;
                             return compare_json(x.second, y.second);
                           });
    case json::value_t::array:
      return compare_items(a.get_ref<const json::array_t&>(), b.get_ref<const json::array_t&>(),
                           [](const json& x, const json& y) { return compare_json(x, y); });
    case json::value_t::string:
      return a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>());
    case json::value_t::boolean:
      return three_way(a.get_ref<const json::boolean_t&>(), b.get_ref<const json::boolean_t&>());
    case json::value_t::number_integer:
      return three_way(a.get_ref<const json::number_integer_t&>(),
                       b.get_ref<const json::number_integer_t&>());
    case json::value_t::number_unsigned:
      return three_way(a.get_ref<const json::number_unsigned_t&>(),
                       b.get_ref<const json::number_unsigned_t&>());
    case json::value_t::number_float:
      return three_way_double(a.get_ref<const json::number_float_t&>(),
                              b.get_ref<const json::number_float_t&>());
    default:  // null, binary, discarded: nlohmann's own order
      if (a == b) return 0;
      return a < b ? -1 : 1;
  }
}

namespace {

// Enough distinct configs for any batch that sweeps a few models; past it the cache starts over
// rather than grow with a server's traffic.
constexpr size_t kMaxConfigs = 64;

struct Entry {
  std::string where;
  nlohmann::json config;
  std::shared_ptr<const ImportedModel> imported;  // shared: a hit copies no model
};

// The entries sorted by (where, config), searched by halves with a three-way comparison: a hit
// compares the caller's config with the entry's once (issue 18: std::map's find compared it
// twice, lower_bound's test and the equality test after it, ~2.4k instructions each for
// Llama-2-7B's config). The caller's config is compared in place, not copied.
struct Cache {
  std::mutex mutex;
  std::vector<Entry> entries;

  // The entry of (where, config), or nullptr and `place`, where it would go.
  const Entry* find(const std::string& where, const nlohmann::json& config, size_t& place) const {
    size_t low = 0, high = entries.size();
    while (low < high) {
      const size_t mid = low + (high - low) / 2;
      const Entry& e = entries[mid];
      int order = where.compare(e.where);
      if (order == 0) order = compare_json(config, e.config);
      if (order == 0) return &e;
      if (order < 0)
        high = mid;
      else
        low = mid + 1;
    }
    place = low;
    return nullptr;
  }
};

Cache& cache() {
  static Cache c;
  return c;
}

}  // namespace

std::shared_ptr<const ImportedModel> import_hf_config_cached(const nlohmann::json& config,
                                                             const std::string& where) {
  Cache& c = cache();
  size_t place = 0;
  {
    const std::lock_guard<std::mutex> lock(c.mutex);
    if (const Entry* e = c.find(where, config, place)) return e->imported;
  }
  // The import itself runs unlocked: it does not depend on the cache, and a second thread that
  // imports the same config meanwhile stores the same value (found below, not stored twice).
  auto imported = std::make_shared<const ImportedModel>(import_hf_config(config, where));
  const std::lock_guard<std::mutex> lock(c.mutex);
  if (c.find(where, config, place)) return imported;
  if (c.entries.size() >= kMaxConfigs) {
    c.entries.clear();
    place = 0;
  }
  c.entries.insert(c.entries.begin() + static_cast<std::ptrdiff_t>(place),
                   Entry{where, config, imported});
  return imported;
}

}  // namespace gpusizer
