#pragma once
// A small RFC 4180 reader for the project's own data files (quoted fields, "" escapes, CRLF).
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpusizer {

using CsvRow = std::vector<std::string>;

/// Parses `text` into rows of fields. Throws InputError naming `file` and the line on an
/// unterminated quote.
std::vector<CsvRow> parse_csv(std::string_view text, const std::string& file);

/// A data row under its header: the columns in file order and by name.
struct CsvRecord {
  size_t line = 0;  ///< 1-based line of the row's start, for messages
  std::vector<std::pair<std::string, std::string>> columns;
  std::map<std::string, std::string> by_name;
  /// The value of a column; empty when the row or header lacks it.
  const std::string& operator[](const std::string& name) const;
};

/// Parses a headed CSV file into records; throws InputError naming `file` when it is empty.
std::vector<CsvRecord> parse_csv_records(std::string_view text, const std::string& file);

}  // namespace gpusizer
