#include "core/kept_texts.h"

#include <gtest/gtest.h>

#include <string>

namespace gpusizer {
namespace {

struct KeptNumber {
  int value = 0;
  bool matches(int probe) const { return value == probe; }
  void keep(int probe) { value = probe; }
};

// A text is written once per probe while it is kept, appended after what `out` held; with two
// slots, a third probe replaces the oldest, which is then written again.
TEST(KeptTexts, WritesEachProbeOnceWhileKept) {
  KeptTexts<KeptNumber, 2> kept;
  int writes = 0;
  auto append = [&](std::string& out, int probe) {
    kept.append(out, probe, [&](std::string& text) {
      ++writes;
      text += "n=" + std::to_string(probe);
    });
  };
  std::string out = "a; ";
  append(out, 1);
  EXPECT_EQ(out, "a; n=1");
  out.clear();
  append(out, 1);
  EXPECT_EQ(out, "n=1");
  EXPECT_EQ(writes, 1);
  append(out, 2);  // the second slot
  append(out, 3);  // replaces 1
  EXPECT_EQ(writes, 3);
  out.clear();
  append(out, 2);  // still kept
  EXPECT_EQ(writes, 3);
  append(out, 1);  // written again
  EXPECT_EQ(writes, 4);
  EXPECT_EQ(out, "n=2n=1");
}

}  // namespace
}  // namespace gpusizer
