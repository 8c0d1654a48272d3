#pragma once
// One description of a contract answer, two backends (issue 18). The report's describe_*
// functions write an answer token by token to a JsonWriter: TreeWriter builds the nlohmann tree
// (for localize(), the table renderers and the server's transforms), TextWriter appends compact
// JSON text to a string without building a tree (the JSONL path). The text is the same bytes as
// json_text() of the tree, provided the describer writes each object's keys in nlohmann's order
// (std::map: byte-wise ascending) and never writes a key twice; TextWriter checks both when asked.
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "report/json_copy.h"
#include "report/json_fields.h"
#include "report/json_figure.h"
#include "report/json_integer.h"
#include "report/json_text_parts.h"

namespace gpusizer {

class Basis;

class JsonWriter : public JsonFields<JsonWriter> {
 public:
  using JsonFields<JsonWriter>::key;  // the literal key beside the virtual one

  virtual ~JsonWriter() = default;
  virtual void begin_object() = 0;
  virtual void end_object() = 0;
  virtual void begin_array() = 0;
  virtual void end_array() = 0;
  virtual void key(std::string_view k) = 0;
  virtual void string(std::string_view v) = 0;
  virtual void integer(int64_t v) = 0;
  virtual void unsigned_integer(uint64_t v) = 0;
  /// A figure: six significant digits or its whole part (report/json_figure.h); NaN/inf null.
  virtual void number(double v) = 0;
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
  /// write_json_figure's text of `v`, kept where the same figure is written answer after answer,
  /// issue 18): the text writer copies the text, the others write `v`.
  virtual void literal_number_text(std::string_view k, double v, std::string_view text) {
    (void)text;
    literal_number(k, v);
  }
};

/// Builds the nlohmann tree of what is written.
class TreeWriter final : public JsonWriter, public JsonFields<TreeWriter> {
 public:
  using JsonFields<TreeWriter>::field;
  using JsonFields<TreeWriter>::key;
  using JsonFields<TreeWriter>::strings;
  using JsonFields<TreeWriter>::value;

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
/// the writer is destroyed: read the string after the value is written. The short paths are
/// defined below, inline: a describer written for a TextWriter (report/describe.h) calls them
/// without a virtual call and the compiler inlines them into it (issue 18); the long, escaped
/// and checked paths are json_writer.cc's.
class TextWriter final : public JsonWriter, public JsonFields<TextWriter> {
 public:
  using JsonFields<TextWriter>::field;
  using JsonFields<TextWriter>::key;
  using JsonFields<TextWriter>::strings;
  using JsonFields<TextWriter>::value;

  /// `check_keys`: throw std::logic_error when an object's keys are not strictly ascending (a
  /// describer bug that would make the text differ from the tree's); for tests.
  explicit TextWriter(std::string& out, bool check_keys = false)
      : out_(out), check_keys_(check_keys), in_place_end_(check_keys ? 0 : kBuffer) {}
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
  /// string(), literal_string() and joined() for texts the caller knows need no escaping
  /// (json_plain): copied without the test (issue 18: a change's lever names and prices were
  /// tested at each of their copies, the name twice a change; the describer tests each lever's
  /// texts once an answer).
  void plain_string(std::string_view v);
  void literal_plain_string(std::string_view k, std::string_view v);
  void joined_plain(std::span<const std::string_view> parts, std::string_view separator);

  /// Room in the buffer for a value of at most `n` bytes and its comma, written by the caller
  /// (a RawWriter, report/raw_writer.h) at the place returned and handed back by commit();
  /// nullptr when `n` is more than the buffer holds or keys are checked (the caller then writes
  /// the value through this writer).
  char* reserve(size_t n) {
    if (n >= kBuffer || check_keys_) return nullptr;
    return room(n);
  }
  /// The value reserve() gave room for, written up to `end` with its comma.
  void commit(char* end) {
    used_ = static_cast<size_t>(end - buffer_);
    if (depth_ == 0) [[unlikely]]
      top_level_written();
  }

