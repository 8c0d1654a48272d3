#include "report/json_writer.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "gpusizer/basis.h"
#include "gpusizer/json/json_text.h"
#include "report/json_integer.h"
#include "report/json_text_parts.h"

namespace gpusizer {

void JsonWriter::joined(std::span<const std::string_view> parts, std::string_view separator) {
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) text += separator;
    text += parts[i];
  }
  string(text);
}

void JsonWriter::texts(const Basis& basis) {
  begin_object();
  // The keys are literals (BasisKey), in ascending order: nothing to escape or to sort.
  for (const auto& [name, text] : basis) {
    literal_key(name);
    string(text);
  }
  end_object();
}

// Where the next value goes: the root, the end of the open array or the open object's key.
nlohmann::json& TreeWriter::slot() {
  if (open_.empty()) return root_;
  nlohmann::json& top = *open_.back();
  if (top.is_array()) {
    top.push_back(nullptr);
    return top.back();
  }
  return top[key_];
}

void TreeWriter::begin_object() {
  nlohmann::json& s = slot();
  s = nlohmann::json::object();
  open_.push_back(&s);
}

void TreeWriter::end_object() {
  open_.pop_back();
}

void TreeWriter::begin_array() {
  nlohmann::json& s = slot();
  s = nlohmann::json::array();
  open_.push_back(&s);
}

void TreeWriter::end_array() {
  open_.pop_back();
}

void TreeWriter::key(std::string_view k) {
  key_.assign(k);
}

void TreeWriter::string(std::string_view v) {
  slot() = std::string(v);
}

void TreeWriter::integer(int64_t v) {
  slot() = v;
}

void TreeWriter::unsigned_integer(uint64_t v) {
  slot() = v;
}

void TreeWriter::number(double v) {
  slot() = v;
}

void TreeWriter::boolean(bool v) {
  slot() = v;
}

void TreeWriter::null() {
  slot() = nullptr;
}

void TreeWriter::tree(const nlohmann::json& v) {
  slot() = v;
}

namespace {

constexpr size_t kShort = 512;  // keys and values up to this go through the buffer (2,048 bytes)

// `n` bytes (at most kShort) from `src` to `dst`: up to 32 as two overlapping pairs of words,
// inlined, instead of a call to memcpy (most keys and values are short). Forced inline: a call
// made the writers save and restore four registers per key.
[[gnu::always_inline]] inline void copy_short(char* dst, const char* src, size_t n) {
  if (n > 32) {
    std::memcpy(dst, src, n);
  } else if (n >= 16) {
    std::memcpy(dst, src, 16);
    std::memcpy(dst + n - 16, src + n - 16, 16);
  } else if (n >= 8) {
    uint64_t a, b;
    std::memcpy(&a, src, 8);
    std::memcpy(&b, src + n - 8, 8);
    std::memcpy(dst, &a, 8);
    std::memcpy(dst + n - 8, &b, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, src, 4);
    std::memcpy(&b, src + n - 4, 4);
    std::memcpy(dst, &a, 4);
    std::memcpy(dst + n - 4, &b, 4);
  } else if (n > 0) {
    dst[0] = src[0];
    dst[n / 2] = src[n / 2];
    dst[n - 1] = src[n - 1];
  }
}

// `v` (at most kShort bytes) quoted at `p` when it is plain, the end returned; else null, with
// what was written past `p` not to be used. From 16 bytes on the copy is the test
// (copy_json_plain: each block loaded once, stored and tested), not a test and then a copy
// (issue 18: two passes over the lever names and prices of a JSONL line's changes).
[[gnu::always_inline]] inline char* quoted_if_plain(char* p, std::string_view v) {
  *p++ = '"';
  if (v.size() >= 16) {
    p = copy_json_plain(p, v);
    if (!p) return nullptr;
  } else {
    if (!json_plain(v)) return nullptr;
    copy_short(p, v.data(), v.size());
    p += v.size();
  }
  *p++ = '"';
  return p;
}

// `s` quoted at `p`, then `after` unless it is '\0'; returns the end.
char* quoted(char* p, std::string_view s, char after) {
  *p++ = '"';
  copy_short(p, s.data(), s.size());
  p += s.size();
  *p++ = '"';
  if (after) *p++ = after;
  return p;
}

}  // namespace

