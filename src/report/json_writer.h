#pragma once
// One description of a contract answer, two backends (issue 18). The report's describe_*
// functions write an answer token by token to a JsonWriter: TreeWriter builds the nlohmann tree
// (for localize(), the table renderers and the server's transforms), TextWriter appends compact
// JSON text to a string without building a tree (the JSONL path). The text is the same bytes as
// json_text() of the tree, provided the describer writes each object's keys in nlohmann's order
// (std::map: byte-wise ascending) and never writes a key twice; TextWriter checks both when asked.
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace gpusizer {

class Basis;

class JsonWriter {
 public:
  virtual ~JsonWriter() = default;
  virtual void begin_object() = 0;
  virtual void end_object() = 0;
  virtual void begin_array() = 0;
  virtual void end_array() = 0;
  virtual void key(std::string_view k) = 0;
  virtual void string(std::string_view v) = 0;
  virtual void integer(int64_t v) = 0;
  virtual void unsigned_integer(uint64_t v) = 0;
  virtual void number(double v) = 0;  ///< nlohmann's float: shortest round trip, NaN/inf null
  virtual void boolean(bool v) = 0;
  virtual void null() = 0;
  /// A value that already is a tree (a merge patch, another module's to_json).
  virtual void tree(const nlohmann::json& v) = 0;
  /// A key the describer writes as a string literal: ASCII with nothing to escape, so the text
  /// writer copies it without testing its bytes (the checking TextWriter tests them).
  virtual void literal_key(std::string_view k) { key(k); }
  /// One string value: `parts` joined by `separator` (a change's name of its levers' names,
  /// issue 18). The text writer writes it in place; the others are given the joined string.
  virtual void joined(std::span<const std::string_view> parts, std::string_view separator);
  /// The basis as an object of figure -> text (its keys are literals, in ascending order). The
  /// text writer writes each entry in place in one step.
  virtual void texts(const Basis& basis);

  /// A literal key and its value in one call (the describers' numeric fields, issue 18): the
  /// text writer writes both after one room check.
  virtual void literal_integer(std::string_view k, int64_t v) {
    literal_key(k);
    integer(v);
  }
  virtual void literal_number(std::string_view k, double v) {
    literal_key(k);
    number(v);
  }
  virtual void literal_string(std::string_view k, std::string_view v) {
    literal_key(k);
    string(v);
  }
  /// A literal key and the number `v` whose JSON text the caller holds already (`text`:
  /// write_json_float's text of `v`, kept where the same figure is written answer after answer,
  /// issue 18): the text writer copies the text, the others write `v`.
  virtual void literal_number_text(std::string_view k, double v, std::string_view text) {
    (void)text;
    literal_number(k, v);
  }

  /// A literal key (the describers' keys): literal_key.
  template <size_t N>
  void key(const char (&k)[N]) {
    literal_key(std::string_view(k, N - 1));
  }

  /// The value as nlohmann would store the same C++ type: bool, signed or unsigned integer,
  /// float, string.
  template <typename T>
  void value(const T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      boolean(v);
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      integer(static_cast<int64_t>(v));
    } else if constexpr (std::is_integral_v<T>) {
      unsigned_integer(static_cast<uint64_t>(v));
    } else if constexpr (std::is_floating_point_v<T>) {
      number(static_cast<double>(v));
    } else if constexpr (std::is_same_v<T, nlohmann::json>) {
      tree(v);
    } else {
      string(std::string_view(v));
    }
  }
  /// `k` is a string literal (written with literal_key) or any string (key).
  template <typename K, typename T>
  void field(const K& k, const T& v) {
    key(k);
    value(v);
  }
  /// A literal key: a signed integer, a float or a string with its key in one call, as value()
  /// would store it; any other value after literal_key.
  template <size_t N, typename T>
  void field(const char (&k)[N], const T& v) {
    const std::string_view name(k, N - 1);
    if constexpr (std::is_floating_point_v<T>) {
      literal_number(name, static_cast<double>(v));
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      literal_integer(name, static_cast<int64_t>(v));
    } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view> ||
                         std::is_same_v<T, const char*> || std::is_array_v<T>) {
      literal_string(name, std::string_view(v));
    } else {
      literal_key(name);
      value(v);
    }
  }
  /// The key only when the value is present (nlohmann: `if (v) j[k] = *v`).
  template <typename K, typename T>
  void field(const K& k, const std::optional<T>& v) {
    if (!v) return;
    key(k);
    value(*v);
  }
  template <size_t N, typename T>
  void field(const char (&k)[N], const std::optional<T>& v) {
    if (v) field(k, *v);
  }
  template <size_t N>
  void strings(const char (&k)[N], const std::vector<std::string>& v) {
    key(k);
    begin_array();
    for (const std::string& s : v) string(s);
    end_array();
  }
};

