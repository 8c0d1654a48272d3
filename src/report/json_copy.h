#pragma once
// Short keys and strings copied into TextWriter's buffer (report/json_writer.h): inline, so that
// the text writer's short paths, and with them these copies, inline into the describers
// (issue 18).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "report/json_text_parts.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpusizer::json_copy {

/// Keys and values up to this many bytes go through the writer's buffer.
inline constexpr size_t kShort = 512;

/// `n` bytes, sizeof(Word) <= n <= 2 sizeof(Word), from `src` to `dst` as two overlapping words,
/// the first and the last, which are left in `first` and `last` for a caller that tests them.
template <typename Word>
[[gnu::always_inline]] inline void copy_ends(char* dst, const char* src, size_t n, Word& first,
                                             Word& last) {
  std::memcpy(&first, src, sizeof(Word));
  std::memcpy(&last, src + n - sizeof(Word), sizeof(Word));
  std::memcpy(dst, &first, sizeof(Word));
  std::memcpy(dst + n - sizeof(Word), &last, sizeof(Word));
}

/// `n` bytes, 1 <= n <= 3, from `src` to `dst`: the first, middle and last (some the same).
[[gnu::always_inline]] inline void copy_tiny(char* dst, const char* src, size_t n) {
  dst[0] = src[0];
  dst[n / 2] = src[n / 2];
  dst[n - 1] = src[n - 1];
}

/// `n` bytes (at most kShort) from `src` to `dst`: up to 32 as two overlapping pairs of words,
/// inlined, instead of a call to memcpy (most keys and values are short). Forced inline: a call
/// made the writers save and restore four registers per key.
[[gnu::always_inline]] inline void copy_short(char* dst, const char* src, size_t n) {
  if (n > 32) {
    std::memcpy(dst, src, n);
  } else if (n >= 16) {
    std::memcpy(dst, src, 16);
    std::memcpy(dst + n - 16, src + n - 16, 16);
  } else if (n >= 8) {
    uint64_t a, b;
    copy_ends(dst, src, n, a, b);
  } else if (n >= 4) {
    uint32_t a, b;
    copy_ends(dst, src, n, a, b);
  } else if (n > 0) {
    copy_tiny(dst, src, n);
  }
}

#if defined(__SSE2__)
/// The bytes of `v` that are not plain, each 0xFF. A byte XOR 0x02 is below 0x21 as a signed
/// char exactly when the byte is a control character (0x00-0x1F map onto 0x00-0x1F), '"' (0x22
/// maps to 0x20) or 0x80 and above (negative); the backslash is compared alone.
[[gnu::always_inline]] inline __m128i bad_bytes(__m128i v) {
  return _mm_or_si128(_mm_cmplt_epi8(_mm_xor_si128(v, _mm_set1_epi8(0x02)), _mm_set1_epi8(0x21)),
                      _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
}
#endif

/// `n` (< 16) bytes from `src` copied to `dst`, and whether they are plain (json_plain), in one
/// pass: the words copy_short loads are the words tested, 16 bytes of them in one SSE2 block
/// (issue 18: a short string's test was three calls, json_plain, plain and word_plain, ~50
/// instructions for the ~25 ids and names of a line shorter than 16 bytes).
[[gnu::always_inline]] inline bool copy_short_plain(char* dst, const char* src, size_t n) {
#if defined(__SSE2__)
  uint64_t low, high;  // the bytes tested: 8-15 as two overlapping words; fewer, one word twice
  if (n >= 8) {
    copy_ends(dst, src, n, low, high);
  } else if (n >= 4) {
    uint32_t a, b;
    copy_ends(dst, src, n, a, b);
    low = high = a | (uint64_t{b} << 32);
  } else if (n > 0) {
    const auto byte = [src](size_t i) { return uint64_t{static_cast<unsigned char>(src[i])}; };
    copy_tiny(dst, src, n);
    // The three bytes (some repeated), the word's other bytes spaces (plain).
    low = high = (0x2020202020202020ULL & ~uint64_t{0xFFFFFF}) | byte(0) | (byte(n / 2) << 8) |
                 (byte(n - 1) << 16);
  } else {
    return true;
  }
  const __m128i words = _mm_set_epi64x(static_cast<int64_t>(high), static_cast<int64_t>(low));
  return _mm_movemask_epi8(bad_bytes(words)) == 0;
#else
  copy_short(dst, src, n);
  return json_plain(std::string_view(src, n));
#endif
}

/// `v` (at most kShort bytes) quoted at `p` when it is plain, the end returned; else null, with
/// what was written past `p` not to be used. From 16 bytes on the copy is the test
/// (copy_json_plain: each block loaded once, stored and tested), not a test and then a copy
/// (issue 18: two passes over the lever names and prices of a JSONL line's changes).
[[gnu::always_inline]] inline char* quoted_if_plain(char* p, std::string_view v) {
  *p++ = '"';
  if (v.size() >= 16) {
    p = copy_json_plain(p, v);
    if (!p) return nullptr;
  } else {
    if (!copy_short_plain(p, v.data(), v.size())) return nullptr;
    p += v.size();
  }
  *p++ = '"';
  return p;
}

/// `v` (at most kShort bytes, known plain) quoted at `p`; returns the end.
[[gnu::always_inline]] inline char* quoted(char* p, std::string_view v) {
  *p++ = '"';
  copy_short(p, v.data(), v.size());
  p += v.size();
  *p++ = '"';
  return p;
}

/// `k` at `p` as a key (inline up to 32 bytes): the quoted key and the colon; returns the end.
[[gnu::always_inline]] inline char* put_key(char* p, std::string_view k) {
  *p++ = '"';
  copy_short(p, k.data(), k.size());
  p += k.size();
  p[0] = '"';
  p[1] = ':';
  return p + 2;
}

}  // namespace gpusizer::json_copy