void TextWriter::begin_object() {
  char* p = room(1);
  *p++ = '{';
  ++depth_;
  wrote(p, false);
  if (check_keys_) last_keys_.emplace_back();
}

void TextWriter::end_object() {
  comma_ = false;  // none before a closing brace
  char* p = room(1);
  *p++ = '}';
  --depth_;
  wrote(p, true);
  if (check_keys_) last_keys_.pop_back();
}

void TextWriter::begin_array() {
  char* p = room(1);
  *p++ = '[';
  ++depth_;
  wrote(p, false);
}

void TextWriter::end_array() {
  comma_ = false;  // none before a closing bracket
  char* p = room(1);
  *p++ = ']';
  --depth_;
  wrote(p, true);
}

// With check_keys: the key comes after its object's last key.
void TextWriter::check_key(std::string_view k) {
  if (last_keys_.empty()) throw std::logic_error("key '" + std::string(k) + "' outside an object");
  std::optional<std::string>& last = last_keys_.back();
  if (last && k <= *last)
    throw std::logic_error("key '" + std::string(k) + "' after '" + *last + "'");
  last = std::string(k);
}

void TextWriter::key(std::string_view k) {
  if (check_keys_) check_key(k);
  if (k.size() <= kShort && json_plain(k)) {
    wrote(quoted(room(k.size() + 3), k, ':'), false);
    return;
  }
  separate();
  append_json_string(out_, k);
  out_ += ':';
  comma_ = false;
}

namespace {

// `k` (at most 32 bytes) at `p` as a key: the comma, stored unconditionally and kept only when
// `comma`, the quoted key and the colon; returns the end.
[[gnu::always_inline]] inline char* put_key(char* p, bool comma, std::string_view k) {
  *p = ',';
  p += comma ? 1 : 0;
  *p++ = '"';
  copy_short(p, k.data(), k.size());
  p += k.size();
  p[0] = '"';
  p[1] = ':';
  return p + 2;
}

}  // namespace

// A key always sits inside an object, so the buffer never needs the top-level flush: one room
// check and straight-line code for the ~110 keys of an answer and the ~90 fields written with
// their key in one call (issue 18: a call, a room check and the comma's bookkeeping fewer per
// field), the rest out of line.
[[gnu::always_inline]] inline char* TextWriter::key_in_place(std::string_view k,
                                                             size_t value_room) {
  if (k.size() <= 32 && !check_keys_ && kBuffer - used_ >= k.size() + 4 + value_room) [[likely]]
    return put_key(buffer_ + used_, comma_, k);
  return nullptr;
}

void TextWriter::literal_key(std::string_view k) {
  if (char* p = key_in_place(k, 0)) [[likely]] {
    used_ = static_cast<size_t>(p - buffer_);
    comma_ = false;
    return;
  }
  other_literal_key(k);
}

void TextWriter::literal_integer(std::string_view k, int64_t v) {
  if (char* p = key_in_place(k, kJsonIntegerRoom)) [[likely]]
    return field_written(json_integer_text(p, v));
  literal_key(k);
  integer(v);
}

void TextWriter::literal_number(std::string_view k, double v) {
  if (char* p = key_in_place(k, kJsonFloatChars)) [[likely]]
    return field_written(write_json_float(p, v));
  literal_key(k);
  number(v);
}

void TextWriter::literal_number_text(std::string_view k, double v, std::string_view text) {
  if (char* p = key_in_place(k, text.size())) [[likely]] {
    std::memcpy(p, text.data(), text.size());
    return field_written(p + text.size());
  }
  literal_number(k, v);
}

