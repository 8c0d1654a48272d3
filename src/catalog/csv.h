#pragma once
// A small RFC 4180 reader for the project's own data files (quoted fields, "" escapes, CRLF).
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpusizer {

using CsvRow = std::vector<std::string>;

/// Parses `text` into rows of fields. Throws InputError naming `file` and the line on an
/// unterminated quote.
std::vector<CsvRow> parse_csv(std::string_view text, const std::string& file);

/// A data row under its header: the columns in file order, found by name through the header's
/// index, which every row of a file shares.
struct CsvRecord {
  using HeaderIndex = std::map<std::string, size_t, std::less<>>;
  size_t line = 0;  ///< 1-based line of the row's start, for messages
  std::vector<std::pair<std::string, std::string>> columns;
  std::shared_ptr<const HeaderIndex> header;
  /// The value of a column; empty when the row or header lacks it.
  const std::string& operator[](std::string_view name) const;
};

/// Parses a headed CSV file into records; throws InputError naming `file` when it is empty.
std::vector<CsvRecord> parse_csv_records(std::string_view text, const std::string& file);

}  // namespace gpusizer
