#pragma once
// A change search's answer in its own form (advisor/changes.h), by hand, shared by the tests of
// the form and of its writer: three levers (a weights format, QLoRA with checkpointing over it,
// a smaller batch) and two changes (int8 weights + QLoRA, fitting, at half the speed; the batch
// alone, not fitting, without a speed).
#include "advisor/changes.h"

namespace gpusizer::testing {

inline FoundChanges hand_found_changes() {
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

}  // namespace gpusizer::testing
