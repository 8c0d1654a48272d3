#include "gpusizer/speed_bands.h"

#include <gtest/gtest.h>

#include "gpusizer/error.h"
#include "gpusizer/json/speed_bands.h"

namespace gpusizer {
namespace {

nlohmann::json doc(nlohmann::json bands) {
  return {{"source", "test"}, {"date", "2026-12-01"}, {"bands", std::move(bands)}};
}

// A rate error e = predicted / measured - 1 puts the measurement at predicted / (1 + e): with
// errors -0.2 .. +0.25, a predicted 100 tokens/s means 100 / 1.25 = 80 .. 100 / 0.8 = 125; a
// predicted 10 ms per token (the same kind, a time) means 10 x 0.8 = 8 .. 10 x 1.25 = 12.5 ms.
TEST(SpeedBands, RatesAndTimesInvertTheSameError) {
  const SpeedBand band{"decode", "*", -0.2, 0.25, 10};
  const auto rate = band_of(100, *figure_kind("decode_tokens_per_s"), band);
  EXPECT_DOUBLE_EQ(rate.first, 80);
  EXPECT_DOUBLE_EQ(rate.second, 125);
  const auto time = band_of(10, *figure_kind("tpot_ms"), band);
  EXPECT_DOUBLE_EQ(time.first, 8);
  EXPECT_DOUBLE_EQ(time.second, 12.5);
  EXPECT_FALSE(figure_kind("weights_bytes"));
}

TEST(SpeedBands, EngineBandFirstThenEveryEngine) {
  const SpeedBands b = read_speed_bands(doc({{{"kind", "decode"},
                                              {"engine", "*"},
                                              {"low_error", -0.1},
                                              {"high_error", 0.1},
                                              {"n", 30}},
                                             {{"kind", "decode"},
                                              {"engine", "vllm"},
                                              {"low_error", -0.3},
                                              {"high_error", 0.2},
                                              {"n", 12}}}),
                                        "speed_bands.json");
  ASSERT_NE(b.find("decode", "vllm"), nullptr);
  EXPECT_EQ(b.find("decode", "vllm")->n, 12);
  EXPECT_EQ(b.find("decode", "hf")->engine, "*");
  EXPECT_EQ(b.find("prefill", "hf"), nullptr);
  EXPECT_EQ(read_speed_bands(to_json(b), "again").bands().size(), 2u);
}

// A mixture-of-experts model's search: "ENGINE/moe", then "*/moe", then the engine's dense band,
// then every engine's; a dense model never takes a "/moe" band. Engines of 1 to 17 bytes cover
// each way the names are compared.
TEST(SpeedBands, MixtureOfExpertsBandsFirst) {
  SpeedBands b;
  b.bands_ = {{"training", "*", -0.1, 0.1, 1},
              {"training", "megatron", -0.1, 0.1, 2},
              {"training", "*/moe", -0.1, 0.1, 3},
              {"training", "megatron/moe", -0.1, 0.1, 4},
              {"training", "deepspeed-zero3", -0.1, 0.1, 5},
              {"training", "abc", -0.1, 0.1, 6},
              {"training", "torchtitan-long-x", -0.1, 0.1, 7}};
  EXPECT_EQ(b.find("training", "megatron", true)->n, 4);
  EXPECT_EQ(b.find("training", "fsdp", true)->n, 3);
  EXPECT_EQ(b.find("training", "megatron", false)->n, 2);
  EXPECT_EQ(b.find("training", "fsdp", false)->n, 1);
  EXPECT_EQ(b.find("training", "deepspeed-zero3", false)->n, 5);
  EXPECT_EQ(b.find("training", "deepspeed-zero2", false)->n, 1);
  EXPECT_EQ(b.find("training", "abc", false)->n, 6);
  EXPECT_EQ(b.find("training", "abd", false)->n, 1);
  EXPECT_EQ(b.find("training", "torchtitan-long-x", false)->n, 7);
  EXPECT_EQ(b.find("training", "torchtitan-long-y", false)->n, 1);
  EXPECT_EQ(b.find("trainin", "megatron", false), nullptr);
  b.bands_.erase(b.bands_.begin() + 2, b.bands_.begin() + 4);  // no "/moe" bands
  EXPECT_EQ(b.find("training", "megatron", true)->n, 2);
  EXPECT_EQ(b.find("training", "fsdp", true)->n, 1);
}

// json::array({x}), not {x}: clang reads a braced single json as a copy of it (CWG 1467), GCC as a
// one-element array.
TEST(SpeedBands, BadFilesNameTheKey) {
  auto field = [](const nlohmann::json& d) {
    try {
      (void)read_speed_bands(d, "speed_bands.json");
    } catch (const InputError& e) {
      return e.field();
    }
    return std::string("accepted");
  };
  const nlohmann::json ok = {
      {"kind", "decode"}, {"engine", "*"}, {"low_error", -0.1}, {"high_error", 0.1}, {"n", 9}};
  EXPECT_EQ(field(doc(nlohmann::json::array({ok}))), "accepted");
  nlohmann::json swapped = ok;
  swapped["low_error"] = 0.5;
  EXPECT_EQ(field(doc(nlohmann::json::array({swapped}))), "speed_bands.json.bands[0].low_error");
  nlohmann::json infinite = ok;
  infinite["high_error"] = -1.0;  // the measurement would be at infinity
  EXPECT_EQ(field(doc(nlohmann::json::array({infinite}))), "speed_bands.json.bands[0].high_error");
  nlohmann::json typo = ok;
  typo["hihg_error"] = 0.1;
  EXPECT_NE(field(doc(nlohmann::json::array({typo}))), "accepted");
  EXPECT_EQ(field({{"date", "x"}, {"bands", nlohmann::json::array()}}), "speed_bands.json.source");
}

}  // namespace
}  // namespace gpusizer
