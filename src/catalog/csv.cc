#include "catalog/csv.h"

#include <algorithm>

#include "gpusizer/error.h"

namespace gpusizer {

std::vector<CsvRow> parse_csv(std::string_view text, const std::string& file) {
  std::vector<CsvRow> rows;
  CsvRow row;
  std::string field;
  size_t line = 1;
  auto end_row = [&] {
    row.push_back(std::move(field));
    field.clear();
    if (!(row.size() == 1 && row[0].empty())) rows.push_back(std::move(row));
    row.clear();
  };
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    if (text[i] == '"') {
      // A quoted run: plain spans appended whole, "" as one quote, up to the closing quote.
      const size_t quote_line = line;
      ++i;
      for (;;) {
        const size_t q = text.find('"', i);
        if (q == std::string_view::npos)
          throw InputError(file, "unterminated quote opened on line " + std::to_string(quote_line),
                           "bad_file");
        const std::string_view span = text.substr(i, q - i);
        line += static_cast<size_t>(std::count(span.begin(), span.end(), '\n'));
        field.append(span);
        i = q + 1;
        if (i < n && text[i] == '"') {
          field += '"';
          ++i;
          continue;
        }
        break;
      }
      continue;
    }
    // An unquoted run up to the next delimiter; carriage returns are dropped.
    // (A plain loop: string_view::find_first_of calls memchr over the set once per byte.)
    size_t end = i;
    while (end < n && text[end] != ',' && text[end] != '\n' && text[end] != '"') ++end;
    const std::string_view span = text.substr(i, end - i);
    if (span.find('\r') == std::string_view::npos) {
      field.append(span);
    } else {
      for (const char c : span)
        if (c != '\r') field += c;
    }
    i = end;
    if (i == n) break;
    if (text[i] == ',') {
      row.push_back(std::move(field));
      field.clear();
      ++i;
    } else if (text[i] == '\n') {
      end_row();
      ++line;
      ++i;
    }
  }
  if (!field.empty() || !row.empty()) end_row();
  return rows;
}

const std::string& CsvRecord::operator[](std::string_view name) const {
  static const std::string empty;
  if (!header) return empty;
  const auto it = header->find(name);
  return it == header->end() || it->second >= columns.size() ? empty : columns[it->second].second;
}

std::vector<CsvRecord> parse_csv_records(std::string_view text, const std::string& file) {
  auto rows = parse_csv(text, file);
  if (rows.empty()) throw InputError(file, "is empty", "bad_file");
  const CsvRow& names = rows[0];
  // A name that repeats in the header reads as its last column, as a map filled in order did.
  auto index = std::make_shared<CsvRecord::HeaderIndex>();
  for (size_t c = 0; c < names.size(); ++c) (*index)[names[c]] = c;
  std::vector<CsvRecord> records;
  records.reserve(rows.size() - 1);
  for (size_t i = 1; i < rows.size(); ++i) {
    CsvRecord r;
    r.line = i + 1;
    r.header = index;
    r.columns.reserve(names.size());
    for (size_t c = 0; c < names.size(); ++c)
      r.columns.emplace_back(names[c], c < rows[i].size() ? std::move(rows[i][c]) : std::string());
    records.push_back(std::move(r));
  }
  return records;
}

}  // namespace gpusizer
