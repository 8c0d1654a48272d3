#include "catalog/csv.h"

#include "gpusizer/error.h"

namespace gpusizer {

std::vector<CsvRow> parse_csv(std::string_view text, const std::string& file) {
  std::vector<CsvRow> rows;
  CsvRow row;
  std::string field;
  bool quoted = false, any = false;
  size_t line = 1, quote_line = 0;
  auto end_field = [&] {
    row.push_back(std::move(field));
    field.clear();
  };
  auto end_row = [&] {
    end_field();
    if (!(row.size() == 1 && row[0].empty())) rows.push_back(std::move(row));
    row.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    any = true;
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
      quote_line = line;
    } else if (c == ',') {
      end_field();
    } else if (c == '\n') {
      end_row();
      ++line;
    } else if (c != '\r') {
      field += c;
    }
  }
  if (quoted)
    throw InputError(file, "unterminated quote opened on line " + std::to_string(quote_line),
                     "bad_file");
  if (any && (!field.empty() || !row.empty())) end_row();
  return rows;
}

const std::string& CsvRecord::operator[](const std::string& name) const {
  static const std::string empty;
  auto it = by_name.find(name);
  return it == by_name.end() ? empty : it->second;
}

std::vector<CsvRecord> parse_csv_records(std::string_view text, const std::string& file) {
  const auto rows = parse_csv(text, file);
  if (rows.empty()) throw InputError(file, "is empty", "bad_file");
  const CsvRow& header = rows[0];
  std::vector<CsvRecord> records;
  for (size_t i = 1; i < rows.size(); ++i) {
    CsvRecord r;
    r.line = i + 1;
    for (size_t c = 0; c < header.size(); ++c) {
      std::string value = c < rows[i].size() ? rows[i][c] : "";
      r.by_name[header[c]] = value;
      r.columns.emplace_back(header[c], std::move(value));
    }
    records.push_back(std::move(r));
  }
  return records;
}

}  // namespace gpusizer
