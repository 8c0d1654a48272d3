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
  slot() = json_figure_value(v);
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

using json_copy::copy_short;
using json_copy::kShort;

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

void TextWriter::object_keys_opened() {
  last_keys_.emplace_back();
}

void TextWriter::object_keys_closed() {
  last_keys_.pop_back();
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
    opened(quoted(room(k.size() + 3), k, ':'));
    return;
  }
  separate();
  append_json_string(out_, k);
  out_ += ':';
}

void TextWriter::other_integer_field(std::string_view k, int64_t v) {
  literal_key(k);
  integer(v);
}

void TextWriter::other_number_field(std::string_view k, double v) {
  literal_key(k);
  number(v);
}

void TextWriter::other_literal_key(std::string_view k) {
  if (k.size() > kShort) return key(k);
  if (check_keys_) {
    if (!json_plain(k))
      throw std::logic_error("literal key '" + std::string(k) + "' needs escaping");
    check_key(k);
  }
  opened(quoted(room(k.size() + 3), k, ':'));
}

void TextWriter::other_string_field(std::string_view k, std::string_view v) {
  literal_key(k);
  string(v);
}

// Long or not plain: escaped into the string.
void TextWriter::other_string(std::string_view v) {
  separate();
  append_json_string(out_, v);
  wrote(buffer_ + used_);  // its comma
}

namespace {

// `s` copied to `p` when it is plain, the end returned; else null (the copy then not to be used).
[[gnu::always_inline]] inline char* copy_if_plain(char* p, std::string_view s) {
  if (s.size() >= 16) return copy_json_plain(p, s);
  return json_copy::copy_short_plain(p, s.data(), s.size()) ? p + s.size() : nullptr;
}

}  // namespace

// In the buffer when the joined text is short and has nothing to escape, each part tested as it
// is copied (issue 18: a pass to test the parts, then one to copy them); else as a string.
void TextWriter::joined(std::span<const std::string_view> parts, std::string_view separator) {
  if (parts.empty()) return string({});
  size_t n = separator.size() * (parts.size() - 1);
  for (std::string_view part : parts) n += part.size();
  if (n <= kShort) {
    char* p = room(n + 2);
    *p++ = '"';
    for (size_t i = 0; p && i < parts.size(); ++i) {
      if (i) p = copy_if_plain(p, separator);
      if (p) p = copy_if_plain(p, parts[i]);
    }
    if (p) {
      *p++ = '"';
      return wrote(p);
    }
  }
  JsonWriter::joined(parts, separator);  // nothing kept of the copy: the buffer's end not moved
}

// joined() without the parts' test: the caller knows them plain.
void TextWriter::joined_plain(std::span<const std::string_view> parts, std::string_view separator) {
  if (parts.empty()) return string({});
  size_t n = separator.size() * (parts.size() - 1);
  for (std::string_view part : parts) n += part.size();
  if (n > kShort) return JsonWriter::joined(parts, separator);
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
  wrote(p);
}

// Each entry's key and text written into the buffer in one step, the text tested as it is
// copied (copy_json_plain); a text that is not plain, or too long for the buffer, and the
// checking writer take the general path (issue 18: two virtual calls, two room checks and two
// passes over the text per entry).
void TextWriter::texts(const Basis& basis) {
  if (check_keys_) return JsonWriter::texts(basis);
  begin_object();
  basis.for_each([this](std::string_view name, std::string_view text) {
    const size_t need = name.size() + text.size() + 6;  // "name":"text",
    if (need > kBuffer) {
      literal_key(name);
      string(text);
      return;
    }
    if (kBuffer - used_ < need) flush();
    char* p = json_copy::put_key(buffer_ + used_, name);
    opened(p);
    *p++ = '"';
    if (char* end = copy_json_plain(p, text)) {
      *end++ = '"';
      field_written(end);
    } else {
      string(text);  // after the key: escaped into the string
    }
  });
  end_object();
}

void TextWriter::tree(const nlohmann::json& v) {
  separate();
  append_json(out_, v);
  wrote(buffer_ + used_);  // its comma
}

}  // namespace gpusizer
