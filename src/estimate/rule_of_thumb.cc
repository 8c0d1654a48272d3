#include "estimate/rule_of_thumb.h"

namespace gpusizer {

RuleOfThumb rule_of_thumb(const Scenario& s, const ParamCounts& params) {
  RuleOfThumb r;
  const double n = static_cast<double>(params.total);
  // The articles' bytes per parameter: FP32 4, FP16/BF16 2, FP8/INT8 1, INT4 0.5.
  const double bits = s.weights->bits_per_value;
  const double bytes = bits >= 24 ? 4.0 : bits >= 12 ? 2.0 : bits >= 6 ? 1.0 : 0.5;
  r.other = 2e9;
  if (s.task == Task::kInference) {
    r.weights = n * bytes;
    r.activations = 0.1 * r.weights;  // "about 10% of the weights at batch 1, sequence 2048"
    r.kv_cache = 0.1 * r.weights;     // "also about 10% in a typical configuration"
    return r;
  }
  const bool adapters = s.task == Task::kLora || s.task == Task::kQlora;
  r.weights = n * (adapters ? bytes : 2.0);
  const double trainable = adapters ? 0.01 * n : n;  // "LoRA trains about 0.1%-1%"
  r.gradients = trainable * 2.0;
  r.optimizer = trainable * 8.0;  // Adam: 2 states x 4 bytes
  r.activations = 0.1 * n * 2.0;  // the table keeps 1.4 GB for 7B in every row
  return r;
}

}  // namespace gpusizer
