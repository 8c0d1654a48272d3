#include "gpusizer/json/render_csv.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace gpusizer {
namespace {

using json = nlohmann::json;

std::string scalar_text(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  if (v.is_number()) return fmt::format("{}", v.get<double>());  // shortest exact form
  if (v.is_array()) {
    std::string out;
    for (const auto& x : v) {
      if (!out.empty()) out += "; ";
      out += x.is_structured() ? x.dump() : scalar_text(x);
    }
    return out;
  }
  return v.dump();
}

void flatten(const json& v, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& out) {
  for (const auto& [key, value] : v.items()) {
    const std::string name = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object())
      flatten(value, name, out);
    else
      out.emplace_back(name, scalar_text(value));
  }
}

std::string line(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += csv_field(fields[i]);
  }
  return out + "\r\n";
}

std::string at(const json& row, const char* pointer) {
  const json::json_pointer p(pointer);
  return row.contains(p) ? scalar_text(row.at(p)) : "";
}

}  // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_table(const json& rows) {
  std::vector<std::string> columns;
  std::vector<std::vector<std::pair<std::string, std::string>>> flat;
  for (const auto& row : rows) {
    std::vector<std::pair<std::string, std::string>> cells;
    if (row.is_object())
      flatten(row, "", cells);
    else
      cells.emplace_back("value", scalar_text(row));
    for (const auto& [k, v] : cells)
      if (std::find(columns.begin(), columns.end(), k) == columns.end()) columns.push_back(k);
    flat.push_back(std::move(cells));
  }
  // JSON objects keep their keys sorted; a row's identity reads better first.
  std::stable_sort(columns.begin(), columns.end(), [](const std::string& a, const std::string& b) {
    auto rank = [](const std::string& c) {
      return c == "store" ? 0 : c == "id" ? 1 : c == "name" ? 2 : 3;
    };
    return rank(a) < rank(b);
  });
  std::string out = line(columns);
  for (const auto& cells : flat) {
    std::vector<std::string> fields;
    for (const auto& c : columns) {
      std::string value;
      for (const auto& [k, v] : cells)
        if (k == c) value = v;
      fields.push_back(std::move(value));
    }
    out += line(fields);
  }
  return out;
}

std::string render_recommendation_csv(const json& r) {
  struct Column {
    const char* header;
    const char* pointer;
  };
  const std::vector<Column> cols = {
      {"gpu", "/gpu"},
      {"gpu_count", "/gpu_count"},
      {"weights", "/weights"},
      {"tp", "/parallel/tp"},
      {"pp", "/parallel/pp"},
      {"dp", "/parallel/dp"},
      {"ep", "/parallel/ep"},
      {"fits", "/fits"},
      {"total_bytes_per_gpu", "/estimate/memory/total_bytes"},
      {"max_batch", "/estimate/memory/max_batch"},
      {"decode_tokens_per_s", "/estimate/performance/decode_tokens_per_s"},
      {"max_output_tokens_per_s", "/estimate/performance/max_output_tokens_per_s"},
      {"ttft_ms", "/estimate/performance/ttft_ms"},
      {"train_tokens_per_s", "/estimate/performance/train_tokens_per_s"},
      {"usd_per_hour", "/estimate/cost/usd_per_hour"},
      {"usd_per_million_tokens", "/estimate/cost/usd_per_million_tokens"},
      {"node_watts", "/estimate/power/node_watts"},
      {"replicas", "/replicas"},
      {"nodes", "/nodes"},
      {"instance", "/instance/name"},
      {"instance_count", "/instance/count"},
      {"fleet_usd_per_hour", "/fleet_usd_per_hour"},
      {"racks", "/racks"},
      {"binding", "/binding"},
      {"score", "/score"},
      {"reasons", "/reasons"},
      // Last, so that the columns before keep their places (session 38): training plans choose
      // among engines when the request names none (docs/advisor.md).
      {"engine", "/estimate/scenario/engine"},
  };
  std::vector<std::string> header = {"rank"};
  for (const auto& c : cols) header.emplace_back(c.header);
  std::string out = line(header);
  int rank = 0;
  for (const auto& o : r.value("options", json::array())) {
    std::vector<std::string> f = {std::to_string(++rank)};
    for (const auto& c : cols) f.push_back(at(o, c.pointer));
    out += line(f);
  }
  // The rejected GPUs follow as rows with an empty rank, so nothing is lost in the spreadsheet.
  const auto reasons = std::find(header.begin(), header.end(), "reasons") - header.begin();
  for (const auto& x : r.value("rejected", json::array())) {
    std::vector<std::string> f(header.size());
    f[1] = at(x, "/gpu");
    f[static_cast<size_t>(reasons)] = "rejected: " + at(x, "/why");
    out += line(f);
  }
  return out;
}

std::string render_validation_csv(const json& report) {
  std::string out = line(
      {"set", "id", "group", "compare", "use", "measured", "predicted", "rel_error", "failure"});
  for (const auto& c : report.value("/memory/cases"_json_pointer, json::array()))
    out += line({"memory", at(c, "/id"), at(c, "/group"), at(c, "/compare"), "", at(c, "/measured"),
                 at(c, "/predicted"), at(c, "/error"), at(c, "/failure")});
  for (const auto& c : report.value("/speed/rows"_json_pointer, json::array()))
    out += line({"speed", at(c, "/id"), at(c, "/group"), at(c, "/compare"), at(c, "/use"),
                 at(c, "/measured"), at(c, "/predicted"), at(c, "/rel_error"), at(c, "/error")});
  return out;
}

}  // namespace gpusizer
