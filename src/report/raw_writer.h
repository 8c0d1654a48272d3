#pragma once
// A third backend for the describers (report/describe.h): compact JSON text stored at a pointer,
// each token its own stores and nothing else. For a part of an answer whose size the caller has
// bounded and reserved in a TextWriter's buffer (TextWriter::reserve and commit): a change of the
// "changes" list, ~20 tokens with its merge patch, was ~20 room checks and offset updates of the
// text writer, one per token (issue 18). The text is TextWriter's: each value followed by a
// comma, taken back before a closing brace or bracket.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string_view>

#include "report/json_copy.h"
#include "report/json_fields.h"
#include "report/json_integer.h"
#include "report/json_text_parts.h"
#include "report/json_writer.h"

namespace gpusizer {

// Every method is forced inline: a describer instantiated for this writer keeps the pointer in a
// register, not a call per token (GCC kept literal_key out of line).
class RawWriter : public JsonFields<RawWriter> {
 public:
  /// Writes at `p`, which has room for everything the caller will write (its bound).
  explicit RawWriter(char* p) : p_(p) {}

  /// Where the text ends (after the last value's comma).
  char* end() const { return p_; }
  /// A string needed escaping: the text is incomplete and the caller writes the part again by
  /// the general path.
  bool failed() const { return failed_; }

  [[gnu::always_inline]] void begin_object() { *p_++ = '{'; }
  [[gnu::always_inline]] void end_object() { close('}'); }
  [[gnu::always_inline]] void begin_array() { *p_++ = '['; }
  [[gnu::always_inline]] void end_array() { close(']'); }
  /// A key: the describers' keys are literals (ASCII, nothing to escape).
  [[gnu::always_inline]] void literal_key(std::string_view k) { p_ = json_copy::put_key(p_, k); }
  [[gnu::always_inline]] void string(std::string_view v) {
    if (char* end = json_copy::quoted_if_plain(p_, v)) return wrote(end);
    failed_ = true;
  }
  /// A string known plain (json_plain).
  [[gnu::always_inline]] void plain_string(std::string_view v) { wrote(json_copy::quoted(p_, v)); }
  [[gnu::always_inline]] void integer(int64_t v) { wrote(json_integer_text(p_, v)); }
  [[gnu::always_inline]] void unsigned_integer(uint64_t v) { wrote(json_integer_text(p_, v)); }
  [[gnu::always_inline]] void number(double v) { wrote(write_json_figure(p_, v)); }
  [[gnu::always_inline]] void boolean(bool v) {
    std::memcpy(p_, v ? "true" : "false", 5);
    wrote(p_ + (v ? 4 : 5));
  }
  [[gnu::always_inline]] void null() { wrote(static_cast<char*>(std::memcpy(p_, "null", 4)) + 4); }

  // A literal key and its value (JsonFields::field's calls).
  [[gnu::always_inline]] void literal_integer(std::string_view k, int64_t v) {
    literal_key(k);
    integer(v);
  }
  [[gnu::always_inline]] void literal_number(std::string_view k, double v) {
    literal_key(k);
    number(v);
  }
  [[gnu::always_inline]] void literal_string(std::string_view k, std::string_view v) {
    literal_key(k);
    string(v);
  }
  [[gnu::always_inline]] void literal_plain_string(std::string_view k, std::string_view v) {
    literal_key(k);
    plain_string(v);
  }
  /// A literal key and the number `v` whose text the caller holds (RepeatedFigures).
  [[gnu::always_inline]] void literal_number_text(std::string_view k, double v,
                                                  std::string_view text) {
    (void)v;
    literal_text(k, text);
  }
  /// A literal key and a value whose JSON text the caller holds (one written before: the
  /// answer's model copies its active parameters' for its parameters).
  [[gnu::always_inline]] void literal_text(std::string_view k, std::string_view text) {
    literal_key(k);
    std::memcpy(p_, text.data(), text.size());
    wrote(p_ + text.size());
  }
  /// One string of `parts` joined by `separator`, all known plain.
  [[gnu::always_inline]] void joined_plain(std::span<const std::string_view> parts,
                                           std::string_view separator) {
    char* p = p_;
    *p++ = '"';
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i) {
        json_copy::copy_short(p, separator.data(), separator.size());
        p += separator.size();
      }
      json_copy::copy_short(p, parts[i].data(), parts[i].size());
      p += parts[i].size();
    }
    *p++ = '"';
    wrote(p);
  }

 private:
  [[gnu::always_inline]] void wrote(char* end) {
    *end = ',';
    p_ = end + 1;
  }
  // The last member's comma taken back (an empty object or array has none), then `c` and its
  // own comma.
  [[gnu::always_inline]] void close(char c) {
    p_ -= p_[-1] == ',' ? 1 : 0;
    *p_ = c;
    wrote(p_ + 1);
  }

  char* p_;
  bool failed_ = false;
};

/// The text writer's value that `describe(RawWriter&)` writes, written by a RawWriter at once in
/// room reserved for `bound` bytes, at least what it writes (its keys, punctuation and strings,
/// 20 bytes for each integer and 64 for its last double: the room their writers store whole
/// words into). False when the bound is past the text writer's buffer, keys are checked or a
/// string needs escaping: nothing is kept, and the caller writes the value through `w`.
template <typename Describe>
bool write_at_once(TextWriter& w, size_t bound, Describe&& describe) {
  char* start = w.reserve(bound);
  if (!start) return false;
  RawWriter raw(start);
  describe(raw);
  // A bound too small for what was written has already run past the reserved room, maybe past
  // the buffer: stop rather than go on from corrupted memory (a defect of the bound, which the
  // tests and fuzzers would show here, not a user's error).
  if (raw.end() > start + bound) [[unlikely]]
    std::abort();
  if (raw.failed()) return false;
  w.commit(raw.end());
  return true;
}

}  // namespace gpusizer
