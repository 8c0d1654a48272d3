#include "local_commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "gpusizer/calibrate.h"
#include "gpusizer/error.h"
#include "gpusizer/json/calibrate.h"
#include "gpusizer/json/json_text.h"
#include "gpusizer/json/log_check.h"
#include "gpusizer/json/render_csv.h"
#include "gpusizer/log_reader.h"
#include "gpusizer/model_store.h"
#include "gpusizer/regular_file.h"
#include "gpusizer/speed_profile.h"

namespace gpusizer::cli {
namespace {

constexpr uint64_t kMaxLog = uint64_t{512} << 20;  // start-up logs are far smaller

// A log or figures file: a checked name and a regular file (gpusizer/regular_file.h), or
// standard input, at most 512 MiB either way.
std::string read_file(const std::string& path) {
  if (path != "-") return read_regular_file(path, kMaxLog, path);
  std::string text;
  char buffer[1 << 16];
  while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(std::cin.gcount()));
    if (text.size() > kMaxLog) throw InputError("-", "standard input is larger than 512 MiB");
  }
  return text;
}

// A throughput_cases.jsonl file (the shipped measurement format): its first line is an object
// with "compare", "measured" and "scenario".
bool is_speed_cases(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return false;
  const size_t end = text.find('\n', first);
  try {
    const auto j =
        nlohmann::json::parse(text.substr(first, end == text.npos ? text.npos : end - first));
    return j.is_object() && j.contains("compare") && j.contains("measured") &&
           j.contains("scenario");
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

}  // namespace

int run_local_models(const std::string& format) {
  nlohmann::json rows = nlohmann::json::array();
  for (const LocalListing& l : list_local_models({parse_store_list("all", ""), process_env()})) {
    nlohmann::json row = {{"store", store_id(l.model.store)},
                          {"name", l.model.name},
                          {"bytes", l.bytes},
                          {"path", l.model.path}};
    if (!l.error.empty()) row["error"] = l.error;
    rows.push_back(row);
  }
  if (format == "json" || format == "jsonl") {
    std::cout << json_text(rows, format == "json" ? 2 : -1) << "\n";
    return 0;
  }
  if (format == "csv") {
    std::cout << csv_table(rows);
    return 0;
  }
  const bool md = format == "markdown";
  std::string out = md ? "| store | model | GiB | path |\n|---|---|---:|---|\n"
                       : fmt::format("{:<12}{:<48}{:>9}  {}\n", "store", "model", "GiB", "path");
  for (const auto& r : rows) {
    const std::string size =
        r.contains("error")
            ? "-"
            : fmt::format("{:.2f}", r["bytes"].get<double>() / (1024.0 * 1024 * 1024));
    const std::string where = r.contains("error") ? "broken: " + r["error"].get<std::string>()
                                                  : r["path"].get<std::string>();
    out += md ? fmt::format("| {} | {} | {} | {} |\n", r["store"].get<std::string>(),
                            r["name"].get<std::string>(), size, where)
              : fmt::format("{:<12}{:<48}{:>9}  {}\n", r["store"].get<std::string>(),
                            r["name"].get<std::string>(), size, where);
  }
  if (rows.empty())
    out += "(no models found in the Hugging Face cache, ModelScope's cache or Ollama's store)\n";
  std::cout << out;
  return 0;
}

}  // namespace gpusizer::cli

