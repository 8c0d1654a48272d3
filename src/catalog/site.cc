// Reads the site defaults (data/costs.json, data/facility.json) and applies a scenario's
// overrides. The ranges are the same for a data file and for an override.
#include "gpusizer/site.h"

#include <map>
#include <memory>
#include <utility>

#include "catalog/data_json.h"
#include "core/json_fields.h"
#include "gpusizer/error.h"
#include "gpusizer/json/site.h"

namespace gpusizer {
namespace {

struct Range {
  const char* key;
  double min, max;
};

// One list of ranges per file, shared by the defaults reader and the overrides.
constexpr Range kCostRanges[] = {{"usd_to_cny", 0.01, 1000},
                                 {"electricity_usd_per_kwh", 0, 10},
                                 {"pue", 1, 5},
                                 {"amortization_years", 0.1, 30},
                                 {"utilization", 0.01, 1},
                                 {"maintenance_fraction_per_year", 0, 1},
                                 {"hours_per_month", 1, 745}};
constexpr Range kFacilityRanges[] = {
    {"host_base_watts", 0, 1e6}, {"host_watts_per_gpu", 0, 1e5},
    {"power_margin", 0, 2},      {"rack_budget_watts", 100, 1e7},
    {"power_factor", 0.5, 1},    {"consumer_cards_per_closed_chassis", 1, 64}};

double* cost_field(CostAssumptions& a, std::string_view key) {
  if (key == "usd_to_cny") return &a.usd_to_cny;
  if (key == "electricity_usd_per_kwh") return &a.electricity_usd_per_kwh;
  if (key == "pue") return &a.pue;
  if (key == "amortization_years") return &a.amortization_years;
  if (key == "utilization") return &a.utilization;
  if (key == "maintenance_fraction_per_year") return &a.maintenance_fraction_per_year;
  if (key == "hours_per_month") return &a.hours_per_month;
  return nullptr;
}

double* facility_field(Facility& f, std::string_view key) {
  if (key == "host_base_watts") return &f.host_base_watts;
  if (key == "host_watts_per_gpu") return &f.host_watts_per_gpu;
  if (key == "power_margin") return &f.power_margin;
  if (key == "rack_budget_watts") return &f.rack_budget_watts;
  if (key == "power_factor") return &f.power_factor;
  return nullptr;
}

template <size_t N>
std::vector<std::string> keys_of(const Range (&ranges)[N], std::vector<std::string> extra) {
  for (const Range& r : ranges) extra.emplace_back(r.key);
  return extra;
}

// server_usd_per_node: form-factor class -> non-negative USD.
std::shared_ptr<const ServerPrices> read_server_prices(const nlohmann::json& v,
                                                       const std::string& where) {
  if (!v.is_object())
    throw InputError(where, "must be an object of form factor -> USD", "bad_file");
  for (const auto& [k, price] : v.items())
    if (!price.is_number() || !(price.get<double>() >= 0) || price.get<double>() > 1e9)
      throw InputError(where + "." + k, "must be a number of USD between 0 and 1e9", "bad_file");
  auto out = std::make_shared<ServerPrices>();
  for (const auto& [k, price] : v.items()) (*out)[k] = price.get<double>();
  return out;
}

}  // namespace

CostAssumptions read_cost_defaults(const nlohmann::json& doc, const std::string& file) {
  data::reject_unknown_keys(doc, file, keys_of(kCostRanges, {"server_usd_per_node", "date"}));
  CostAssumptions a;
  for (const Range& r : kCostRanges)
    *cost_field(a, r.key) = data::required_number(doc, r.key, file, r.min, r.max);
  if (!doc.contains("server_usd_per_node"))
    throw InputError(file + ".server_usd_per_node", "is missing", "bad_file");
  a.server_usd_per_node =
      read_server_prices(doc.at("server_usd_per_node"), file + ".server_usd_per_node");
  if (!doc.contains("date") || !doc.at("date").is_string())
    throw InputError(file + ".date", "is missing: the date the prices were checked", "bad_file");
  a.date = doc.at("date").get<std::string>();
  return a;
}

Facility read_facility_defaults(const nlohmann::json& doc, const std::string& file) {
  data::reject_unknown_keys(doc, file, keys_of(kFacilityRanges, {}));
  Facility f;
  for (const Range& r : kFacilityRanges) {
    const double v = data::required_number(doc, r.key, file, r.min, r.max);
    if (double* field = facility_field(f, r.key))
      *field = v;
    else
      f.consumer_cards_per_closed_chassis = static_cast<int64_t>(v);
  }
  return f;
}

CostAssumptions with_cost_overrides(CostAssumptions a, const nlohmann::json& overrides) {
  if (overrides.is_null()) return a;
  if (!overrides.is_object()) throw InputError("costs", "must be an object");
  if (overrides.empty()) return a;
  for (const Range& r : kCostRanges)
    if (auto v = read_number(overrides, r.key, "costs", r.min, r.max)) *cost_field(a, r.key) = *v;
  if (auto it = overrides.find("server_usd_per_node"); it != overrides.end()) {
    // The defaults' map is shared (site.h): the overridden prices go into a copy.
    auto prices = a.server_usd_per_node ? std::make_shared<ServerPrices>(*a.server_usd_per_node)
                                        : std::make_shared<ServerPrices>();
    if (it->is_number()) {
      const double v = *read_number(overrides, "server_usd_per_node", "costs", 0, 1e9);
      for (auto& [k, value] : *prices) value = v;
    } else if (it->is_object()) {
      for (const auto& [k, value] : it->items()) {
        if (!value.is_number() || value.get<double>() < 0)
          throw InputError("costs.server_usd_per_node." + k, "must be a non-negative number");
        (*prices)[k] = value.get<double>();
      }
    } else {
      throw InputError("costs.server_usd_per_node", "must be a number or an object");
    }
    a.server_usd_per_node = std::move(prices);
  }
  return a;
}

Facility with_facility_overrides(Facility f, const nlohmann::json& overrides) {
  if (!overrides.is_object() || overrides.empty()) return f;
  for (const Range& r : kFacilityRanges) {
    double* field = facility_field(f, r.key);
    if (!field) continue;  // the chassis rule is the site's, not a scenario's
    if (auto v = read_number(overrides, r.key, "facility", r.min, r.max)) *field = *v;
  }
  return f;
}

}  // namespace gpusizer
