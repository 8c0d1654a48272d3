#include "scenario/plain_json.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace gpusizer {
namespace {

using nlohmann::json;

constexpr int kMaxDepth = 32;  // deeper texts are nlohmann's (and the callers' depth guards')

// Makes `v`'s JSON value in the place of `out`, a null value: every value the reader fills is one
// (the sink's, an array's new item, an object's new node, parse_plain_json's). nlohmann's
// operator= made a temporary, swapped it in and destroyed the null it swapped out (issue 18: ~35
// instructions a value, ~4 values a line); a null holds nothing to free, so its storage is reused
// without its destructor ([basic.life]: no effect of it is depended on).
template <typename T>
void make(json& out, T&& v) {
  ::new (static_cast<void*>(&out)) json(std::forward<T>(v));
}

// The thread's string values given back (recycle_string_value), each a JSON string whose
// std::string and bytes are kept for the next string read on the thread (issue 18: a scenario
// line's 2-4 string members were each a std::string allocated and freed, a name past 15 bytes
// its bytes too, ~130 instructions a string). A value taken is assigned its new text whole, so
// nothing of an earlier line's string is left in it. `current` is null until they are made at
// the thread's first string and again once they are destroyed at its exit (`gone`), when strings
// are made and freed as before.
struct SpareStrings {
  static constexpr size_t kMaxValues = 32;     // more than a line's string members
  static constexpr size_t kMaxCapacity = 256;  // a longer string's bytes are not held
  std::vector<json> values;
  static thread_local SpareStrings* current;
  static thread_local bool gone;
  SpareStrings() {
    values.reserve(kMaxValues);
    current = this;
  }
  ~SpareStrings() {
    current = nullptr;
    gone = true;
  }
  SpareStrings(const SpareStrings&) = delete;
  SpareStrings& operator=(const SpareStrings&) = delete;
  static SpareStrings* of_thread() {
    if (current || gone) return current;
    thread_local SpareStrings spares;
    return &spares;
  }
};

thread_local SpareStrings* SpareStrings::current = nullptr;
thread_local bool SpareStrings::gone = false;

// A string value of `text` in the place of the null `out` (see make), a spare's storage when the
// thread has one.
void make_string(json& out, std::string_view text) {
  SpareStrings* spares = SpareStrings::of_thread();
  if (!spares || spares->values.empty()) {
    make(out, text);
    return;
  }
  make(out, std::move(spares->values.back()));  // its std::string moves in; the spare is null
  spares->values.pop_back();
  out.get_ref<std::string&>().assign(text);
}

struct Reader {
  const char* p;
  const char* end;
  int depth = 0;

  // The byte at p, or '\0' at the end ('\0' starts no token, so it declines).
  char peek() const { return p < end ? *p : '\0'; }

  void skip_space() {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
  }

  // After the opening quote: printable ASCII up to the closing quote, no escapes.
  bool string(std::string_view& out) {
    const char* start = p;
#if defined(__SSE2__)
    // Sixteen bytes a test while they last (issue 18: a byte a step was ~6 instructions a byte,
    // ~500 a line): the first byte that is a quote, a backslash, a control byte or not ASCII
    // (the signed compare below 0x20 takes both of the last) is then looked at below.
    while (end - p >= 16) {
      const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8('"')),
                                                     _mm_cmpeq_epi8(block, _mm_set1_epi8('\\'))),
                                        _mm_cmplt_epi8(block, _mm_set1_epi8(0x20)));
      if (const int found = _mm_movemask_epi8(stop)) {
        p += std::countr_zero(static_cast<unsigned>(found));
        break;
      }
      p += 16;
    }
