// The "bands" basis line (estimate/bands.cc): each band's line as data/speed_bands.json's rows
// give it, whether the thread wrote it before or not.
#include "estimate/bands.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "gpusizer/estimate.h"
#include "gpusizer/explanations.h"
#include "gpusizer/json/scenario.h"
#include "gpusizer/speed_bands.h"
#include "speed/training_speed.h"

namespace gpusizer {
namespace {

// What follows the basis' preamble, for Llama-3.1-8B on an RTX 4090 served by `engine`.
std::string band_lines(const char* engine) {
  const Catalog& catalog = Catalog::builtin();
  const Scenario s = parse_scenario(
      {{"model", "llama-3.1-8b"}, {"engine", engine}, {"gpu", "rtx-4090-24gb"}}, catalog);
  const Estimate e = estimate(s, catalog);
  const std::string_view text = e.basis.at("bands");
  const size_t at = text.find("inverse): ");
  EXPECT_NE(at, std::string_view::npos) << text;
  return std::string(text.substr(at + 10));
}

// Percentages by hand from data/speed_bands.json, 100 x (1 / (1 + error) - 1) rounded: decode
// on all engines and on llama.cpp (0.50745, -0.20284) -34% and +25%; prefill on all engines and on
// llama.cpp (0.43886, -0.29928) -31% and +43%; throughput on vLLM (0.18744, -0.18680) -16% and
// +23%, on all engines (0.63382, -0.17980) -39% and +22%. vLLM's lines again after llama.cpp's, and
// a third time.
TEST(SpeedBands, BandLinesFromTheirRowsWrittenOrKept) {
  const std::string vllm =
      "decode on all engines: measured rate -34% to +25% of the predicted (n=54); prefill on all "
      "engines: measured rate -31% to +43% of the predicted (n=51); throughput on vllm: measured "
      "rate -16% to +23% of the predicted (n=47)";
  const std::string llama_cpp =
      "decode on llama.cpp: measured rate -34% to +25% of the predicted (n=43); prefill on "
      "llama.cpp: measured rate -31% to +43% of the predicted (n=46); throughput on all engines: "
      "measured rate -39% to +22% of the predicted (n=223)";
  EXPECT_EQ(band_lines("vllm"), vllm);
  EXPECT_EQ(band_lines("llama.cpp"), llama_cpp);
  EXPECT_EQ(band_lines("vllm"), vllm);
  EXPECT_EQ(band_lines("vllm"), vllm);
  EXPECT_EQ(band_lines("llama.cpp"), llama_cpp);
}

// The whole text as the thread keeps it: the text its bands' fields write, whichever object
// holds them. Percentages by hand, 100 x (1 / (1 + error) - 1) rounded: decode (0.5, -0.2) -33%
// and +25%; throughput (0.25, -0.2) -20% and +25%. A copy of the bands writes the same text; a
// count changed in place (the same objects at the same addresses) writes its own, and the first
// text comes back with the first count.
TEST(SpeedBands, WholeTextFollowsTheBandsFields) {
  const Catalog& catalog = Catalog::builtin();
  const Scenario s = parse_scenario(
      {{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu", "rtx-4090-24gb"}}, catalog);
  SpeedBands bands;
  bands.bands_ = {{"decode", "*", -0.2, 0.5, 10}, {"throughput", "vllm", -0.2, 0.25, 7}};
  auto lines = [&s](const SpeedBands& b) {
    PerformanceEstimate p;
    p.decode_tokens_per_s = 100;
    p.max_output_tokens_per_s = 50;
    CostEstimate cost;
    Explanations why;
    add_speed_bands(s, b, p, cost, &why);
    const std::string_view text = why.basis.at("bands");
    return std::string(text.substr(text.find("inverse): ") + 10));
  };
  const std::string first =
      "decode on all engines: measured rate -33% to +25% of the predicted (n=10); throughput on "
      "vllm: measured rate -20% to +25% of the predicted (n=7)";
  EXPECT_EQ(lines(bands), first);
  const SpeedBands copy = bands;
  EXPECT_EQ(lines(copy), first);
  bands.bands_[1].n = 8;
  EXPECT_EQ(lines(bands),
            "decode on all engines: measured rate -33% to +25% of the predicted (n=10); "
            "throughput on vllm: measured rate -20% to +25% of the predicted (n=8)");
  bands.bands_[1].n = 7;
  EXPECT_EQ(lines(bands), first);
  bands.bands_[0].high_error = 1.0;  // decode -50%
  EXPECT_EQ(lines(bands),
            "decode on all engines: measured rate -50% to +25% of the predicted (n=10); "
            "throughput on vllm: measured rate -20% to +25% of the predicted (n=7)");
}

// A training step's bands stop at the MFU ceiling. The band (errors -0.6, +0.5) lets a rate
// reach 1 / (1 - 0.6) = 2.5 x the predicted; at MFU 0.5 under a ceiling of 0.8 it can reach only
// 0.8 / 0.5 = 1.6 x: 1,000 tokens/s -> high 1,600 (not 2,500), MFU high 0.8, a 10 s step's low
// 10 / 1.6 = 6.25 s (not 10 x 0.4 = 4 s). Lows of rates and highs of times stay the band's:
// 1,000 / 1.5 = 666.67 and 15 s. Under a ceiling of 0.9 at MFU 0.2 (room 4.5 x) nothing moves.
TEST(SpeedBands, TrainingBandsStopAtTheMfuCeiling) {
  const Catalog& catalog = Catalog::builtin();
  const Scenario s = parse_scenario(
      {{"model", "llama-3.1-8b"}, {"task", "full"}, {"engine", "megatron"}, {"gpu", "h100"}},
      catalog);
  SpeedBands bands;
  bands.bands_ = {{"training", "*", -0.6, 0.5, 20}};
  auto banded = [&](double mfu, double ceiling, Explanations& why) {
    PerformanceEstimate p;
    p.train_tokens_per_s = 1000;
    p.step_time_s = 10;
    p.mfu = mfu;
    CostEstimate cost;
    add_speed_bands(s, bands, p, cost, &why, ceiling);
    return p.bands;
  };
  Explanations why;
  const auto held = banded(0.5, 0.8, why);
  EXPECT_DOUBLE_EQ(held.at("train_tokens_per_s").second, 1600);
  EXPECT_NEAR(held.at("train_tokens_per_s").first, 666.667, 1e-3);
  EXPECT_DOUBLE_EQ(held.at("mfu").second, 0.8);
  EXPECT_DOUBLE_EQ(held.at("step_time_s").first, 6.25);
  EXPECT_DOUBLE_EQ(held.at("step_time_s").second, 15);
  EXPECT_TRUE(why.basis.at("bands").ends_with(
      "(n=20); highs held to MFU 80.0%: the GPU's maximum achievable matmul rate "
      "(data/speed.json achievable_matmul)"));
  Explanations free_why;
  const auto free = banded(0.2, 0.9, free_why);
  EXPECT_DOUBLE_EQ(free.at("train_tokens_per_s").second, 2500);
  EXPECT_DOUBLE_EQ(free.at("step_time_s").first, 4);
  EXPECT_TRUE(free_why.basis.at("bands").ends_with("(n=20)"));
}

// Serving bands stop at each phase's roofline (PerformanceEstimate::peak_room). The decode band
// (errors -0.2, +0.5) lets a rate reach 1 / 0.8 = 1.25 x the predicted; a decode step 1.1 x its
// hardware floor can be only 1.1 x faster: 100 tokens/s -> high 110 (not 125), a 10 ms TPOT's
// low 10 / 1.1 = 9.0909 ms (not 8). Its lows of rates and highs of times stay the band's: 100 /
// 1.5 = 66.67 and 15 ms. A prefill 2 x its floor keeps the band's 1.25 x: nothing moves, and
// the text says the highs are held only where one is.
TEST(SpeedBands, ServingBandsStopAtTheRoofline) {
  const Catalog& catalog = Catalog::builtin();
  const Scenario s =
      parse_scenario({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu", "h100"}}, catalog);
  SpeedBands bands;
  bands.bands_ = {{"decode", "*", -0.2, 0.5, 30}, {"prefill", "*", -0.2, 0.5, 30}};
  auto banded = [&](double decode_room, Explanations& why) {
    PerformanceEstimate p;
    p.decode_tokens_per_s = 100;
    p.tpot_ms = 10;
    p.prefill_tokens_per_s = 5000;
    p.peak_room.decode = decode_room;
    p.peak_room.prefill = 2;
    CostEstimate cost;
    add_speed_bands(s, bands, p, cost, &why, 0);
    return p.bands;
  };
  Explanations why;
  const auto held = banded(1.1, why);
  EXPECT_DOUBLE_EQ(held.at("decode_tokens_per_s").second, 110);
  EXPECT_NEAR(held.at("decode_tokens_per_s").first, 66.6667, 1e-4);
  EXPECT_NEAR(held.at("tpot_ms").first, 9.0909, 1e-4);
  EXPECT_DOUBLE_EQ(held.at("tpot_ms").second, 15);
  EXPECT_DOUBLE_EQ(held.at("prefill_tokens_per_s").second, 6250);
  EXPECT_TRUE(why.basis.at("bands").ends_with(
      "; serving highs held to the roofline: each phase's FLOPs at the GPU's peak rate or its "
      "bytes at its peak bandwidth, whichever binds"))
      << why.basis.at("bands");
  Explanations free_why;
  const auto free = banded(1.3, free_why);
  EXPECT_DOUBLE_EQ(free.at("decode_tokens_per_s").second, 125);
  EXPECT_DOUBLE_EQ(free.at("tpot_ms").first, 8);
  EXPECT_TRUE(free_why.basis.at("bands").ends_with("(n=30)")) << free_why.basis.at("bands");
}

// The ceiling is the GPU's measured MAMF for the step's GEMMs (data/speed.json
// achievable_matmul, Bekman's table): GB200 1,822 of 2,500 TFLOPS bf16 = 0.729, and its FP8
// figure 0.723; fp32 steps, which no table measures, keep MFU <= 1.
TEST(SpeedBands, MfuCeilingIsTheGpusMeasuredMatmulFraction) {
  const Catalog& catalog = Catalog::builtin();
  auto ceiling = [&](const char* precision) {
    const Scenario s = parse_scenario({{"model", "llama-3.1-8b"},
                                       {"task", "pretrain"},
                                       {"engine", "megatron"},
                                       {"gpu", "gb200-186gb"},
                                       {"training", {{"mixed_precision", precision}}}},
                                      catalog);
    return mfu_ceiling(s, catalog.speed());
  };
  EXPECT_DOUBLE_EQ(ceiling("bf16"), 0.729);
  EXPECT_DOUBLE_EQ(ceiling("fp8"), 0.723);
  EXPECT_DOUBLE_EQ(ceiling("fp32"), 1.0);
}

}  // namespace
}  // namespace gpusizer
