#pragma once
// The scalar pieces of json_text (src/report/json_text.cc), shared with the streaming
// TextWriter (report/json_writer.h) so that both write the bytes nlohmann's dump() writes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpusizer {

/// A JSON string: quotes, escapes as nlohmann writes them, invalid UTF-8 replaced by U+FFFD.
void append_json_string(std::string& out, std::string_view s);

/// Whether `s` is ASCII with nothing to escape: written as it is between quotes.
bool json_plain(std::string_view s);

/// `s` copied to `dst` (room for s.size() bytes) when it is plain (json_plain), the end returned;
/// nullptr when it is not, with what was copied to be ignored. One pass over the bytes, each
/// block loaded once for its test and its copy (issue 18: the basis texts, ~5 KB of a line).
char* copy_json_plain(char* dst, std::string_view s);
/// copy_json_plain's body on a CPU without AVX2 (where it has AVX2, for texts under 32 bytes);
/// for the tests, which run both on a machine that has it.
char* copy_json_plain_sse2(char* dst, std::string_view s);

/// The text of append_json_integer and append_json_float written at `p` (room for 20 and
/// kJsonFloatChars characters); returns the end.
inline constexpr size_t kJsonFloatChars = 64;
char* write_json_integer(char* p, int64_t v);
char* write_json_integer(char* p, uint64_t v);
char* write_json_float(char* p, double v);

/// An integer's decimal digits.
void append_json_integer(std::string& out, int64_t v);
void append_json_integer(std::string& out, uint64_t v);

/// A float as nlohmann writes it (its Grisu2 shortest round trip, "1.0" for whole numbers,
/// exponents past 1e15 or below 1e-5); null when not finite.
void append_json_float(std::string& out, double v);

}  // namespace gpusizer
