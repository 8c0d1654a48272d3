// describe_patch (src/report/patch_json.cc) writes a change's merge patch: to_patch's tree
// through TreeWriter and the same text through the (key-order checking) TextWriter.
#include <gtest/gtest.h>

#include "gpusizer/json/json_text.h"
#include "gpusizer/json/scenario.h"
#include "report/describe.h"

namespace gpusizer {
namespace {

std::string streamed(const ScenarioEdit& e) {
  std::string text;
  TextWriter w(text, true);
  describe_patch(w, e);
  return text;
}

void expect_as_to_patch(const ScenarioEdit& e) {
  const nlohmann::json tree = to_patch(e);
  TreeWriter built;
  describe_patch(built, e);
  EXPECT_EQ(built.take(), tree) << tree.dump();
  EXPECT_EQ(streamed(e), json_text(tree)) << tree.dump();
}

// A patch with a key of every group, written by hand in the contract's spelling and nlohmann's
// key order (ascending bytes: "gpu" < "gpu_count" < "gpus_per_node", "grad_accum" <
// "gradient_checkpointing").
TEST(PatchJson, EveryGroupInKeyOrder) {
  const ScenarioEdit e{.task = Task::kQlora,
                       .weights = "nf4",
                       .seq_len = 2048,
                       .batch = 4,
                       .gpu = "h100",
                       .gpus_per_node = 4,
                       .gpu_count = 8,
                       .tp = 2,
                       .dp = 4,
                       .recompute = Recompute::kSelective,
                       .offload = Offload::kOptimizer,
                       .zero_stage = 3,
                       .grad_accum = 2};
  EXPECT_EQ(streamed(e), R"({"batch":4,"gpu":"h100","gpu_count":8,"gpus_per_node":4,)"
                         R"("parallel":{"dp":4,"tp":2},"seq_len":2048,"task":"qlora",)"
                         R"("training":{"grad_accum":2,"gradient_checkpointing":"selective",)"
                         R"("offload":"optimizer","zero_stage":3},"weights":"nf4"})");
  expect_as_to_patch(e);
}

// Each field alone and the default split (its "parallel": null, replaced by an object when a
// split field is set over it) give to_patch's tree and text.
TEST(PatchJson, EachFieldAsToPatch) {
  const std::vector<ScenarioEdit> edits = {
      {},
      {.task = Task::kLora},
      {.weights = "int8"},
      {.kv_cache = "fp8"},
      {.seq_len = 4096, .prompt_len = 3072, .output_len = 1024},
      {.batch = 1},
      {.gpu = "a100-80g"},
      {.gpus_per_node = 8},
      {.gpu_count = 8, .default_split = true},
      {.gpu_count = 8, .tp = 8, .default_split = true},
      {.gpu_count = 2, .tp = 2, .pp = 1, .dp = 1},
      {.ep = 4, .cp = 2, .pp_interleave = 2, .sequence_parallel = true},
      {.sequence_parallel = false},
      {.recompute = Recompute::kFull},
      {.recompute = Recompute::kNone},
      {.flash_attention = true},
      {.optimizer = Optimizer::kAdamw8bit},
      {.offload = Offload::kNone},
      {.zero_stage = 0},
      {.global_batch = 512},
      {.mixed_precision = MixedPrecision::kFp16},
  };
  for (const ScenarioEdit& e : edits) expect_as_to_patch(e);
}

}  // namespace
}  // namespace gpusizer
