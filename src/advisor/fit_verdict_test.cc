// The verdict of an estimate: a scenario that does not fit loses its speed figures; a context
// past the model's maximum is the first warning.
#include "gpusizer/fit_verdict.h"
#include "gpusizer/json/scenario.h"

#include <gtest/gtest.h>

namespace gpusizer {
namespace {

// Llama-2-7B's context is 4096 tokens (max_position_embeddings): seq_len 8192 is past it.
TEST(FitVerdict, NotFittingDropsFiguresAndContextWarningComesFirst) {
  const Scenario s =
      parse_scenario({{"model", "llama-2-7b"}, {"seq_len", 8192}}, Catalog::builtin());
  Estimate e;
  e.memory.fits = false;
  e.performance = PerformanceEstimate{};
  e.warnings = {"first", "seq_len 8192 exceeds the model's context of 4096 tokens", "last"};
  const FitVerdict v = apply_fit_verdict(s, e);
  EXPECT_EQ(v.fits, false);
  EXPECT_FALSE(v.keeps_figures);
  EXPECT_FALSE(e.performance.has_value());
  EXPECT_EQ(v.max_context, 4096);
  ASSERT_TRUE(v.context_warning.has_value());
  EXPECT_EQ(e.warnings,
            (std::vector<std::string>{"seq_len 8192 exceeds the model's context of 4096 tokens",
                                      "first", "last"}));
}

// Within the context and fitting: the figures stay, no context warning; without a GPU there is
// no verdict on fitting at all.
TEST(FitVerdict, FittingKeepsFigures) {
  const Scenario s = parse_scenario({{"model", "llama-2-7b"}}, Catalog::builtin());
  Estimate e;
  e.memory.fits = true;
  e.performance = PerformanceEstimate{};
  const FitVerdict v = apply_fit_verdict(s, e);
  EXPECT_TRUE(v.keeps_figures);
  EXPECT_TRUE(e.performance.has_value());
  EXPECT_FALSE(v.context_warning.has_value());
  Estimate no_gpu;
  EXPECT_FALSE(apply_fit_verdict(s, no_gpu).fits.has_value());
}

}  // namespace
}  // namespace gpusizer
