// The training options' enums and their contract names (gpusizer/training_options.h).
#include "gpusizer/training_options.h"

#include "core/json_fields.h"

namespace gpusizer {
namespace {

// In each enum's order; the contract's spellings (docs/contract.md "training").
const std::vector<std::string> kOptimizers = {"adamw",       "adamw-8bit", "paged-adamw-8bit",
                                              "paged-adamw", "sgd",        "sgd-momentum",
                                              "adafactor",   "lion"};
const std::vector<std::string> kPrecisions = {"bf16", "fp16", "pure-bf16", "fp32", "fp8", "mxfp8"};
const std::vector<std::string> kOffloads = {"none", "optimizer", "optimizer+params"};
// RecomputeModule's bits in order: Megatron-Core transformer_config.py recompute_modules.
const std::vector<std::string> kRecomputeModules = {
    "core_attn", "mla_up_proj", "mlp", "moe", "moe_act", "layernorm", "shared_experts"};

}  // namespace

const std::string& to_string(Optimizer o) {
  return kOptimizers[static_cast<size_t>(o)];
}
const std::string& to_string(MixedPrecision p) {
  return kPrecisions[static_cast<size_t>(p)];
}
const std::string& to_string(Offload o) {
  return kOffloads[static_cast<size_t>(o)];
}

const std::vector<std::string>& optimizer_names() {
  return kOptimizers;
}
const std::vector<std::string>& mixed_precision_names() {
  return kPrecisions;
}
const std::vector<std::string>& offload_names() {
  return kOffloads;
}
const std::vector<std::string>& recompute_module_names() {
  return kRecomputeModules;
}

Optimizer parse_optimizer(std::string_view name, const std::string& field) {
  return static_cast<Optimizer>(name_index(name, kOptimizers, field));
}
MixedPrecision parse_mixed_precision(std::string_view name, const std::string& field) {
  return static_cast<MixedPrecision>(name_index(name, kPrecisions, field));
}
Offload parse_offload(std::string_view name, const std::string& field) {
  return static_cast<Offload>(name_index(name, kOffloads, field));
}

bool is_paged(Optimizer o) {
  return o == Optimizer::kPagedAdamw || o == Optimizer::kPagedAdamw8bit;
}
bool is_8bit(Optimizer o) {
  return o == Optimizer::kAdamw8bit || o == Optimizer::kPagedAdamw8bit;
}
}  // namespace gpusizer
