// The "bands" basis line (estimate/bands.cc): each band's line as data/speed_bands.json's rows
// give it, whether the thread wrote it before or not.
#include "estimate/bands.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "gpusizer/estimate.h"
#include "gpusizer/json/scenario.h"

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

}  // namespace
}  // namespace gpusizer
