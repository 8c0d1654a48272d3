#include "gpusizer/batch.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace gpusizer {
namespace {

// Uneven work so that threads finish out of order.
std::string slow_square(size_t i) {
  volatile size_t spin = 0;
  for (size_t k = 0; k < (i * 7919) % 20000; ++k) spin = spin + k;
  return std::to_string(i * i);
}

TEST(MapInOrder, WritesEveryResultInInputOrder) {
  for (unsigned threads : {1u, 2u, 4u, 7u}) {
    for (size_t count : {size_t{0}, size_t{1}, size_t{3}, size_t{5000}}) {
      std::vector<std::string> written;
      map_in_order(
          count, slow_square, [&](const std::string& s) { written.push_back(s); }, threads);
      ASSERT_EQ(written.size(), count);
      for (size_t i = 0; i < count; ++i) ASSERT_EQ(written[i], std::to_string(i * i));
    }
  }
}

TEST(MapInOrder, RethrowsAfterWritingEverythingBefore) {
  std::vector<std::string> written;
  auto work = [](size_t i) -> std::string {
    if (i == 1500) throw std::runtime_error("item 1500");
    return std::to_string(i);
  };
  EXPECT_THROW(map_in_order(
                   3000, work, [&](const std::string& s) { written.push_back(s); }, 3),
               std::runtime_error);
  ASSERT_EQ(written.size(), 1500u);
  EXPECT_EQ(written.back(), "1499");
}

}  // namespace
}  // namespace gpusizer
