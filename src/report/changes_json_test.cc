// The "changes" of an answer (describe_changes, src/report/recommend_json.cc), written from the
// change search's own form (advisor/changes.h) and from the public Change: the same text, worked
// by hand, and the same tree.
#include <gtest/gtest.h>

#include "advisor/changes.h"
#include "gpusizer/json/json_text.h"
#include "report/describe.h"

namespace gpusizer {
namespace {

// Two changes: int8 weights with QLoRA over them (its nf4 wins), fitting; a smaller batch alone,
// not fitting, without a speed.
FoundChanges two_changes() {
  FoundChanges f;
  f.levers.push_back({"int8 weights", {.weights = "int8"}, "small cost", 1});
  f.levers.push_back({"QLoRA",
                      {.task = Task::kQlora, .weights = "nf4", .recompute = Recompute::kFull},
                      "changes the job",
                      3});
  f.levers.push_back({"smaller batch (2)", {.batch = 2}, "slower", 0});
  FoundChange both;
  both.levers = {0, 1};
  both.count = 2;
  both.needed_bytes = 70e9;
  both.saves_bytes = 10e9;
  both.fits = true;
  both.speed_factor = 0.5;
  both.quality_class = 3;
  f.changes.push_back(both);
  FoundChange one;
  one.levers = {2};
  one.count = 1;
  one.saves_bytes = 1e9;
  f.changes.push_back(one);
  return f;
}

// Keys in nlohmann's order (the checking writer refuses others); the patch of the pair holds
// QLoRA's task, checkpointing and nf4.
TEST(ChangesJson, TheSearchsFormAsThePublicOne) {
  const FoundChanges found = two_changes();
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