namespace gpusizer::cli {

int run_check(const std::string& path, const nlohmann::json& flags, const Catalog& catalog,
              const std::string& format) {
  const LogReading log = read_log(read_file(path), path);
  const nlohmann::json check = check_log(log, flags, catalog);
  if (format == "json" || format == "jsonl")
    std::cout << json_text(check, format == "json" ? 2 : -1) << "\n";
  else
    std::cout << render_check(check, format == "markdown");
  for (const auto& r : check["runs"])
    if (r.contains("error")) return 2;
  return 0;
}

namespace {

// What calibrate reads: the speed rows to fit and, from a log, its memory figures (checked, not
// fitted).
struct CalibrationInput {
  std::vector<SpeedCase> cases;
  std::optional<nlohmann::json> memory;
};

CalibrationInput read_calibration_input(const std::string& path, const nlohmann::json& flags,
                                        const Catalog& catalog) {
  const std::string text = read_file(path);
  CalibrationInput in;
  if (is_speed_cases(text)) {
    // The user's own rows calibrate unless they say otherwise ("use": "validate").
    in.cases = read_speed_cases(text, "calibrate");
    for (auto& c : in.cases)
      if (c.scenario.is_object())
        for (const auto& [k, v] : flags.items())
          if (!c.scenario.contains(k)) c.scenario[k] = v;
  } else {
    const LogReading log = read_log(text, path);
    in.cases = speed_cases_from_log(log, flags, catalog);
    in.memory = check_log(log, flags, catalog);
  }
  return in;
}

// One row's columns: predicted and error before and after the fit, and what happened to it.
std::string calibration_row(const PreparedCase& c, const nlohmann::json* before,
                            const nlohmann::json* after, size_t id_width) {
  std::string status;
  std::string pb = "-", eb = "-", pa = "-", ea = "-";
  if (!c.spec.include) {
    status = "excluded: " +
             (c.spec.exclude_reason.empty() ? std::string("include false") : c.spec.exclude_reason);
  } else if (before->contains("predicted")) {
    pb = fmt::format("{:.4g}", (*before)["predicted"].get<double>());
    eb = fmt::format("{:+.1f}%", 100 * (*before)["rel_error"].get<double>());
    pa = fmt::format("{:.4g}", (*after)["predicted"].get<double>());
    ea = fmt::format("{:+.1f}%", 100 * (*after)["rel_error"].get<double>());
    status = c.spec.use == "calibrate" ? "fitted" : "checked (use " + c.spec.use + ")";
  } else {
    status = "not estimated: " + before->value("error", std::string("no prediction"));
  }
  return fmt::format("  {:<{}}{:<24}{:>11.4g}{:>11}{:>9}{:>11}{:>9}  {}\n", c.spec.id, id_width,
                     c.spec.compare, c.spec.measured, pb, eb, pa, ea, status);
}

// Every row read, with what happened to it. `before` and `after` hold one row per included case.
void print_calibration_rows(const std::string& path, const std::vector<SpeedCase>& cases,
                            const std::vector<PreparedCase>& prepared, const nlohmann::json& before,
                            const nlohmann::json& after) {
  size_t id_width = 4;
  for (const auto& c : cases) id_width = std::max(id_width, c.id.size() + 2);
  std::cout << fmt::format("read {} speed rows from {}\n", cases.size(), path);
  std::cout << fmt::format("  {:<{}}{:<24}{:>11}{:>11}{:>9}{:>11}{:>9}  {}\n", "id", id_width,
                           "compare", "measured", "before", "error", "after", "error", "row");
  for (size_t i = 0, k = 0; i < prepared.size(); ++i) {
    const bool included = prepared[i].spec.include;
    std::cout << calibration_row(prepared[i], included ? &before[k] : nullptr,
                                 included ? &after[k] : nullptr, id_width);
    if (included) ++k;
  }
}

// A log's memory figures beside the estimate (speed figures are the fitted rows).
void print_memory_figures(const nlohmann::json& memory) {
  int rows = 0;
  for (const auto& r : memory["runs"])
    for (const auto& row : r["rows"])
      if (!std::string_view(row["unit"].get<std::string>()).starts_with("tokens/") &&
          row["unit"] != "ms" && row["unit"] != "s")
        ++rows;
  if (rows == 0) return;
  std::cout << fmt::format(
      "\n{} memory figures read: checked against the estimate, not fitted (the fit is of "
      "speed efficiencies)\n",
      rows);
  std::cout << render_check(memory, false);
}

// The loss before and after, and the parameters the fit moved (the rows may not bear on the
// others).
void print_fit(const CalibrationResult& result, const SpeedProfile& start) {
  std::cout << fmt::format("\ncalibrated on {} rows: mean squared log error {:.4f} -> {:.4f}\n",
                           result.n, result.loss_before, result.loss_after);
  int unchanged = 0;
  for (const auto& [pointer, value] : result.fitted) {
    const nlohmann::json::json_pointer p(pointer);
    const bool same = start.doc().contains(p) && start.doc().at(p).is_number() &&
                      start.doc().at(p).get<double>() == value;
    if (same)
      ++unchanged;
    else
      std::cout << fmt::format("  {:<50} {:.4g} (was {:.4g})\n", pointer, value,
                               start.doc().contains(p) ? start.doc().at(p).get<double>() : 0.0);
  }
  if (unchanged > 0) std::cout << fmt::format("  ({} parameters unchanged)\n", unchanged);
}

void write_profile(const nlohmann::json& profile, const std::string& output) {
  if (output.empty()) {
    std::cout << "profile not written: give -o FILE (then --data-dir DIR holding it as "
                 "speed.json)\n";
    return;
  }
  check_path_text(output, "--output");
  std::ofstream out(output);
  if (!out) throw InputError("--output", "cannot write '" + output + "'", "bad_file");
  out << profile.dump(2) << "\n";
  std::cout << "wrote " << output << " (use it with --data-dir DIR holding speed.json)\n";
}

}  // namespace

int run_calibrate(const std::string& path, const nlohmann::json& flags, const Catalog& catalog,
                  const std::string& output) {
  if (!output.empty()) check_path_text(output, "--output");
  const CalibrationInput in = read_calibration_input(path, flags, catalog);
  const auto prepared = prepare_speed_cases(in.cases, catalog);
  const SpeedProfile& start = catalog.speed();
  const CalibrationResult result = calibrate_speed(prepared, catalog, start);
  const SpeedProfile fitted = SpeedProfile::from_json(result.profile);
  const nlohmann::json before = to_json(validate_speed(prepared, catalog, start))["rows"];
  const nlohmann::json after = to_json(validate_speed(prepared, catalog, fitted))["rows"];
  print_calibration_rows(path, in.cases, prepared, before, after);
  if (in.memory) print_memory_figures(*in.memory);
  print_fit(result, start);
  write_profile(result.profile, output);
  return 0;
}

}  // namespace gpusizer::cli
