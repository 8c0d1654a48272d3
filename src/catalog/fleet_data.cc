#include "catalog/fleet_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "catalog/csv.h"
#include "gpusizer/error.h"

namespace gpusizer {
namespace {

std::string where(const char* file, const CsvRecord& r, const char* column) {
  return fmt::format("{} line {}: {}", file, r.line, column);
}

const std::string& required(const CsvRecord& r, const char* file, const char* column) {
  const std::string& v = r[column];
  if (v.empty()) throw InputError(where(file, r, column), "is missing", "bad_file");
  return v;
}

// A finite number in [min, max] written as nothing but a number; "NA" only when `optional`.
std::optional<double> number(const CsvRecord& r, const char* file, const char* column, double min,
                             double max, bool optional = false) {
  const std::string& text = r[column];
  if (optional && (text.empty() || text == "NA")) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || *end != '\0' || !std::isfinite(v) || v < min ||
      v > max)
    throw InputError(where(file, r, column),
                     fmt::format("must be a number between {} and {}{}, not '{}'", min, max,
                                 optional ? " (or NA)" : "", text),
                     "bad_file");
  return v;
}

int64_t whole(const CsvRecord& r, const char* file, const char* column, double max) {
  const double v = *number(r, file, column, 1, max);
  if (v != std::floor(v))
    throw InputError(where(file, r, column), fmt::format("must be a whole number, not {}", v),
                     "bad_file");
  return static_cast<int64_t>(v);
}

}  // namespace

bool ServerForm::holds_gpu(const Gpu& g) const {
  return std::any_of(holds.begin(), holds.end(), [&](const std::string& h) {
    return h == g.id || h == g.form_factor_class || h == g.segment;
  });
}

std::vector<CloudInstance> parse_instances(std::string_view text, const std::vector<Gpu>& gpus) {
  constexpr const char* kFile = "instances.csv";
  std::vector<CloudInstance> out;
  for (const CsvRecord& r : parse_csv_records(text, kFile)) {
    CloudInstance i;
    i.provider = required(r, kFile, "provider");
    i.name = required(r, kFile, "instance");
    i.gpu_id = required(r, kFile, "gpu");
    const auto row =
        std::find_if(gpus.begin(), gpus.end(), [&](const Gpu& g) { return g.id == i.gpu_id; });
    if (row == gpus.end())
      throw InputError(where(kFile, r, "gpu"), "'" + i.gpu_id + "' is not a GPU id of gpus.csv",
                       "bad_file");
    i.gpu_row = static_cast<size_t>(row - gpus.begin());
    i.gpus = whole(r, kFile, "gpus", 1024);
    i.price_per_hour = *number(r, kFile, "price_per_hour", 0.001, 1e6);
    i.currency = required(r, kFile, "currency");
    if (i.currency != "USD" && i.currency != "CNY")
      throw InputError(where(kFile, r, "currency"), "must be USD or CNY, not '" + i.currency + "'",
                       "bad_file");
    i.region = required(r, kFile, "region");
    i.china = i.in_china();
    i.cny = i.currency == "CNY";
    i.date = required(r, kFile, "date");
    i.confidence = r["confidence"];
    i.source = required(r, kFile, "source");
    out.push_back(std::move(i));
  }
  return out;
}

std::vector<ServerForm> parse_servers(std::string_view text, const std::vector<Gpu>& gpus) {
  constexpr const char* kFile = "servers.csv";
  std::vector<ServerForm> out;
  for (const CsvRecord& r : parse_csv_records(text, kFile)) {
    ServerForm s;
    s.id = required(r, kFile, "id");
    s.name = required(r, kFile, "name");
    const std::string& holds = required(r, kFile, "holds");
    for (size_t start = 0; start <= holds.size();) {
      const size_t end = std::min(holds.find(';', start), holds.size());
      if (end > start) s.holds.push_back(holds.substr(start, end - start));
      start = end + 1;
    }
    s.holds_row.reserve(gpus.size());
    for (const Gpu& g : gpus) s.holds_row.push_back(s.holds_gpu(g));
    s.max_gpus = whole(r, kFile, "max_gpus", 1024);
    s.chassis_usd = number(r, kFile, "chassis_usd", 0, 1e8, /*optional=*/true);
    s.host_watts = *number(r, kFile, "host_watts", 0, 1e6);
    s.host_watts_per_gpu = *number(r, kFile, "host_watts_per_gpu", 0, 1e5);
    s.cpu = r["cpu"];
    s.date = required(r, kFile, "date");
    s.source = required(r, kFile, "source");
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace gpusizer
