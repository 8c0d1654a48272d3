#pragma once
// The describers' field helpers (key, value, field, strings), written once for every writer type
// of report/json_writer.h. A writer derives from JsonFields<itself>, so a helper called on a
// TextWriter calls TextWriter's own methods: the describers, templates over their writer
// (report/describe.h), write each field without a virtual call and TextWriter's short paths
// inline into them (issue 18: ~250 fields a JSONL answer, ~40 instructions of dispatch each).
// Called on a JsonWriter, the same helpers make the virtual calls (tests writing to either
// backend through one pointer).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpusizer {

template <typename Writer>
class JsonFields {
 public:
  /// A literal key (the describers' keys): literal_key.
  template <size_t N>
  void key(const char (&k)[N]) {
    self().literal_key(std::string_view(k, N - 1));
  }

  /// The value as nlohmann would store the same C++ type: bool, signed or unsigned integer,
  /// float, string.
  template <typename T>
  void value(const T& v) {
    Writer& w = self();
    if constexpr (std::is_same_v<T, bool>) {
      w.boolean(v);
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      w.integer(static_cast<int64_t>(v));
    } else if constexpr (std::is_integral_v<T>) {
      w.unsigned_integer(static_cast<uint64_t>(v));
    } else if constexpr (std::is_floating_point_v<T>) {
      w.number(static_cast<double>(v));
    } else if constexpr (std::is_same_v<T, nlohmann::json>) {
      w.tree(v);
    } else {
      w.string(std::string_view(v));
    }
  }
  /// `k` is a string literal (written with literal_key) or any string (key).
  template <typename K, typename T>
  void field(const K& k, const T& v) {
    self().key(k);
    value(v);
  }
  /// A literal key: a signed integer, a float or a string with its key in one call, as value()
  /// would store it; any other value after literal_key.
  template <size_t N, typename T>
  void field(const char (&k)[N], const T& v) {
    Writer& w = self();
    const std::string_view name(k, N - 1);
    if constexpr (std::is_floating_point_v<T>) {
      w.literal_number(name, static_cast<double>(v));
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      w.literal_integer(name, static_cast<int64_t>(v));
    } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view> ||
                         std::is_same_v<T, const char*> || std::is_array_v<T>) {
      w.literal_string(name, std::string_view(v));
    } else {
      w.literal_key(name);
      value(v);
    }
  }
  /// The key only when the value is present (nlohmann: `if (v) j[k] = *v`).
  template <typename K, typename T>
  void field(const K& k, const std::optional<T>& v) {
    if (!v) return;
    self().key(k);
    value(*v);
  }
  template <size_t N, typename T>
  void field(const char (&k)[N], const std::optional<T>& v) {
    if (v) field(k, *v);
  }
  template <size_t N>
  void strings(const char (&k)[N], const std::vector<std::string>& v) {
    Writer& w = self();
    key(k);
    w.begin_array();
    for (const std::string& s : v) w.string(s);
    w.end_array();
  }

 private:
  Writer& self() { return static_cast<Writer&>(*this); }
};

}  // namespace gpusizer
