#pragma once
// Short keys and strings copied into TextWriter's buffer (report/json_writer.h): inline, so that
// the text writer's short paths, and with them these copies, inline into the describers
// (issue 18).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "report/json_text_parts.h"

namespace gpusizer::json_copy {

/// Keys and values up to this many bytes go through the writer's buffer.
inline constexpr size_t kShort = 512;

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
    if (!json_plain(v)) return nullptr;
    copy_short(p, v.data(), v.size());
    p += v.size();
  }
  *p++ = '"';
  return p;
}

/// `k` at `p` as a key (inline up to 32 bytes): the comma, stored unconditionally and kept only
/// when `comma`, the quoted key and the colon; returns the end.
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

}  // namespace gpusizer::json_copy
