#pragma once
// fmt::format for the basis strings, with their doubles written by float_text's fast path
// (issue 18). format_text(FMT_COMPILE("... {:.2f} GiB"), x) gives the same text as
// fmt::format(FMT_COMPILE(...), x): a double is passed as a FastDouble, whose formatter takes the
// fast path for the specs "f", ".Nf", "g" and ".Ng" with an optional '+', and hands every other
// spec, and every value the fast path declines, to fmt's own formatter for double.
#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <type_traits>

#include "core/float_text.h"
#include "gpusizer/basis.h"

namespace gpusizer {

/// A double for fmt to format through fixed_text() and general_text().
struct FastDouble {
  double value;
};

/// A double as a FastDouble; any other argument (a float too: fmt's shortest text of a float is
/// not that of the double it widens to) as it is.
template <typename T>
decltype(auto) text_arg(const T& v) {
  if constexpr (std::is_same_v<T, double>)
    return FastDouble{v};
  else
    return (v);
}

/// fmt::format(format, args...) with the doubles through the fast path. The text is written to
/// a buffer on the stack and copied into the string once: fmt::format of a compiled format
/// appends to a std::string, which reallocates as it grows (four times for a 200-byte basis line).
template <typename Format, typename... Args>
std::string format_text(const Format& format, const Args&... args) {
  fmt::memory_buffer text;
  fmt::format_to(fmt::appender(text), format, text_arg(args)...);
  return std::string(text.data(), text.size());
}

/// The same, appended to `out`.
template <typename Format, typename... Args>
void format_text_to(std::string& out, const Format& format, const Args&... args) {
  fmt::format_to(std::back_inserter(out), format, text_arg(args)...);
}

/// The same, appended to a fmt::memory_buffer (held on the stack up to 500 bytes).
template <typename Format, typename... Args>
void format_text_to(fmt::memory_buffer& out, const Format& format, const Args&... args) {
  fmt::format_to(fmt::appender(out), format, text_arg(args)...);
}

/// The value of `key` in `basis` becomes format_text(format, args...), formatted straight into
/// the basis (issue 18: no string built and then copied). No argument may view `basis` itself.
template <typename Format, typename... Args>
void set_text(Basis& basis, BasisKey key, const Format& format, const Args&... args) {
  basis.set_with(key, [&](std::string& out) { format_text_to(out, format, args...); });
}

/// The same, appended to the value `key` has.
template <typename Format, typename... Args>
void append_text(Basis& basis, BasisKey key, const Format& format, const Args&... args) {
  basis.append_with(key, [&](std::string& out) { format_text_to(out, format, args...); });
}

}  // namespace gpusizer

template <>
struct fmt::formatter<gpusizer::FastDouble> : fmt::formatter<double> {
  // The spec, read before fmt's own parser reads it for the slow path: [+][.N](f|g) only.
  constexpr auto parse(format_parse_context& ctx) -> decltype(ctx.begin()) {
    auto it = ctx.begin();
    const auto end = ctx.end();
    if (it != end && *it == '+') {
      plus_ = true;
      ++it;
    }
    if (it != end && *it == '.') {
      ++it;
      precision_ = 0;
      for (; it != end && *it >= '0' && *it <= '9' && precision_ < 100; ++it)
        precision_ = precision_ * 10 + (*it - '0');
    }
    if (it != end && (*it == 'f' || *it == 'g')) type_ = *it++;
    fast_ = type_ != 0 && (it == end || *it == '}');
    return fmt::formatter<double>::parse(ctx);
  }

  // The characters [begin, end) written whole to what `out` appends to. std::copy would push
  // them one at a time, a call each wherever the compiler leaves push_back out of line (which
  // copy of this template the linker keeps decides it; issue 18); fmt's append is a call and a
  // memcpy. Into fmt's buffer they are stored in place when it has room.
  static fmt::appender append_chars(fmt::appender out, const char* begin, const char* end) {
    auto& buffer = fmt::detail::get_container(out);
    const size_t size = buffer.size(), n = static_cast<size_t>(end - begin);
    buffer.try_reserve(size + n);
    if (buffer.capacity() < size + n) {
      buffer.append(begin, end);
      return out;
    }
    char* to = buffer.data() + size;
    for (size_t i = 0; i < n; ++i) to[i] = begin[i];
    buffer.try_resize(size + n);
    return out;
  }
  template <typename Out>
  static Out append_chars(Out out, const char* begin, const char* end) {
    fmt::detail::get_container(out).append(begin, end);
    return out;
  }

  template <typename FormatContext>
  auto format(gpusizer::FastDouble d, FormatContext& ctx) const -> decltype(ctx.out()) {
    if (fast_) {
      char buf[gpusizer::kFloatTextChars + 1];
      char* p = buf;
      if (plus_ && !std::signbit(d.value)) *p++ = '+';
      char* end = type_ == 'f' ? gpusizer::fixed_text(p, d.value, precision_)
                               : gpusizer::general_text(p, d.value, precision_);
      if (end) return append_chars(ctx.out(), buf, end);
    }
    return fmt::formatter<double>::format(d.value, ctx);
  }

 private:
  bool fast_ = false;
  bool plus_ = false;
  char type_ = 0;
  int precision_ = 6;  // printf's and fmt's default for f and g
};