#endif
    while (p < end) {
      const auto c = static_cast<unsigned char>(*p);
      if (c == '"') {
        out = std::string_view(start, static_cast<size_t>(p - start));
        ++p;
        return true;
      }
      if (c < 0x20 || c >= 0x80 || c == '\\') return false;
      ++p;
    }
    return false;
  }

  bool word(const char* w, size_t n) {
    if (static_cast<size_t>(end - p) < n || std::memcmp(p, w, n) != 0) return false;
    p += n;
    return true;
  }

  // RFC 8259's number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?. An integer is nlohmann's
  // unsigned (no sign) or signed (a minus) type; a decimal its double, correctly rounded as
  // strtod rounds it.
  bool number(json& out) {
    const char* start = p;
    const bool negative = peek() == '-';
    if (negative) ++p;
    const char* digits = p;
    if (peek() == '0') {
      ++p;
    } else {
      while (p < end && *p >= '0' && *p <= '9') ++p;
    }
    const auto integral = static_cast<size_t>(p - digits);
    if (integral == 0) return false;
    bool decimal = false;
    if (peek() == '.') {
      decimal = true;
      const char* fraction = ++p;
      while (p < end && *p >= '0' && *p <= '9') ++p;
      if (p == fraction) return false;
    }
    if (peek() == 'e' || peek() == 'E') {
      decimal = true;
      ++p;
      if (peek() == '+' || peek() == '-') ++p;
      const char* exponent = p;
      while (p < end && *p >= '0' && *p <= '9') ++p;
      if (p == exponent) return false;
    }
    if (decimal) {
      double v = 0;
      const auto [ptr, ec] = std::from_chars(start, p, v);
      if (ec != std::errc() || ptr != p || !std::isfinite(v)) return false;
      make(out, v);
      return true;
    }
    if (integral > 18) return false;  // no overflow below 10^18; longer ones are nlohmann's
    uint64_t magnitude = 0;
    for (const char* d = digits; d < p; ++d)
      magnitude = magnitude * 10 + static_cast<uint64_t>(*d - '0');
    if (negative)
      make(out, -static_cast<int64_t>(magnitude));
    else
      make(out, magnitude);
    return true;
  }

  // An object's members after its '{', each key handed to `member`, which reads the value that
  // follows (the reader at the value's first byte) or returns false to decline the text.
  template <typename Member>
  bool members(Member&& member) {
    skip_space();
    if (peek() == '}') {
      ++p;
      return true;
    }
    for (;;) {
      std::string_view key;
      if (peek() != '"') return false;
      ++p;
      if (!string(key)) return false;
      skip_space();
      if (peek() != ':') return false;
      ++p;
      skip_space();
      if (!member(key)) return false;
      skip_space();
      if (peek() == '}') {
        ++p;
        return true;
      }
      if (peek() != ',') return false;
      ++p;
      skip_space();
    }
  }

  bool object(json& out) {
    // Made by its type, not by json::object() (issue 18: that builds an empty initializer list's
    // object, checks it, moves it in and destroys the moved-from value, ~110 instructions a line).
    make(out, json::value_t::object);
    auto& map = out.get_ref<json::object_t&>();
    return members([&](std::string_view key) {
      // The member's node made from the text (the key and a string value in place: no temporary
      // string made, moved and destroyed) and put in the map by one search, which also finds a
      // repeated key (issue 18: a lower_bound, then an insertion by that hint that compared the
      // key again, ~70 instructions a member more).
      const bool text_value = peek() == '"';
      std::string_view text;
      if (text_value) {
        ++p;
        if (!string(text)) return false;
      }
      const auto [slot, added] =
          text_value ? map.emplace(std::piecewise_construct, std::forward_as_tuple(key),
                                   std::forward_as_tuple(text))
                     : map.emplace(std::piecewise_construct, std::forward_as_tuple(key),
                                   std::forward_as_tuple());
      if (!added) return false;  // a repeated key: parse_json_input names it
      return text_value || value(slot->second);
    });
  }

  bool array(json& out) {
    make(out, json::value_t::array);  // by its type, as object() makes its object
    auto& items = out.get_ref<json::array_t&>();
    skip_space();
    if (peek() == ']') {
      ++p;
      return true;
    }
    for (;;) {
      items.emplace_back();
      if (!value(items.back())) return false;
      skip_space();
      if (peek() == ']') {
        ++p;
        return true;
      }
      if (peek() != ',') return false;
      ++p;
    }
  }

  bool value(json& out) {
    skip_space();
    switch (peek()) {
      case '{':
      case '[': {
        const bool is_object = *p == '{';
        ++p;
        if (++depth > kMaxDepth) return false;
        const bool ok = is_object ? object(out) : array(out);
        --depth;
        return ok;
      }
      case '"': {
        ++p;
        std::string_view s;
        if (!string(s)) return false;
        make_string(out, s);  // made from the text, not from a temporary copy
        return true;
      }
      case 't':
        make(out, true);
        return word("true", 4);
      case 'f':
        make(out, false);
        return word("false", 5);
      case 'n':  // the null it is
        return word("null", 4);
      default:
        return number(out);
    }
  }
};

}  // namespace

bool read_plain_object(std::string_view text, MemberSink& sink) {
  Reader r{text.data(), text.data() + text.size()};
  r.skip_space();
  if (r.peek() != '{') return false;
  ++r.p;
  r.depth = 1;  // the object's own level, as value() counts it: the same nesting limit
  const bool read = r.members([&](std::string_view key) {
    json* slot = sink.value_for(key);
    return slot && r.value(*slot);
  });
  if (!read) return false;
  r.skip_space();
  return r.p == r.end;
}

void recycle_string_value(json& value) {
  if (!value.is_string() ||
      value.get_ref<const std::string&>().capacity() > SpareStrings::kMaxCapacity)
    return;
  SpareStrings* spares = SpareStrings::current;  // made by the string's own make_string
  if (!spares || spares->values.size() == SpareStrings::kMaxValues) return;
  spares->values.push_back(std::move(value));
}

std::optional<json> parse_plain_json(std::string_view text) {
  Reader r{text.data(), text.data() + text.size()};
  std::optional<json> out(std::in_place);
  if (!r.value(*out)) return std::nullopt;
  r.skip_space();
  if (r.p != r.end) return std::nullopt;
  return out;
}

}  // namespace gpusizer
