// An engine's build for one GPU vendor with figures of its own (data/speed.json
// inference.engines.vllm.vendors.AMD: vLLM's ROCm build), inference_speed.cc.
#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "speed/inference_speed.h"
#include "testing/unit_scenario.h"

namespace gpusizer {
namespace {

Scenario vllm_on(const std::string& gpu, const std::string& model) {
  Scenario s = unit_scenario(
      {.model = model, .weights = "fp8", .kv_cache = "fp8", .engine = "vllm", .gpu = gpu});
  s.gpu_count = 8;
  s.parallel.tp = 8;
  s.batch = 1;
  return s;
}

double number_at(const char* pointer) {
  return Catalog::builtin().speed().doc().at(nlohmann::json::json_pointer(pointer)).get<double>();
}

// On an Instinct GPU the vllm engine runs with the ROCm build's figures; on an NVIDIA GPU with
// the engine's own.
TEST(VendorBuild, AmdGpuTakesTheRocmBuildsFigures) {
  std::string why;
  const auto amd =
      inference_setup(vllm_on("mi300x-192gb", "llama-3.1-70b"), Catalog::builtin().speed(), why);
  ASSERT_TRUE(amd) << why;
  EXPECT_DOUBLE_EQ(amd->engine.bw_eff, number_at("/inference/engines/vllm/vendors/AMD/bw_eff"));
  EXPECT_DOUBLE_EQ(amd->engine.compute_eff_max,
                   number_at("/inference/engines/vllm/vendors/AMD/compute_eff_max"));
  EXPECT_DOUBLE_EQ(amd->engine.step_overhead_s * 1e3,
                   number_at("/inference/engines/vllm/vendors/AMD/step_overhead_ms"));
  // What the build leaves out comes from the engine: vLLM's 256 sequences and 8,192-token chunks.
  EXPECT_DOUBLE_EQ(amd->engine.max_num_seqs, 256.0);
  EXPECT_DOUBLE_EQ(amd->engine.prefill_chunk_tokens, 8192.0);

  const auto nvidia =
      inference_setup(vllm_on("h100-sxm5-80gb", "llama-3.1-70b"), Catalog::builtin().speed(), why);
  ASSERT_TRUE(nvidia) << why;
  EXPECT_DOUBLE_EQ(nvidia->engine.bw_eff, number_at("/inference/engines/vllm/bw_eff"));
  EXPECT_DOUBLE_EQ(nvidia->engine.layer_overhead_s, 0.0);
}

// The build's fixed time per pass is its own step overhead (3.3 ms against the engine's 0.7),
// the same for every model: no time per layer (layer_overhead_us, inherited from the engine: 0).
TEST(VendorBuild, StepOverheadIsTheBuildsOwn) {
  std::string why;
  const auto big =
      inference_setup(vllm_on("mi300x-192gb", "llama-3.1-405b"), Catalog::builtin().speed(), why);
  const auto small =
      inference_setup(vllm_on("mi300x-192gb", "llama-3.1-70b"), Catalog::builtin().speed(), why);
  ASSERT_TRUE(big && small) << why;
  const double step = number_at("/inference/engines/vllm/vendors/AMD/step_overhead_ms") * 1e-3;
  EXPECT_DOUBLE_EQ(decode_step(*big, 1, 256).pass.overhead_s, step);
  EXPECT_DOUBLE_EQ(decode_step(*small, 1, 256).pass.overhead_s, step);
  EXPECT_GT(step, 1e-3 * number_at("/inference/engines/vllm/step_overhead_ms"));
}

}  // namespace
}  // namespace gpusizer
