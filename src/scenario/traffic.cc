// "traffic" and "slo": checked field by field. Unknown keys are refused (not noted, as other
// objects' are): a misspelt service level would otherwise pass unchecked.
#include "scenario/traffic.h"

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/json_fields.h"
#include "gpusizer/error.h"
#include "gpusizer/names.h"

namespace gpusizer {
namespace {

constexpr double kMaxTokens = 1e8;  // as scenario.cc: beyond any model's context
constexpr double kMaxRate = 1e7;    // requests per second: far past any fleet

const std::vector<std::string> kTrafficKeys = {"requests_per_s", "prompt_len", "output_len",
                                               "prompt_len_p90", "output_len_p90"};
const std::vector<std::string> kSloKeys = {"ttft_ms", "tpot_ms", "percentile"};

void reject_unknown(const nlohmann::json& obj, const std::string& path,
                    const std::vector<std::string>& known) {
  for (const auto& [key, value] : obj.items()) {
    (void)value;
    bool ok = false;
    for (const auto& k : known) ok |= k == key;
    if (ok) continue;
    std::string msg = "is not a field of " + path;
    const auto near = closest_names(key, known);
    msg += near.empty() ? "; its fields are" : "; did you mean";
    const auto& list = near.empty() ? known : near;
    for (size_t i = 0; i < list.size(); ++i) msg += (i ? ", " : " ") + list[i];
    throw InputError(path + "." + key, msg, "unknown_field");
  }
}

const nlohmann::json* object_at(const nlohmann::json* it, const char* key) {
  if (!it || it->is_null()) return nullptr;
  if (!it->is_object())
    throw InputError(key, std::string("must be an object, not ") + it->type_name());
  return &*it;
}

// A p90 below the mean is a left-skewed length distribution, which request lengths are not;
// above 10 x the mean it is impossible for lengths that are never negative (Markov's
// inequality: P(L >= 10 mean) <= 0.1).
void check_spread(double mean, double p90, const char* field) {
  if (p90 <= 0) return;
  if (p90 < mean)
    throw InputError(std::string("traffic.") + field,
                     fmt::format("{:g} is below the mean of {:g}: give the 90th percentile, at "
                                 "least the mean",
                                 p90, mean),
                     "out_of_range");
  if (p90 > 10.0 * mean)
    throw InputError(std::string("traffic.") + field,
                     fmt::format("{:g} is more than 10 x the mean of {:g}, which no distribution "
                                 "of non-negative lengths has (Markov's inequality)",
                                 p90, mean),
                     "out_of_range");
}

}  // namespace

void follow_scenario_lengths(Traffic& tr, const Scenario& s, bool prompt_given, bool output_given) {
  if (!prompt_given) tr.prompt_len = static_cast<double>(std::max<int64_t>(1, s.prompt_len));
  if (!output_given) tr.output_len = static_cast<double>(std::max<int64_t>(1, s.output_len));
  check_spread(tr.prompt_len, tr.prompt_len_p90, "prompt_len_p90");
  check_spread(tr.output_len, tr.output_len_p90, "output_len_p90");
}

void parse_traffic(const ScenarioFields& input, Scenario& s) {
  const nlohmann::json* t = object_at(input.at[key::traffic], "traffic");
  const nlohmann::json* slo = object_at(input.at[key::slo], "slo");
  if (!t) {
    if (slo) s.notes.emplace_back("slo applies to traffic: give traffic.requests_per_s; ignored");
    return;
  }
  if (s.task != Task::kInference)
    throw InputError("traffic", "applies to serving (task inference), not " + to_string(s.task));
  reject_unknown(*t, "traffic", kTrafficKeys);
  Traffic tr;
  const auto rate = read_number(*t, "requests_per_s", "traffic", 0, kMaxRate);
  if (!rate || *rate <= 0)
    throw InputError("traffic.requests_per_s",
                     rate ? "must be positive" : "is required: the mean arrival rate of requests",
                     rate ? "out_of_range" : "missing_field");
  tr.requests_per_s = *rate;
  const auto prompt = read_number(*t, "prompt_len", "traffic", 1, kMaxTokens);
  const auto output = read_number(*t, "output_len", "traffic", 1, kMaxTokens);
  if (prompt) tr.prompt_len = *prompt;
  if (output) tr.output_len = *output;
  tr.prompt_len_p90 = read_number(*t, "prompt_len_p90", "traffic", 1, kMaxTokens).value_or(0);
  tr.output_len_p90 = read_number(*t, "output_len_p90", "traffic", 1, kMaxTokens).value_or(0);
  follow_scenario_lengths(tr, s, prompt.has_value(), output.has_value());
  // The scenario's own lengths follow the traffic's means unless the scenario gives them.
  if (!input.given(key::prompt_len) && !input.given(key::output_len) &&
      !input.given(key::seq_len)) {
    s.prompt_len = std::max<int64_t>(1, std::llround(tr.prompt_len));
    s.output_len = std::max<int64_t>(1, std::llround(tr.output_len));
    s.seq_len = s.prompt_len + s.output_len;
  }
  s.traffic = tr;

  if (!slo) return;
  reject_unknown(*slo, "slo", kSloKeys);
  s.slo.ttft_ms = read_number(*slo, "ttft_ms", "slo", 0.001, 1e9);
  s.slo.tpot_ms = read_number(*slo, "tpot_ms", "slo", 0.001, 1e9);
  if (auto p = read_int(*slo, "percentile", "slo", 1, 100)) {
    if (*p != 50 && *p != 90 && *p != 99)
      throw InputError("slo.percentile", fmt::format("must be 50, 90 or 99, not {}", *p),
                       "out_of_range");
    s.slo.percentile = static_cast<int>(*p);
  }
}

}  // namespace gpusizer
