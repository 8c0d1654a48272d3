#include "report/json_writer.h"

#include <cstring>
#include <stdexcept>

#include "gpusizer/json/json_text.h"
#include "report/json_text_parts.h"

namespace gpusizer {

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

void TextWriter::begin_object() {
  separate();
  out_ += '{';
  comma_ = false;
  if (check_keys_) last_keys_.emplace_back();
}

void TextWriter::end_object() {
  out_ += '}';
  comma_ = true;
  if (check_keys_) last_keys_.pop_back();
}

void TextWriter::begin_array() {
  separate();
  out_ += '[';
  comma_ = false;
}

void TextWriter::end_array() {
  out_ += ']';
  comma_ = true;
}

namespace {

constexpr size_t kShort = 120;  // keys and short values go through a stack buffer, one append

// `s` quoted, the comma before it when `comma`, then `after`, into `buf` (room for kShort + 4).
size_t quoted(char* buf, bool comma, std::string_view s, char after) {
  size_t n = 0;
  if (comma) buf[n++] = ',';
  buf[n++] = '"';
  if (!s.empty()) std::memcpy(buf + n, s.data(), s.size());
  n += s.size();
  buf[n++] = '"';
  if (after) buf[n++] = after;
  return n;
}

}  // namespace

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
    char buf[kShort + 4];
    out_.append(buf, quoted(buf, comma_, k, ':'));
  } else {
    separate();
    append_json_string(out_, k);
    out_ += ':';
  }
  comma_ = false;
}

void TextWriter::literal_key(std::string_view k) {
  if (k.size() > kShort) return key(k);
  if (check_keys_) {
    if (!json_plain(k))
      throw std::logic_error("literal key '" + std::string(k) + "' needs escaping");
    check_key(k);
  }
  char buf[kShort + 4];
  out_.append(buf, quoted(buf, comma_, k, ':'));
  comma_ = false;
}

void TextWriter::string(std::string_view v) {
  if (v.size() <= kShort && json_plain(v)) {
    char buf[kShort + 4];
    out_.append(buf, quoted(buf, comma_, v, '\0'));
    comma_ = true;
    return;
  }
  separate();
  append_json_string(out_, v);
}

void TextWriter::integer(int64_t v) {
  char buf[24];
  char* p = buf;
  if (comma_) *p++ = ',';
  out_.append(buf, write_json_integer(p, v));
  comma_ = true;
}

void TextWriter::unsigned_integer(uint64_t v) {
  char buf[24];
  char* p = buf;
  if (comma_) *p++ = ',';
  out_.append(buf, write_json_integer(p, v));
  comma_ = true;
}

void TextWriter::number(double v) {
  char buf[kJsonFloatChars + 1];
  char* p = buf;
  if (comma_) *p++ = ',';
  out_.append(buf, write_json_float(p, v));
  comma_ = true;
}

void TextWriter::boolean(bool v) {
  separate();
  out_ += v ? "true" : "false";
}

void TextWriter::null() {
  separate();
  out_ += "null";
}

void TextWriter::tree(const nlohmann::json& v) {
  separate();
  append_json(out_, v);
}

}  // namespace gpusizer
