// The advisor's unmet constraints as an enum: the search decides on the kind, the binding comes
// from it, the text is made from it. Figures set by hand.
#include "advisor/explain.h"
#include "gpusizer/json/scenario.h"

#include <gtest/gtest.h>

namespace gpusizer::explain {
namespace {

Option serving_option(double output_tokens_per_s, double ttft_ms) {
  Option o;
  o.scenario = parse_scenario({{"model", "llama-2-7b"}}, Catalog::builtin());
  PerformanceEstimate p;
  p.max_output_tokens_per_s = output_tokens_per_s;
  p.ttft_ms = ttft_ms;
  o.estimate.performance = p;
  return o;
}

// 500 output tokens/s against a floor of 1000: the throughput binds; with the floor met, a TTFT
// of 900 ms against 300 ms binds the service level.
TEST(Unmet, FirstMissedConstraintAndItsBinding) {
  Constraints c;
  c.min_tokens_per_s = 1000;
  c.max_ttft_ms = 300;
  const Unmet slow = unmet(serving_option(500, 900), c);
  EXPECT_EQ(slow.constraint, Constraint::kMinTokensPerS);
  EXPECT_EQ(slow.text(), "500 tokens/s < min_tokens_per_s 1000");
  EXPECT_EQ(binding_of(slow.constraint), "throughput");
  const Unmet late = unmet(serving_option(2000, 900), c);
  EXPECT_EQ(late.constraint, Constraint::kMaxTtft);
  EXPECT_EQ(late.text(), "TTFT 900 ms > max_ttft_ms 300");
  EXPECT_EQ(binding_of(late.constraint), "slo");
  EXPECT_FALSE(unmet(serving_option(2000, 200), c));
  EXPECT_EQ(unmet_constraint(serving_option(2000, 200), c), "");
}

// A budget needs a price: an option without one misses it as unknown, binding "budget".
TEST(Unmet, BudgetWithoutAPrice) {
  Constraints c;
  c.budget_usd = 10;
  const Unmet u = unmet(serving_option(2000, 100), c);
  EXPECT_EQ(u.constraint, Constraint::kBudget);
  EXPECT_TRUE(u.unknown);
  EXPECT_EQ(u.text(), "no price to check the budget");
  EXPECT_EQ(binding_of(u.constraint), "budget");
  const Unmet over{Constraint::kBudget, false, false, 12.5, 10};
  EXPECT_EQ(over.text(), "$12.50/hour over the budget of $10.00/hour");
  const Unmet days{Constraint::kMaxDays, false, false, 3.26, 2};
  EXPECT_EQ(days.text(), "training takes 3.3 days > max_days 2");
  EXPECT_EQ(binding_of(days.constraint), "time");
}

// Cloud at $10/h against on-prem at $6/h: without a deployment constraint the cheaper on-prem
// price is the option's, "cloud" takes the cloud's. Callers decide on `source`, not the label.
TEST(Price, SourceFollowsTheChosenPrice) {
  Option o = serving_option(2000, 100);
  Ownership w;
  w.cloud = CloudCost{};
  w.cloud->usd_per_hour = 10;
  w.cloud->instance = "one";
  w.on_prem = OnPremCost{};
  w.on_prem->usd_per_hour = 6;
  o.estimate.ownership = w;
  const Price cheaper = price_of(o, Constraints{});
  EXPECT_EQ(cheaper.source, Price::Source::kOnPrem);
  EXPECT_EQ(*cheaper.per_hour, 6);
  Constraints cloud;
  cloud.deployment = "cloud";
  const Price rented = price_of(o, cloud);
  EXPECT_EQ(rented.source, Price::Source::kCloud);
  EXPECT_EQ(*rented.per_hour, 10);
  o.estimate.ownership.reset();
  EXPECT_EQ(price_of(o, Constraints{}).source, Price::Source::kNone);
}

}  // namespace
}  // namespace gpusizer::explain
