#include "gpusizer/engine_profile.h"

#include "catalog/data_json.h"
#include "gpusizer/error.h"

namespace gpusizer {

Zero3Defaults read_zero3_defaults(const nlohmann::json& engines, const std::string& file) {
  const std::string where = file + " deepspeed.zero3";
  const auto& deepspeed = data::required_object(engines, "deepspeed", file);
  const auto& z = data::required_object(deepspeed, "zero3", file + " deepspeed");
  const auto& a = data::required_object(z, "hf_auto", where);
  data::reject_unknown_keys(z, where,
                            {"buckets", "stage3_max_live_parameters", "stage3_max_reuse_distance",
                             "stage3_prefetch_bucket_size", "stage3_param_persistence_threshold",
                             "reduce_bucket_size", "hf_auto"});
  data::reject_unknown_keys(
      a, where + ".hf_auto",
      {"reduce_bucket_size_per_hidden_squared", "stage3_prefetch_bucket_size_per_hidden_squared",
       "stage3_param_persistence_threshold_per_hidden"});
  constexpr double kMax = 1e15;
  Zero3Defaults d;
  d.max_live = data::required_number(z, "stage3_max_live_parameters", where, 0, kMax);
  d.max_reuse = data::required_number(z, "stage3_max_reuse_distance", where, 0, kMax);
  d.prefetch_bucket = data::required_number(z, "stage3_prefetch_bucket_size", where, 0, kMax);
  d.persistence = data::required_number(z, "stage3_param_persistence_threshold", where, 0, kMax);
  d.reduce_bucket = data::required_number(z, "reduce_bucket_size", where, 0, kMax);
  const std::string aw = where + ".hf_auto";
  d.auto_reduce_per_hidden_squared =
      data::required_number(a, "reduce_bucket_size_per_hidden_squared", aw, 0, 1e3);
  d.auto_prefetch_per_hidden_squared =
      data::required_number(a, "stage3_prefetch_bucket_size_per_hidden_squared", aw, 0, 1e3);
  d.auto_persistence_per_hidden =
      data::required_number(a, "stage3_param_persistence_threshold_per_hidden", aw, 0, 1e6);
  if (!z.contains("buckets") || !z.at("buckets").is_string() ||
      (z.at("buckets") != "hf-auto" && z.at("buckets") != "deepspeed-defaults"))
    throw InputError(where + ".buckets", "must be \"deepspeed-defaults\" or \"hf-auto\"",
                     "bad_file");
  d.hf_auto = z.at("buckets") == "hf-auto";
  return d;
}

}  // namespace gpusizer
