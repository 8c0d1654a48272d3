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

// The answer's own writer (no key checks: its in-place paths), with lever texts tested once an
// answer: the plain change as above, and a lever whose name has quotes and whose price has a tab
// escaped wherever it is written, alone and in a pair with a plain lever.
TEST(ChangesJson, LeverTextsEscapedWhereverWritten) {
  FoundChanges found = hand_found_changes();
  std::string plain;
  {
    TextWriter w(plain);
    describe_changes(w, found);
  }
  EXPECT_EQ(
      plain,
      R"j([{"change":"int8 weights + QLoRA","cost":"small cost; changes the job","fits":true,)j"
      R"j("levers":["int8 weights","QLoRA"],"needed_bytes":70000000000,)j"
      R"j("patch":{"task":"qlora","training":{"gradient_checkpointing":true},"weights":"nf4"},)j"
      R"j("quality_class":3,"saves_bytes":10000000000,"speed_factor":0.5},)j"
      R"j({"change":"smaller batch (2)","cost":"slower","fits":false,)j"
      R"j("levers":["smaller batch (2)"],"needed_bytes":0,"patch":{"batch":2},)j"
      R"j("quality_class":0,"saves_bytes":1000000000}])j");
  found.levers[2].name = LeverName(std::string_view("batch \"2\""));
  found.levers[2].cost = "slower\tby half";
  FoundChange pair;
  pair.levers = {0, 2};
  pair.count = 2;
  found.changes.push_back(pair);
  const std::string expected =
      R"j([{"change":"int8 weights + QLoRA","cost":"small cost; changes the job","fits":true,)j"
      R"j("levers":["int8 weights","QLoRA"],"needed_bytes":70000000000,)j"
      R"j("patch":{"task":"qlora","training":{"gradient_checkpointing":true},"weights":"nf4"},)j"
      R"j("quality_class":3,"saves_bytes":10000000000,"speed_factor":0.5},)j"
      R"j({"change":"batch \"2\"","cost":"slower\tby half","fits":false,)j"
      R"j("levers":["batch \"2\""],"needed_bytes":0,"patch":{"batch":2},)j"
      R"j("quality_class":0,"saves_bytes":1000000000},)j"
      R"j({"change":"int8 weights + batch \"2\"","cost":"small cost; slower\tby half",)j"
      R"j("fits":false,"levers":["int8 weights","batch \"2\""],"needed_bytes":0,)j"
      R"j("patch":{"batch":2,"weights":"int8"},"quality_class":0,"saves_bytes":0}])j";
  std::string text, checked;
  {
    TextWriter w(text);
    describe_changes(w, found);
    TextWriter c(checked, true);
    describe_changes(c, found);
  }
  EXPECT_EQ(text, expected);
  EXPECT_EQ(checked, expected);
}

// A change of plain words is written whole by a RawWriter in room reserved for its bound
// (describe_change_at_once): with every field of its patch set (the bound's largest fixed part),
// its text is the tree's; with a GPU id that needs escaping, nothing of that copy is kept and the
// text writer writes the change, escaped.
TEST(ChangesJson, AChangeWrittenAtOnceAsTheTree) {
  FoundChanges found = testing::hand_found_changes();
  found.levers[2].edit = {.task = Task::kQlora,
                          .weights = "nf4",
                          .kv_cache = "fp8",
                          .seq_len = 2048,
                          .prompt_len = 1536,
                          .output_len = 512,
                          .batch = 4,
                          .gpu = "h100",
                          .gpus_per_node = 4,
                          .gpu_count = 8,
                          .tp = 2,
                          .pp = 1,
                          .dp = 4,
                          .ep = 2,
                          .cp = 1,
                          .pp_interleave = 2,
                          .sequence_parallel = true,
                          .recompute = Recompute::kSelective,
                          .flash_attention = true,
                          .optimizer = Optimizer::kAdamw8bit,
                          .offload = Offload::kOptimizer,
                          .zero_stage = 3,
                          .grad_accum = 2,
                          .global_batch = 64,
                          .mixed_precision = MixedPrecision::kFp16};
  found.changes[1].speed_factor = 0.8645764388612363;
  const auto written = [&found] {
    std::string text;
    {
      TextWriter w(text);
      describe_changes(w, found);
    }
    return text;
  };
  const auto tree = [&found] {
    TreeWriter t;
    describe_changes(t, found);
    return json_text(t.take());
  };
  const std::string all = written();
  EXPECT_NE(all.find(R"("kv_cache":"fp8","output_len":512,"parallel":{"cp":1,"dp":4,"ep":2,)"
                     R"("pp":1,"pp_interleave":2,"sequence_parallel":true,"tp":2},)"
                     R"("prompt_len":1536,"seq_len":2048,"task":"qlora","training":)"
                     R"({"flash_attention":true,"global_batch":64,"grad_accum":2,)"
                     R"("gradient_checkpointing":"selective","mixed_precision":"fp16",)"
                     R"("offload":"optimizer","optimizer":"adamw-8bit","zero_stage":3},)"
                     R"("weights":"nf4"},"quality_class":0,"saves_bytes":1000000000,)"
                     R"("speed_factor":0.864576}])"),
            std::string::npos)
      << all;
  EXPECT_EQ(all, tree());
  found.levers[2].edit.gpu = "h100 \"sxm\"";
  const std::string escaped = written();
  EXPECT_NE(escaped.find(R"("gpu":"h100 \"sxm\"")"), std::string::npos) << escaped;
  EXPECT_EQ(escaped, tree());
}

}  // namespace
}  // namespace gpusizer
