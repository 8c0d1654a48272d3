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

}  // namespace
}  // namespace gpusizer
