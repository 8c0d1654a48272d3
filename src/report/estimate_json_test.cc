// The memory figures as written: integers that keep the contract's order exactly, and saturate
// instead of wrapping when a scenario asks for more bytes than int64 holds.
#include "report/estimate_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "gpusizer/json/api.h"
#include "gpusizer/saturate.h"

namespace gpusizer {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(EstimateJson, AllocatedIsAtLeastTheSumOfTheRoundedComponents) {
  // Each component rounds on its own: 0.5 -> 1 and 0.5 -> 1 (llround rounds halves away from
  // zero), so the components add up to 2 while the allocated figure 1.0 rounds to 1.
  Estimate e;
  e.memory.weights = 0.5;
  e.memory.kv_cache = 0.5;
  e.memory.activations = 1e9 + 0.5;
  e.memory.allocated = 1e9 + 1.5;  // the exact sum
  e.memory.reserved = e.memory.allocated;
  e.memory.total = e.memory.allocated;
  const auto m = to_json(e)["memory"];
  const int64_t sum = m["weights_bytes"].get<int64_t>() + m["kv_cache_bytes"].get<int64_t>() +
                      m["activations_bytes"].get<int64_t>();
  EXPECT_EQ(sum, 1'000'000'003);  // 1 + 1 + 1,000,000,001
  EXPECT_GE(m["allocated_bytes"].get<int64_t>(), sum);
  EXPECT_GE(m["reserved_bytes"].get<int64_t>(), m["allocated_bytes"].get<int64_t>());
  EXPECT_GE(m["total_bytes"].get<int64_t>(), m["reserved_bytes"].get<int64_t>());
}

TEST(EstimateJson, BytesPastInt64Saturate) {
  Estimate e;
  e.memory.kv_cache = 5.2e19;  // > 2^63 = 9.22e18
  e.memory.allocated = e.memory.reserved = e.memory.total = 5.2e19;
  const auto m = to_json(e)["memory"];
  EXPECT_EQ(m["kv_cache_bytes"].get<int64_t>(), kMax);
  EXPECT_EQ(m["total_bytes"].get<int64_t>(), kMax);
  EXPECT_EQ(saturating_int64(-1e30), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(saturating_int64(std::nan("")), 0);
  EXPECT_EQ(saturating_int64(1234.5), 1235);
}

// saturating_int64 rounds as llround does inside the int64 range: halves away from zero (0.5 -> 1,
// -0.5 -> -1, 2.5 -> 3), just below and above each half, around 2^52 and 2^53 (where a double
// stops holding fractions, then odd integers) and below 2^63, and random values of every size.
TEST(EstimateJson, SaturatingRoundsAsLlround) {
  EXPECT_EQ(saturating_int64(0.5), 1);
  EXPECT_EQ(saturating_int64(-0.5), -1);
  EXPECT_EQ(saturating_int64(2.5), 3);
  EXPECT_EQ(saturating_int64(-2.4999999999999996), -2);
  EXPECT_EQ(saturating_int64(0.49999999999999994), 0);  // the double just below 0.5
  std::vector<double> values;
  for (double base : {0.0, 1.0, 2.0, 1e6, 4503599627370496.0, 9007199254740992.0, 9.2e18})
    for (double delta : {0.0, 0.25, 0.5, 0.75, 1.5, 2.5})
      for (double v : {base + delta, base - delta})
        for (double w : {v, std::nextafter(v, 0.0), std::nextafter(v, 1e300)})
          values.insert(values.end(), {w, -w});
  std::mt19937_64 rng(19);
  for (int i = 0; i < 100000; ++i) {
    const double v =
        std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 115) - 53);
    values.insert(values.end(), {v, -v});
  }
  for (const double v : values) {
    if (std::fabs(v) >= 9223372036854775808.0) continue;
    ASSERT_EQ(saturating_int64(v), std::llround(v)) << v;
  }
}

TEST(EstimateJson, WhatToChangeNeverWrapsToNegative) {
  // llama-2-7b at batch 1e7 x seq 1e7: the KV cache alone is 2 (K and V) x 32 layers x 4096
  // (32 heads x 128) x 2 bytes x 1e14 tokens = 5.2e19 bytes, past int64. The changes used to
  // print needed_bytes and saves_bytes of -9223372036854775808.
  const auto out = estimate_json({{"model", "llama-2-7b"},
                                  {"gpu", "h100"},
                                  {"engine", "vllm"},
                                  {"batch", 10000000},
                                  {"seq_len", 10000000}});
  ASSERT_TRUE(out.contains("changes")) << out.dump().substr(0, 400);
  ASSERT_FALSE(out["changes"].empty());
  for (const auto& c : out["changes"]) {
    EXPECT_GT(c["needed_bytes"].get<int64_t>(), 0) << c.dump();
    EXPECT_NE(c["saves_bytes"].get<int64_t>(), std::numeric_limits<int64_t>::min()) << c.dump();
  }
  for (const auto& [key, value] : out["memory"].items()) {
    if (value.is_number_integer()) {
      EXPECT_GE(value.get<int64_t>(), 0) << key;
    }
  }
}

}  // namespace
}  // namespace gpusizer