void TextWriter::other_literal_key(std::string_view k) {
  if (k.size() > kShort) return key(k);
  if (check_keys_) {
    if (!json_plain(k))
      throw std::logic_error("literal key '" + std::string(k) + "' needs escaping");
    check_key(k);
  }
  wrote(quoted(room(k.size() + 3), k, ':'), false);
}

// A string field: its key and its text (when plain) after one room check.
// The key and the text are written in place, the text tested as it is copied; nothing is kept
// (the buffer's end is not moved) when the text is not plain or there is no room, and the
// general path writes the field again.
void TextWriter::literal_string(std::string_view k, std::string_view v) {
  if (v.size() <= kShort) [[likely]] {
    if (char* p = key_in_place(k, v.size() + 2)) [[likely]] {
      if (char* end = quoted_if_plain(p, v)) [[likely]]
        return field_written(end);
    }
  }
  literal_key(k);
  string(v);
}

void TextWriter::string(std::string_view v) {
  if (v.size() <= kShort) [[likely]] {
    char* p = room(v.size() + 2);
    if (char* end = quoted_if_plain(p, v)) [[likely]]
      return wrote(end, true);
  }
  separate();
  append_json_string(out_, v);
}

// In the buffer when the joined text is short and has nothing to escape; else as a string.
void TextWriter::joined(std::span<const std::string_view> parts, std::string_view separator) {
  if (parts.empty()) return string({});
  size_t n = separator.size() * (parts.size() - 1);
  bool plain = json_plain(separator);
  for (std::string_view part : parts) {
    n += part.size();
    plain = plain && json_plain(part);
  }
  if (n > kShort || !plain) return JsonWriter::joined(parts, separator);
  char* p = room(n + 2);
  *p++ = '"';
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) {
      copy_short(p, separator.data(), separator.size());
      p += separator.size();
    }
    copy_short(p, parts[i].data(), parts[i].size());
    p += parts[i].size();
  }
  *p++ = '"';
  wrote(p, true);
}

// Each entry's key and text written into the buffer in one step, the text tested as it is
// copied (copy_json_plain); a text that is not plain, or too long for the buffer, and the
// checking writer take the general path (issue 18: two virtual calls, two room checks and two
// passes over the text per entry).
void TextWriter::texts(const Basis& basis) {
  if (check_keys_) return JsonWriter::texts(basis);
  begin_object();
  for (const auto& [name, text] : basis) {
    const size_t need = name.size() + text.size() + 7;  // ,"name":"text"
    if (need > kBuffer) {
      literal_key(name);
      string(text);
      continue;
    }
    if (kBuffer - used_ < need) flush();
    char* p = buffer_ + used_;
    *p = ',';
    p += comma_ ? 1 : 0;
    p = quoted(p, name, ':');
    used_ = static_cast<size_t>(p - buffer_);
    comma_ = false;
    *p++ = '"';
    if (char* end = copy_json_plain(p, text)) {
      *end++ = '"';
      used_ = static_cast<size_t>(end - buffer_);
      comma_ = true;
    } else {
      string(text);  // after the key: escaped into the string
    }
  }
  end_object();
}

void TextWriter::integer(int64_t v) {
  wrote(json_integer_text(room(kJsonIntegerRoom), v), true);
}

void TextWriter::unsigned_integer(uint64_t v) {
  wrote(json_integer_text(room(kJsonIntegerRoom), v), true);
}

void TextWriter::number(double v) {
  wrote(write_json_float(room(kJsonFloatChars), v), true);
}

void TextWriter::boolean(bool v) {
  char* p = room(5);
  std::memcpy(p, v ? "true" : "false", v ? 4 : 5);
  wrote(p + (v ? 4 : 5), true);
}

void TextWriter::null() {
  char* p = room(4);
  std::memcpy(p, "null", 4);
  wrote(p + 4, true);
}

void TextWriter::tree(const nlohmann::json& v) {
  separate();
  append_json(out_, v);
}

}  // namespace gpusizer
