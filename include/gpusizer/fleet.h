#pragma once
// Whole machines as they are rented and bought: cloud instance shapes (data/instances.csv) and
// on-prem server form factors (data/servers.csv), each row with its price, date and source.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpusizer/gpu.h"

namespace gpusizer {

/// One cloud instance shape: `gpus` GPUs of one catalog GPU, sold by the hour.
struct CloudInstance {
  std::string provider, name, gpu_id;
  /// The position of gpu_id's row in the GPUs the catalog read with it (Catalog::gpus()), so
  /// that a fleet priced for one of those rows finds its instances without comparing ids.
  size_t gpu_row = 0;
  int64_t gpus = 0;
  double price_per_hour = 0;  ///< in `currency`
  std::string currency;       ///< "USD" or "CNY"
  std::string region;         ///< "us-east-1", "cn-hangzhou", ...; "cn-*" is mainland China
  std::string date, confidence, source;
  /// in_china() and whether the currency is CNY, found when instances.csv is read, so that a
  /// fleet is priced without testing the strings of each instance (issue 18).
  bool china = false, cny = false;
  bool in_china() const { return region.rfind("cn-", 0) == 0; }
};

/// One on-prem server form factor: the chassis and host that hold up to `max_gpus` GPUs.
struct ServerForm {
  std::string id, name;
  std::vector<std::string> holds;  ///< GPU ids, form_factor_class or segment values it takes
  /// holds_gpu of each GPU row the catalog read with it (Catalog::gpus(), by position), found when
  /// servers.csv is read, so that a node planned for one of those rows finds its forms without
  /// comparing strings.
  std::vector<bool> holds_row;
  int64_t max_gpus = 0;
  std::optional<double> chassis_usd;  ///< without GPUs; empty: not sold apart from them
  double host_watts = 0;              ///< CPUs, memory, drives, fans of one node
  double host_watts_per_gpu = 0;      ///< switches, risers, extra fans per GPU slot
  std::string cpu, date, source;
  bool holds_gpu(const Gpu& g) const;
};

}  // namespace gpusizer
