#include "report/json_writer.h"

#include <stdexcept>

#include "gpusizer/json_text.h"
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

void TextWriter::key(std::string_view k) {
  if (check_keys_) {
    if (last_keys_.empty())
      throw std::logic_error("key '" + std::string(k) + "' outside an object");
    std::optional<std::string>& last = last_keys_.back();
    if (last && k <= *last)
      throw std::logic_error("key '" + std::string(k) + "' after '" + *last + "'");
    last = std::string(k);
  }
  separate();
  append_json_string(out_, k);
  out_ += ':';
  comma_ = false;
}

void TextWriter::string(std::string_view v) {
  separate();
  append_json_string(out_, v);
}

void TextWriter::integer(int64_t v) {
  separate();
  append_json_integer(out_, v);
}

void TextWriter::unsigned_integer(uint64_t v) {
  separate();
  append_json_integer(out_, v);
}

void TextWriter::number(double v) {
  separate();
  append_json_float(out_, v);
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
