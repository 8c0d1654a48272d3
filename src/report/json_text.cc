#include "gpusizer/json/json_text.h"

#include "report/json_text_parts.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace gpusizer {
namespace {

using value_t = nlohmann::json::value_t;

// Whether `s` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, at most
// U+10FFFF), the same rule nlohmann's serializer checks.
bool valid_utf8(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
    } else {
      return false;
    }
    if (i + len > n) return false;
    const auto second = static_cast<unsigned char>(s[i + 1]);
    if (second < lo || second > hi) return false;
    for (size_t k = 2; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;

uint64_t load8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// Whether any of the 8 bytes in `w` must be escaped: a control character, '"' or '\'. SWAR tests
// from "Bit Twiddling Hacks" (hasless, haszero): a false alarm only sends the word down the
// byte-by-byte path.
bool word_needs_escape(uint64_t w) {
  const uint64_t quote = w ^ (kOnes * '"'), backslash = w ^ (kOnes * '\\');
  const uint64_t below_space = (w - kOnes * 0x20) & ~w;
  const uint64_t is_quote = (quote - kOnes) & ~quote,
                 is_backslash = (backslash - kOnes) & ~backslash;
  return ((below_space | is_quote | is_backslash) & kHigh) != 0;
}

bool valid_text(std::string_view s) {
  size_t i = 0;
  while (i + 8 <= s.size() && (load8(s.data() + i) & kHigh) == 0) i += 8;  // ASCII words
  return valid_utf8(s.substr(i));
}

// Whether `s` is plain: ASCII with nothing to escape, written between quotes as it is (the
// keys, ids and basis texts of an answer nearly always are).
bool plain(std::string_view s) {
  const size_t n = s.size();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t w = load8(s.data() + i);
    if ((w & kHigh) != 0 || word_needs_escape(w)) return false;
  }
  if (i == n) return true;
  // The last 1-7 bytes as one word padded with spaces (plain): one word test, not a byte loop.
  uint64_t w = kOnes * ' ';
  std::memcpy(&w, s.data() + i, n - i);
  return (w & kHigh) == 0 && !word_needs_escape(w);
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  if (plain(s)) {  // the common case: copied as it is
    out += '"';
    out.append(s.data(), s.size());
    out += '"';
    return;
  }
  if (!valid_text(s)) {
    // Rare (user bytes quoted in a message): let nlohmann place the replacement characters.
    out += nlohmann::json(std::string(s))
               .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  const size_t n = s.size();
  out += '"';
  size_t run = 0, i = 0;  // run: start of the bytes not yet copied
  while (i < n) {
    if (i + 8 <= n && !word_needs_escape(load8(s.data() + i))) {
      i += 8;
      continue;
    }
    const auto c = static_cast<unsigned char>(s[i++]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - 1 - run);
    run = i;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
    }
  }
  out.append(s.data() + run, n - run);
  out += '"';
}

bool json_plain(std::string_view s) {
  return plain(s);
}

char* write_json_integer(char* p, int64_t v) {
  return std::to_chars(p, p + 20, v).ptr;
}

char* write_json_integer(char* p, uint64_t v) {
  return std::to_chars(p, p + 20, v).ptr;
}

char* write_json_float(char* p, double v) {
  if (!std::isfinite(v)) {
    std::memcpy(p, "null", 4);
    return p + 4;
  }
  // nlohmann's own shortest round-trip form (Grisu2), so the text is the same as dump()'s.
  return nlohmann::detail::to_chars(p, p + kJsonFloatChars, v);
}

void append_json_integer(std::string& out, int64_t v) {
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
  out.append(buffer, end);
}

void append_json_integer(std::string& out, uint64_t v) {
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
  out.append(buffer, end);
}

void append_json_float(std::string& out, double v) {
  char buffer[kJsonFloatChars];
  out.append(buffer, write_json_float(buffer, v));
}

namespace {

void newline(std::string& out, int indent, int depth) {
  out += '\n';
  out.append(static_cast<size_t>(indent) * static_cast<size_t>(depth), ' ');
}

void append(std::string& out, const nlohmann::json& v, int indent, int depth) {
  const bool pretty = indent >= 0;
  switch (v.type()) {
    case value_t::object: {
      const auto& object = v.get_ref<const nlohmann::json::object_t&>();
      if (object.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      bool first = true;
      for (const auto& [key, item] : object) {
        if (!first) out += ',';
        first = false;
        if (pretty) newline(out, indent, depth + 1);
        append_json_string(out, key);
        out += pretty ? ": " : ":";
        append(out, item, indent, depth + 1);
      }
      if (pretty) newline(out, indent, depth);
      out += '}';
      return;
    }
    case value_t::array: {
      const auto& array = v.get_ref<const nlohmann::json::array_t&>();
      if (array.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      bool first = true;
      for (const auto& item : array) {
        if (!first) out += ',';
        first = false;
        if (pretty) newline(out, indent, depth + 1);
        append(out, item, indent, depth + 1);
      }
      if (pretty) newline(out, indent, depth);
      out += ']';
      return;
    }
    case value_t::string:
      append_json_string(out, v.get_ref<const std::string&>());
      return;
    case value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      return;
    case value_t::number_integer:
      append_json_integer(out, v.get<int64_t>());
      return;
    case value_t::number_unsigned:
      append_json_integer(out, v.get<uint64_t>());
      return;
    case value_t::number_float:
      append_json_float(out, v.get<double>());
      return;
    case value_t::null:
      out += "null";
      return;
    default:  // binary and discarded values never reach output; keep nlohmann's text for them
      out += v.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
  }
}

}  // namespace

void append_json(std::string& out, const nlohmann::json& value, int indent) {
  append(out, value, indent, 0);
}

std::string json_text(const nlohmann::json& value, int indent) {
  std::string out;
  append(out, value, indent, 0);
  return out;
}

}  // namespace gpusizer
