// Tensor-parallel communication overlap (parallel.tp_comm_overlap: Megatron-Core
// --tp-comm-overlap, Transformer Engine userbuffers), against the counts derived by hand from
// the step model's rule (training_speed.cc micro_batch).
#include <gtest/gtest.h>

#include <string>

#include "gpusizer/error.h"
#include "gpusizer/json/scenario.h"
#include "speed/testing_training_speed.h"
#include "speed/training_speed.h"
#include "testing/refused_field.h"

namespace gpusizer {
namespace {

using testing::round_profile;
using testing::step;

// The GPT-2-shaped job (4 layers, one 1024-token sequence) at tp 2 with sequence parallelism on
// two A100s, the overlap `on` or off.
nlohmann::json tp2_job(bool on) {
  nlohmann::json j = testing::small_gpt2_job(2);
  j["parallel"] = {{"tp", 2}, {"sequence_parallel", true}, {"tp_comm_overlap", on}};
  return j;
}

TrainingSpeed tp2_step(bool on, double overlap) {
  return step(parse_scenario(tp2_job(on), Catalog::builtin()), round_profile(0, overlap));
}

TEST(TpCommOverlap, HidesTheLayersCollectivesBehindTheirGemms) {
  // Per layer 4 collectives + 1 for sequence parallelism's backward re-gather, each one
  // all-reduce's worth of bytes (2 MiB of activations, 7 us on NVLink): 4 layers x 5 = 20 in
  // the layers, and the head's 1 outside them. The layers' GEMMs (about 1 ms at tp 2) outlast
  // them, so the overlap shows (1 - overlap) of the 20: all of them hidden at overlap 1, half at
  // 0.5; the head's one stays.
  const double off = tp2_step(false, 1.0).breakdown.tp_comm;
  ASSERT_GT(off, 0.0);
  EXPECT_NEAR(tp2_step(true, 1.0).breakdown.tp_comm, off / 21.0, 1e-9 * off);
  EXPECT_NEAR(tp2_step(true, 0.5).breakdown.tp_comm, off * 11.0 / 21.0, 1e-9 * off);
  // Off, the profile's overlap does not touch them.
  EXPECT_DOUBLE_EQ(tp2_step(false, 0.5).breakdown.tp_comm, off);
}

TEST(TpCommOverlap, NeedsSequenceParallelismAndATrainingTask) {
  EXPECT_EQ(testing::refused_field(tp2_job(true)), "accepted");
  nlohmann::json no_sp = tp2_job(true);
  no_sp["parallel"]["sequence_parallel"] = false;
  EXPECT_EQ(testing::refused_field(no_sp), "parallel.tp_comm_overlap");
  nlohmann::json wrong_type = tp2_job(true);
  wrong_type["parallel"]["tp_comm_overlap"] = "yes";
  EXPECT_EQ(testing::refused_field(wrong_type), "parallel.tp_comm_overlap");
}

}  // namespace
}  // namespace gpusizer
