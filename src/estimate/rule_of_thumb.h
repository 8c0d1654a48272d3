#pragma once
// The source articles' arithmetic, reproduced exactly so users can see it beside the analytic
// estimate: weights = params x bytes; activations 10% of the 16-bit weights; KV cache 10% of the
// weights; 2 GB of other overhead; gradients 2 B and Adam 8 B per trainable parameter, where
// LoRA trains 1% of the parameters. Decimal GB throughout, as the articles print.
#include "gpusizer/estimate.h"

namespace gpusizer {

struct RuleOfThumb {
  double weights = 0, activations = 0, kv_cache = 0, gradients = 0, optimizer = 0, other = 0;
  double total() const { return weights + activations + kv_cache + gradients + optimizer + other; }
};

/// The articles' estimate (seeds/002, sec. 1.1-1.2) for the scenario's parameter count, `params`
/// = count_params(*s.model) (the answer's ModelCounts::params: not counted again, issue 18).
RuleOfThumb rule_of_thumb(const Scenario& s, const ParamCounts& params);

}  // namespace gpusizer
