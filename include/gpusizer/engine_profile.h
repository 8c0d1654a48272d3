#pragma once
// Typed engine figures read from data/engines.json.
#include <nlohmann/json.hpp>
#include <string>

namespace gpusizer {

/// DeepSpeed ZeRO-3's parameter-coordinator and bucket settings (engines.json deepspeed.zero3):
/// DeepSpeed's own defaults, and the per-hidden-size rules of the HF "auto" config templates.
struct Zero3Defaults {
  double max_live = 0;         ///< stage3_max_live_parameters
  double max_reuse = 0;        ///< stage3_max_reuse_distance
  double prefetch_bucket = 0;  ///< stage3_prefetch_bucket_size
  double persistence = 0;      ///< stage3_param_persistence_threshold
  double reduce_bucket = 0;    ///< reduce_bucket_size
  double auto_reduce_per_hidden_squared = 0;
  double auto_prefetch_per_hidden_squared = 0;
  double auto_persistence_per_hidden = 0;
  bool hf_auto = false;  ///< buckets: "hf-auto" (the templates' sizes) or DeepSpeed's defaults
};

/// Reads engines.json deepspeed.zero3; throws InputError naming the missing or bad key.
Zero3Defaults read_zero3_defaults(const nlohmann::json& engines, const std::string& file);

}  // namespace gpusizer