/// Builds the nlohmann tree of what is written.
class TreeWriter final : public JsonWriter {
 public:
  void begin_object() override;
  void end_object() override;
  void begin_array() override;
  void end_array() override;
  void key(std::string_view k) override;
  void string(std::string_view v) override;
  void integer(int64_t v) override;
  void unsigned_integer(uint64_t v) override;
  void number(double v) override;
  void boolean(bool v) override;
  void null() override;
  void tree(const nlohmann::json& v) override;

  nlohmann::json take() { return std::move(root_); }

 private:
  nlohmann::json& slot();

  nlohmann::json root_;
  std::vector<nlohmann::json*> open_;  // the open objects and arrays, innermost last
  std::string key_;
};

/// Appends compact JSON text, the bytes json_text() writes for the tree of the same tokens.
/// Short tokens go through a buffer of its own (one bounds check and no library call each,
/// issue 18), appended to the string when it fills, when a top-level value is complete and when
/// the writer is destroyed: read the string after the value is written.
class TextWriter final : public JsonWriter {
 public:
  /// `check_keys`: throw std::logic_error when an object's keys are not strictly ascending (a
  /// describer bug that would make the text differ from the tree's); for tests.
  explicit TextWriter(std::string& out, bool check_keys = false)
      : out_(out), check_keys_(check_keys) {}
  ~TextWriter() override { flush(); }
  TextWriter(const TextWriter&) = delete;
  TextWriter& operator=(const TextWriter&) = delete;

  void begin_object() override;
  void end_object() override;
  void begin_array() override;
  void end_array() override;
  void key(std::string_view k) override;
  void string(std::string_view v) override;
  void integer(int64_t v) override;
  void unsigned_integer(uint64_t v) override;
  void number(double v) override;
  void boolean(bool v) override;
  void null() override;
  void tree(const nlohmann::json& v) override;
  void literal_key(std::string_view k) override;
  void joined(std::span<const std::string_view> parts, std::string_view separator) override;
  void texts(const Basis& basis) override;
  void literal_integer(std::string_view k, int64_t v) override;
  void literal_number(std::string_view k, double v) override;
  void literal_string(std::string_view k, std::string_view v) override;
  void literal_number_text(std::string_view k, double v, std::string_view text) override;

 private:
  static constexpr size_t kBuffer = 2048;

  void check_key(std::string_view k);
  void other_literal_key(std::string_view k);  // long, checked, or the buffer full
  // The literal key `k`, after the comma when one is due, written where the buffer's text ends
  // when it has room for the key and `value_room` more bytes (and keys are not checked); returns
  // where the field's value goes, or null for the general path (json_writer.cc, inline there).
  char* key_in_place(std::string_view k, size_t value_room);
  // A field written in place up to `end` (a key and its value; a comma is due after it).
  void field_written(char* end) {
    used_ = static_cast<size_t>(end - buffer_);
    comma_ = true;
  }
  void flush() {
    out_.append(buffer_, used_);
    used_ = 0;
  }
  // Room for `n` more bytes in the buffer, after the comma when one is due.
  char* room(size_t n) {
    if (kBuffer - used_ < n + 1) flush();
    char* p = buffer_ + used_;
    if (comma_) *p++ = ',';
    return p;
  }
  // The buffer written up to `end`; a complete top-level value goes out.
  void wrote(char* end, bool comma) {
    used_ = static_cast<size_t>(end - buffer_);
    comma_ = comma;
    if (depth_ == 0) flush();
  }
  // For the long and escaped tokens, written to the string itself.
  void separate() {
    flush();
    if (comma_) out_ += ',';
    comma_ = true;
  }

  std::string& out_;
  bool comma_ = false;  // the next value or key follows another in its object or array
  bool check_keys_;
  int depth_ = 0;  // open objects and arrays
  size_t used_ = 0;
  char buffer_[kBuffer];
  std::vector<std::optional<std::string>>
      last_keys_;  // with check_keys: per open object, its last key
};

}  // namespace gpusizer
