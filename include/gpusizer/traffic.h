#pragma once
// What a serving fleet is asked to carry and how fast it must answer (docs/contract.md, v2
// "Replicas, traffic and service levels"): the scenario's "traffic" and "slo" objects.
#include <optional>

namespace gpusizer {

/// Open-loop request traffic: requests arrive at a mean rate (Poisson, as vLLM's and SGLang's
/// serving benchmarks send them with --request-rate), with mean prompt and output lengths and,
/// optionally, their 90th percentiles for the spread.
struct Traffic {
  double requests_per_s = 0;
  double prompt_len = 0, output_len = 0;          ///< mean tokens per request
  double prompt_len_p90 = 0, output_len_p90 = 0;  ///< 0: every request has the mean length
};

/// The service level the traffic must meet, at a percentile of the requests.
struct ServiceLevel {
  std::optional<double> ttft_ms;  ///< time to first token
  std::optional<double> tpot_ms;  ///< time per output token after the first
  int percentile = 90;            ///< 50 | 90 | 99
};

}  // namespace gpusizer