 private:
  // 4 KB: most of an answer's 2-8 KB in one or two flushes, and room for a change reserved whole
  // (reserve, ~1.4 KB bound) without a flush every second change (issue 18: 2 KB flushed ~4
  // times a line, ~280 instructions more a line).
  static constexpr size_t kBuffer = 4096;

  void check_key(std::string_view k);
  void other_literal_key(std::string_view k);  // long, checked, or the buffer full
  // The general paths of the fields written in one call (json_writer.cc): the key, then the
  // value, each by its own path.
  void other_integer_field(std::string_view k, int64_t v);
  void other_number_field(std::string_view k, double v);
  void other_string_field(std::string_view k, std::string_view v);
  void other_string(std::string_view v);
  // With check_keys: an object's keys opened and closed (json_writer.cc).
  void object_keys_opened();
  void object_keys_closed();
  // The literal key `k` written where the buffer's text ends when it has room for the key,
  // `value_room` more bytes and the comma after them (and keys are not checked); returns
  // where the field's value goes, or null for the general path. Forced inline: a call per field
  // otherwise (GCC kept it out of line once the fields inlined into the describers).
  [[gnu::always_inline]] char* key_in_place(std::string_view k, size_t value_room) {
    if (k.size() <= 32 && used_ + k.size() + 4 + value_room <= in_place_end_) [[likely]]
      return json_copy::put_key(buffer_ + used_, k);
    return nullptr;
  }
  // The buffer's text ends at `end` with an opening brace or bracket or a key: no comma after.
  void opened(char* end) { used_ = static_cast<size_t>(end - buffer_); }
  // A field written in place up to `end` (a key and its value), then its comma.
  void field_written(char* end) {
    *end = ',';
    used_ = static_cast<size_t>(end + 1 - buffer_);
  }
  void flush() {
    out_.append(buffer_, used_);
    used_ = 0;
  }
  // Room for `n` more bytes in the buffer and the comma after them.
  [[gnu::always_inline]] char* room(size_t n) {
    if (kBuffer - used_ < n + 1) [[unlikely]]
      flush();
    return buffer_ + used_;
  }
  // A value written up to `end`, then its comma; a complete top-level value goes out, without
  // the comma.
  void wrote(char* end) {
    field_written(end);
    if (depth_ == 0) [[unlikely]]
      top_level_written();
  }
  void top_level_written() {
    --used_;
    flush();
  }
  // Before a closing brace or bracket: the last member's comma taken back. The text's last byte
  // is this writer's (the opening, a key or a comma) and in the buffer: a long or escaped token
  // written to the string itself puts its comma in the buffer after it. The string's last byte
  // is asked only if the buffer is empty (not expected).
  void drop_comma() {
    if (used_ > 0) {
      used_ -= buffer_[used_ - 1] == ',' ? 1 : 0;
    } else if (!out_.empty() && out_.back() == ',') {
      out_.pop_back();
    }
  }
  // For the long and escaped tokens, written to the string itself after the buffer's text.
  void separate() { flush(); }

