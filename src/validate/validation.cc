#include "gpusizer/validation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "gpusizer/error.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/validation.h"

namespace gpusizer {

ValidationReport validate_memory(std::string_view text, const Catalog& catalog) {
  ValidationReport report;
  std::map<std::string, std::vector<double>> by_group;
  std::vector<double> all;
  // Sources whose rows set figures in data/engines.json ("use": "calibrate") and the others
  // (the check half), split by source in tools/make_memory_cases.py.
  std::map<std::string, std::vector<double>> by_use;
  std::map<std::string, MemoryBandCoverage> coverage;
  std::istringstream in{std::string(text)};
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json c;
    CaseResult r;
    try {
      c = nlohmann::json::parse(line);
      if (!c.is_object() || !c.contains("scenario"))
        throw std::invalid_argument("a case is an object with a \"scenario\"");
      if (!c.value("include", false)) {
        ++report.excluded;
        continue;
      }
      r.id = c.value("id", "");
      r.group = c.value("group", "");
      r.compare = c.value("compare", "total_bytes");
      r.measured = c.value("measured", 0.0);
    } catch (const std::exception& e) {
      throw InputError("validation/memory_cases.jsonl line " + std::to_string(line_number),
                       std::string("bad case: ") + e.what(), "bad_file");
    }
    try {
      const nlohmann::json out = estimate_json(c.at("scenario"), catalog);
      const nlohmann::json& mem = out.at("memory");
      if (!mem.contains(r.compare) || !mem[r.compare].is_number())
        throw InputError(r.compare, "not in the estimate");
      r.predicted = mem[r.compare].get<double>();
      // Sources that sum over GPUs are compared with the per-GPU figure times the GPU count.
      if (!c.value("per_gpu", true)) r.predicted *= c.value("num_gpus", 1.0);
      r.error = r.measured > 0 ? (r.predicted - r.measured) / r.measured : 0;
      by_group[r.group].push_back(r.error);
      all.push_back(r.error);
      if (c.contains("use")) by_use[c.value("use", "")].push_back(r.error);
      // Only the device total has a band (memory.low_bytes .. high_bytes).
      if (r.compare == "total_bytes" && c.value("per_gpu", true) && mem.contains("low_bytes")) {
        const bool inside = r.measured >= mem["low_bytes"].get<double>() &&
                            r.measured <= mem["high_bytes"].get<double>();
        for (const std::string& use :
             {c.value("use", std::string("validate")), std::string("all")}) {
          MemoryBandCoverage& b = coverage[use];
          b.use = use;
          ++b.n;
          b.inside += inside;
        }
      }
    } catch (const std::exception& e) {
      r.failure = e.what();
    }
    report.cases.push_back(std::move(r));
  }
  for (auto& [group, errors] : by_group) report.groups.push_back(summarize(group, errors));
  report.groups.push_back(summarize("all", all));
  if (by_use.count("calibrate"))
    report.groups.push_back(summarize("all, calibration sources", by_use["calibrate"]));
  if (by_use.count("validate"))
    report.groups.push_back(summarize("all, check sources", by_use["validate"]));
  for (const auto& [use, b] : coverage) report.band_coverage.push_back(b);
  return report;
}

nlohmann::json to_json(const ValidationReport& report) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : report.groups)
    groups.push_back({{"group", g.group},
                      {"n", g.n},
                      {"median_abs_error", g.median},
                      {"p90_abs_error", g.p90},
                      {"max_abs_error", g.max},
                      {"median_signed_error", g.bias}});
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : report.cases) {
    nlohmann::json j = {{"id", c.id},
                        {"group", c.group},
                        {"compare", c.compare},
                        {"measured", c.measured},
                        {"predicted", c.predicted},
                        {"error", c.error}};
    if (!c.failure.empty()) j["failure"] = c.failure;
    cases.push_back(std::move(j));
  }
  nlohmann::json coverage = nlohmann::json::array();
  for (const auto& b : report.band_coverage)
    coverage.push_back({{"use", b.use},
                        {"n", b.n},
                        {"inside", b.inside},
                        {"share", static_cast<double>(b.inside) / b.n}});
  return {{"memory",
           {{"groups", groups},
            {"cases", cases},
            {"excluded", report.excluded},
            {"band_coverage", coverage}}}};
}

}  // namespace gpusizer
