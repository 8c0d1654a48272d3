#include "gpusizer/json/json_text.h"

#include "report/json_copy.h"
#include "report/json_integer.h"
#include "report/json_text_parts.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

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

uint32_t load4(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// Whether the 8 bytes in `w` are plain: ASCII, nothing to escape.
bool word_plain(uint64_t w) {
  return (w & kHigh) == 0 && !word_needs_escape(w);
}

// The last 1-15 bytes of `s` from `i` (n - i < 16): words that overlap what was already tested
// (re-testing a plain byte changes nothing), never a byte past the end and never a byte loop:
// 8-15 bytes as two 8-byte words, 4-7 as two 4-byte halves of one word, 1-3 as three bytes (some
// repeated) padded with spaces.
bool tail_plain(const char* p, size_t n) {
  if (n >= 8) return word_plain(load8(p)) && word_plain(load8(p + n - 8));
  uint64_t w;
  if (n >= 4) {
    w = load4(p) | (uint64_t{load4(p + n - 4)} << 32);
  } else {
    w = kOnes * ' ';
    const auto b = [&](size_t i) { return uint64_t{static_cast<unsigned char>(p[i])}; };
    w = (w & ~uint64_t{0xFFFFFF}) | b(0) | (b(n / 2) << 8) | (b(n - 1) << 16);
  }
  return word_plain(w);
}

#if defined(__SSE2__)
// 16 bytes at once (SSE2, part of every x86-64 CPU): the bytes that are not plain, each 0xFF
// (json_copy::bad_bytes: three operations a block where a compare for each of the three was
// five).
__m128i block_bad(const char* p) {
  return json_copy::bad_bytes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
bool block_plain(const char* p) {
  return _mm_movemask_epi8(block_bad(p)) == 0;
}
// 32 bytes: two blocks' bytes joined before one mask and one branch.
bool pair_plain(const char* p) {
  return _mm_movemask_epi8(_mm_or_si128(block_bad(p), block_bad(p + 16))) == 0;
}
#else
bool block_plain(const char* p) {
  return word_plain(load8(p)) && word_plain(load8(p + 8));
}
bool pair_plain(const char* p) {
  return block_plain(p) && block_plain(p + 16);
}
#endif

// Whether `s` is plain: ASCII with nothing to escape, written between quotes as it is (the
// keys, ids and basis texts of an answer nearly always are). 32 bytes a step (issue 18: the
// basis texts are ~5 KB of a JSONL line), then a block of 16; the last 1-15 bytes as the block
// (or words) ending at the end.
bool plain(std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  if (n < 16) return n == 0 || tail_plain(p, n);
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    if (!pair_plain(p + i)) return false;
  if (i + 16 <= n) {
    if (!block_plain(p + i)) return false;
    i += 16;
  }
  return i == n || block_plain(p + n - 16);
}

#if defined(__SSE2__)
using json_copy::bad_bytes;  // block_bad's test on a loaded block
#endif

}  // namespace

#if defined(__x86_64__) && defined(__GNUC__)
namespace {

// The bytes of 32 that are not plain, each 0xFF: json_copy::bad_bytes on twice the width.
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i bad_bytes_avx2(__m256i v) {
  return _mm256_or_si256(
      _mm256_cmpgt_epi8(_mm256_set1_epi8(0x21), _mm256_xor_si256(v, _mm256_set1_epi8(0x02))),
      _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\')));
}

// copy_json_plain for n >= 32 with 32-byte blocks (issue 18: the basis texts, ~3.7 KB of a line,
// were ~7 instructions a 16-byte block with SSE2): 64 bytes a step, then 32, then the block
// ending at the end, overlapping what was copied.
[[gnu::target("avx2")]] char* copy_plain_avx2(char* dst, const char* p, size_t n) {
  __m256i bad = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 32));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i + 32), b);
    bad = _mm256_or_si256(bad, _mm256_or_si256(bad_bytes_avx2(a), bad_bytes_avx2(b)));
  }
  if (i + 32 <= n) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), a);
    bad = _mm256_or_si256(bad, bad_bytes_avx2(a));
    i += 32;
  }
  if (i < n) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + n - 32));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + n - 32), a);
    bad = _mm256_or_si256(bad, bad_bytes_avx2(a));
  }
  return _mm256_testz_si256(bad, bad) ? dst + n : nullptr;
}

// Asked once before main; false until then (a text copied by another static initializer takes
// the SSE2 path, which writes the same).
const bool has_avx2 = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
}();

}  // namespace
#endif

// copy_json_plain without AVX2, and for texts shorter than 32 bytes.
[[gnu::noinline]] char* copy_json_plain_sse2(char* dst, std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
#if defined(__SSE2__)
  if (n >= 16) {
    // Each block is loaded once, stored and tested; the tests are joined and looked at once at
    // the end (a text that is not plain is rare, and its copy is simply not used).
    __m128i bad = _mm_setzero_si128();
    size_t i = 0;
    // 64 bytes a step while they last (the basis texts are 50-300 bytes: the loop's own compare
    // and branch once per four blocks, issue 18), then 32.
    for (; i + 64 <= n; i += 64) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 32));
      const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 48));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), a);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
      bad = _mm_or_si128(bad, _mm_or_si128(_mm_or_si128(bad_bytes(a), bad_bytes(b)),
                                           _mm_or_si128(bad_bytes(c), bad_bytes(d))));
    }
    if (i + 32 <= n) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 16));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), a);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
      bad = _mm_or_si128(bad, _mm_or_si128(bad_bytes(a), bad_bytes(b)));
      i += 32;
    }
    if (i + 16 <= n) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), a);
      bad = _mm_or_si128(bad, bad_bytes(a));
      i += 16;
    }
    if (i < n) {  // the last 1-15 bytes: the block ending at the end, overlapping what was copied
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + n - 16));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + n - 16), a);
      bad = _mm_or_si128(bad, bad_bytes(a));
    }
    return _mm_movemask_epi8(bad) == 0 ? dst + n : nullptr;
  }
#endif
  if (!plain(s)) return nullptr;
  if (n) std::memcpy(dst, p, n);
  return dst + n;
}

// Only the choice between the two, so that both are tail calls (issue 18: the SSE2 body's
// register saves were paid before the AVX2 path was taken, ~10 instructions a basis text).
char* copy_json_plain(char* dst, std::string_view s) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (s.size() >= 32 && has_avx2) return copy_plain_avx2(dst, s.data(), s.size());
#endif
  return copy_json_plain_sse2(dst, s);
}

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
  return json_integer_text(p, v);
}

char* write_json_integer(char* p, uint64_t v) {
  return json_integer_text(p, v);
}

void append_json_integer(std::string& out, int64_t v) {
  char buffer[kJsonIntegerRoom];
  out.append(buffer, json_integer_text(buffer, v));
}

void append_json_integer(std::string& out, uint64_t v) {
  char buffer[kJsonIntegerRoom];
  out.append(buffer, json_integer_text(buffer, v));
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
