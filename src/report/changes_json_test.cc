// The "changes" of an answer (describe_changes, src/report/recommend_json.cc), written from the
// change search's own form (advisor/changes.h) and from the public Change: the same text, worked
// by hand, and the same tree.
#include <gtest/gtest.h>

#include "advisor/changes.h"
#include "advisor/testing_found_changes.h"
#include "gpusizer/json/json_text.h"
#include "report/describe.h"

namespace gpusizer {
namespace {

using testing::hand_found_changes;

// Keys in nlohmann's order (the checking writer refuses others); the patch of the pair holds
// QLoRA's task, checkpointing and nf4.
TEST(ChangesJson, TheSearchsFormAsThePublicOne) {
  const FoundChanges found = hand_found_changes();
  const std::string expected =
      R"j([{"change":"int8 weights + QLoRA","cost":"small cost; changes the job","fits":true,)j"
      R"j("levers":["int8 weights","QLoRA"],"needed_bytes":70000000000,)j"
      R"j("patch":{"task":"qlora","training":{"gradient_checkpointing":true},"weights":"nf4"},)j"
      R"j("quality_class":3,"saves_bytes":10000000000,"speed_factor":0.5},)j"
      R"j({"change":"smaller batch (2)","cost":"slower","fits":false,)j"
      R"j("levers":["smaller batch (2)"],"needed_bytes":0,"patch":{"batch":2},)j"
      R"j("quality_class":0,"saves_bytes":1000000000}])j";
  std::string text, from_public;
  {
    TextWriter w(text, true);
    describe_changes(w, found);
    TextWriter p(from_public, true);
    describe_changes(p, found.to_changes());
  }
  EXPECT_EQ(text, expected);
  EXPECT_EQ(from_public, expected);
  TreeWriter tree;
  describe_changes(tree, found);
  EXPECT_EQ(json_text(tree.take()), expected);
}

}  // namespace
}  // namespace gpusizer