  std::string& out_;
  bool check_keys_;
  // Where a key written in place (key_in_place) may end: the buffer's end, or 0 when keys are
  // checked, so that one compare asks both (issue 18).
  size_t in_place_end_;
  int depth_ = 0;  // open objects and arrays
  size_t used_ = 0;
  char buffer_[kBuffer];
  std::vector<std::optional<std::string>>
      last_keys_;  // with check_keys: per open object, its last key
};

// TextWriter's short paths.

[[gnu::always_inline]] inline void TextWriter::begin_object() {
  char* p = room(1);
  *p++ = '{';
  ++depth_;
  opened(p);
  if (check_keys_) [[unlikely]]
    object_keys_opened();
}

[[gnu::always_inline]] inline void TextWriter::end_object() {
  drop_comma();
  char* p = room(1);
  *p++ = '}';
  --depth_;
  wrote(p);
  if (check_keys_) [[unlikely]]
    object_keys_closed();
}

[[gnu::always_inline]] inline void TextWriter::begin_array() {
  char* p = room(1);
  *p++ = '[';
  ++depth_;
  opened(p);
}

[[gnu::always_inline]] inline void TextWriter::end_array() {
  drop_comma();
  char* p = room(1);
  *p++ = ']';
  --depth_;
  wrote(p);
}

// A key always sits inside an object, so the buffer never needs the top-level flush: one room
// check and straight-line code for the ~110 keys of an answer and the ~90 fields written with
// their key in one call (issue 18: a call, a room check and the comma's bookkeeping fewer per
// field), the rest out of line.
[[gnu::always_inline]] inline void TextWriter::literal_key(std::string_view k) {
  if (char* p = key_in_place(k, 0)) [[likely]]
    return opened(p);
  other_literal_key(k);
}

[[gnu::always_inline]] inline void TextWriter::literal_integer(std::string_view k, int64_t v) {
  if (char* p = key_in_place(k, kJsonIntegerRoom)) [[likely]]
    return field_written(json_integer_text(p, v));
  other_integer_field(k, v);
}

[[gnu::always_inline]] inline void TextWriter::literal_number(std::string_view k, double v) {
  if (char* p = key_in_place(k, kJsonFloatChars)) [[likely]]
    return field_written(write_json_figure(p, v));
  other_number_field(k, v);
}

[[gnu::always_inline]] inline void TextWriter::literal_number_text(std::string_view k, double v,
                                                                   std::string_view text) {
  if (char* p = key_in_place(k, text.size())) [[likely]] {
    std::memcpy(p, text.data(), text.size());
    return field_written(p + text.size());
  }
  other_number_field(k, v);
}

// A string field: its key and its text (when plain) after one room check.
// The key and the text are written in place, the text tested as it is copied; nothing is kept
// (the buffer's end is not moved) when the text is not plain or there is no room, and the
// general path writes the field again.
[[gnu::always_inline]] inline void TextWriter::literal_string(std::string_view k,
                                                              std::string_view v) {
  if (v.size() <= json_copy::kShort) [[likely]] {
    if (char* p = key_in_place(k, v.size() + 2)) [[likely]] {
      if (char* end = json_copy::quoted_if_plain(p, v)) [[likely]]
        return field_written(end);
    }
  }
  other_string_field(k, v);
}

[[gnu::always_inline]] inline void TextWriter::string(std::string_view v) {
  if (v.size() <= json_copy::kShort) [[likely]] {
    char* p = room(v.size() + 2);
    if (char* end = json_copy::quoted_if_plain(p, v)) [[likely]]
      return wrote(end);
  }
  other_string(v);
}

[[gnu::always_inline]] inline void TextWriter::plain_string(std::string_view v) {
  if (v.size() <= json_copy::kShort) [[likely]]
    return wrote(json_copy::quoted(room(v.size() + 2), v));
  other_string(v);
}

[[gnu::always_inline]] inline void TextWriter::literal_plain_string(std::string_view k,
                                                                    std::string_view v) {
  if (v.size() <= json_copy::kShort) [[likely]] {
    if (char* p = key_in_place(k, v.size() + 2)) [[likely]]
      return field_written(json_copy::quoted(p, v));
  }
  other_string_field(k, v);
}

[[gnu::always_inline]] inline void TextWriter::integer(int64_t v) {
  wrote(json_integer_text(room(kJsonIntegerRoom), v));
}

[[gnu::always_inline]] inline void TextWriter::unsigned_integer(uint64_t v) {
  wrote(json_integer_text(room(kJsonIntegerRoom), v));
}

[[gnu::always_inline]] inline void TextWriter::number(double v) {
  wrote(write_json_figure(room(kJsonFloatChars), v));
}

[[gnu::always_inline]] inline void TextWriter::boolean(bool v) {
  char* p = room(5);
  std::memcpy(p, v ? "true" : "false", v ? 4 : 5);
  wrote(p + (v ? 4 : 5));
}

[[gnu::always_inline]] inline void TextWriter::null() {
  char* p = room(4);
  std::memcpy(p, "null", 4);
  wrote(p + 4);
}

}  // namespace gpusizer
