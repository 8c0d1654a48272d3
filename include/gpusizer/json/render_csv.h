#pragma once
// CSV renderings of the tables (RFC 4180: comma-separated, CRLF line ends, a field holding a
// comma, quote or line break is quoted and its quotes doubled), so they open in a spreadsheet.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace gpusizer {

/// One field, quoted when it must be.
std::string csv_field(std::string_view text);

/// A JSON array of objects as CSV: "store", "id" and "name" first when present, then one column
/// per key in order of first appearance; nested
/// objects become "outer.inner" columns, arrays of scalars one field joined by "; ". Numbers are
/// written in full (no unit conversion), null and missing values as empty fields.
std::string csv_table(const nlohmann::json& rows);

/// The recommendation's options (rank, GPU, count, weights, parallel layout, fit, memory, speed,
/// cost, power, score, reasons) and, after them, the rejected GPUs with why.
std::string render_recommendation_csv(const nlohmann::json& recommendation);

/// The validation report's rows: every memory case and every speed row, with a "set" column.
std::string render_validation_csv(const nlohmann::json& report);

}  // namespace gpusizer
