#pragma once
// A small RFC 4180 reader for the project's own data files (quoted fields, "" escapes, CRLF).
#include <string>
#include <string_view>
#include <vector>

namespace gpusizer {

using CsvRow = std::vector<std::string>;

/// Parses `text` into rows of fields. Throws InputError naming `file` and the line on an
/// unterminated quote.
std::vector<CsvRow> parse_csv(std::string_view text, const std::string& file);

}  // namespace gpusizer
