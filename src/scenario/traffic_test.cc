// The scenario's "traffic" and "slo": lengths, defaults, and one InputError naming the field for
// every bad value (docs/contract.md v2).
#include "scenario/traffic.h"

#include <gtest/gtest.h>

#include "gpusizer/error.h"
#include "gpusizer/json/scenario.h"

namespace gpusizer {
namespace {

Scenario parse(const nlohmann::json& j) {
  return parse_scenario(j, Catalog::builtin());
}

void expect_error(const nlohmann::json& j, const std::string& field, const std::string& text) {
  try {
    parse(j);
    ADD_FAILURE() << "no error for " << j.dump();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

const nlohmann::json kBase = {{"model", "llama-3.1-8b"}, {"engine", "vllm"}};

nlohmann::json with(nlohmann::json extra) {
  nlohmann::json j = kBase;
  j.update(extra);
  return j;
}

TEST(Traffic, ContractExampleAndDefaults) {
  // The contract's example: every field given.
  const Scenario s =
      parse(with({{"traffic",
                   {{"requests_per_s", 20},
                    {"prompt_len", 1000},
                    {"output_len", 200},
                    {"prompt_len_p90", 3000},
                    {"output_len_p90", 500}}},
                  {"slo", {{"ttft_ms", 1000}, {"tpot_ms", 50}, {"percentile", 99}}}}));
  ASSERT_TRUE(s.traffic);
  EXPECT_DOUBLE_EQ(s.traffic->requests_per_s, 20);
  EXPECT_DOUBLE_EQ(s.traffic->prompt_len_p90, 3000);
  EXPECT_EQ(s.slo.percentile, 99);
  EXPECT_DOUBLE_EQ(*s.slo.tpot_ms, 50);
  // With no lengths of its own the scenario takes the traffic's means: 1000 + 200 tokens.
  EXPECT_EQ(s.prompt_len, 1000);
  EXPECT_EQ(s.output_len, 200);
  EXPECT_EQ(s.seq_len, 1200);

  // Default percentile 90; lengths left out of traffic are the scenario's own.
  const Scenario d =
      parse(with({{"prompt_len", 700}, {"output_len", 300}, {"traffic", {{"requests_per_s", 2}}}}));
  EXPECT_EQ(d.slo.percentile, 90);
  EXPECT_FALSE(d.slo.ttft_ms);
  EXPECT_DOUBLE_EQ(d.traffic->prompt_len, 700);
  EXPECT_DOUBLE_EQ(d.traffic->output_len, 300);
  EXPECT_DOUBLE_EQ(d.traffic->prompt_len_p90, 0);  // no spread given: fixed lengths
  EXPECT_FALSE(parse(kBase).traffic);
}

TEST(Traffic, BadFieldsAreNamed) {
  expect_error(with({{"traffic", {{"prompt_len", 100}}}}), "traffic.requests_per_s", "is required");
  expect_error(with({{"traffic", {{"requests_per_s", 0}}}}), "traffic.requests_per_s", "positive");
  expect_error(with({{"traffic", {{"requests_per_s", "fast"}}}}), "traffic.requests_per_s", "");
  expect_error(with({{"traffic", 5}}), "traffic", "object");
  expect_error(with({{"traffic", {{"requests_per_s", 1}, {"rps", 2}}}}), "traffic.rps",
               "is not a field of traffic");
  // A misspelt service level is refused, with the closest name.
  expect_error(with({{"traffic", {{"requests_per_s", 1}}}, {"slo", {{"ttft", 500}}}}), "slo.ttft",
               "ttft_ms");
  expect_error(with({{"traffic", {{"requests_per_s", 1}}}, {"slo", {{"percentile", 95}}}}),
               "slo.percentile", "50, 90 or 99");
  expect_error(with({{"traffic", {{"requests_per_s", 1}}}, {"slo", {{"tpot_ms", -1}}}}),
               "slo.tpot_ms", "");
  // A p90 under the mean, or over 10 x the mean (Markov's inequality), is no length spread.
  expect_error(
      with({{"traffic", {{"requests_per_s", 1}, {"prompt_len", 500}, {"prompt_len_p90", 400}}}}),
      "traffic.prompt_len_p90", "below the mean");
  expect_error(
      with({{"traffic", {{"requests_per_s", 1}, {"output_len", 100}, {"output_len_p90", 1001}}}}),
      "traffic.output_len_p90", "Markov");
  // Traffic is a serving question.
  expect_error({{"model", "llama-3.1-8b"}, {"task", "full"}, {"traffic", {{"requests_per_s", 1}}}},
               "traffic", "serving");
}

TEST(Traffic, SloWithoutTrafficIsANote) {
  const Scenario s = parse(with({{"slo", {{"ttft_ms", 100}}}}));
  EXPECT_FALSE(s.traffic);
  bool noted = false;
  for (const auto& n : s.notes) noted |= n.find("slo applies to traffic") != std::string::npos;
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace gpusizer
