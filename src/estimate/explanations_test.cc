// The estimators return their own results and explain them only into a sink they are given: a
// null sink gives the same figures and builds no text (gpusizer/explanations.h).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "estimate/power.h"
#include "gpusizer/estimate.h"
#include "gpusizer/explanations.h"
#include "gpusizer/json/scenario.h"
#include "gpusizer/speed.h"
#include "memory/memory_estimate.h"

namespace gpusizer {
namespace {

Scenario scenario(const nlohmann::json& j) {
  return parse_scenario(j, Catalog::builtin());
}

bool has_warning(const Explanations& why, const std::string& text) {
  for (const auto& w : why.warnings)
    if (w.find(text) != std::string::npos) return true;
  return false;
}

// Llama-2-7B has 6,738,415,616 parameters (Meta's model card: 6.74B); in bf16 that is 2 bytes
// each, 13,476,831,232 bytes of weights, with or without a sink.
TEST(Explanations, MemoryFiguresWithoutText) {
  const Scenario s = scenario({{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}, {"batch", 4}});
  Explanations why;
  const MemoryEstimate explained = estimate_memory(s, Catalog::builtin(), &why);
  const MemoryEstimate bare = estimate_memory(s, Catalog::builtin(), nullptr);
  EXPECT_DOUBLE_EQ(explained.weights, 2.0 * 6738415616.0);
  EXPECT_DOUBLE_EQ(bare.weights, 2.0 * 6738415616.0);
  EXPECT_DOUBLE_EQ(bare.total, explained.total);
  EXPECT_DOUBLE_EQ(bare.kv_cache, explained.kv_cache);
  EXPECT_EQ(bare.max_batch, explained.max_batch);
  EXPECT_EQ(bare.fits, explained.fits);
  ASSERT_TRUE(why.basis.contains("weights_bytes"));
  EXPECT_EQ(why.basis.at("weights_bytes").rfind("params x 16 bits (bf16", 0), 0u);
  EXPECT_TRUE(why.basis.contains("gpu_capacity_bytes"));
}

// 8 x A100 SXM 400 W: (3,200 W + 800 W host + 8 x 150 W) x 1.25 margin = 6,500 W a node, over the
// 6 kW rack budget of data/facility.json: a figure either way, a warning only with a sink.
TEST(Explanations, PowerWarnsOnlyIntoASink) {
  const Scenario s =
      scenario({{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}, {"gpu_count", 8}});
  const Catalog& c = Catalog::builtin();
  Explanations why;
  const PowerEstimate explained =
      estimate_power(s, c.facility_defaults(), c.cost_defaults(), c, &why);
  const PowerEstimate bare =
      estimate_power(s, c.facility_defaults(), c.cost_defaults(), c, nullptr);
  EXPECT_DOUBLE_EQ(*explained.node_watts, 6500);
  EXPECT_DOUBLE_EQ(*bare.node_watts, 6500);
  EXPECT_TRUE(has_warning(why, "rack budget"));
  EXPECT_EQ(why.basis.at("gpu_watts"), "8 x 400 W board power (TDP)");
}

// Speed reads the memory estimate it is given (its max_batch sizes max_output_tokens_per_s) and
// gives the same figures with and without a sink.
TEST(Explanations, SpeedFiguresWithoutText) {
  const Scenario s = scenario(
      {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"engine", "vllm"}, {"batch", 8}});
  const Catalog& c = Catalog::builtin();
  const MemoryEstimate m = estimate_memory(s, c, nullptr);
  Explanations why;
  const PerformanceEstimate explained = estimate_speed(s, c, m, &why);
  const PerformanceEstimate bare = estimate_speed(s, c, m, nullptr);
  ASSERT_TRUE(bare.decode_tokens_per_s && explained.decode_tokens_per_s);
  EXPECT_DOUBLE_EQ(*bare.decode_tokens_per_s, *explained.decode_tokens_per_s);
  EXPECT_DOUBLE_EQ(*bare.max_output_tokens_per_s, *explained.max_output_tokens_per_s);
  ASSERT_TRUE(why.basis.contains("max_output_tokens_per_s"));
  EXPECT_NE(why.basis.at("max_output_tokens_per_s").find("(memory.max_batch"), std::string::npos);
  // Without a memory estimate vLLM's batch is sized from the pool it preallocates, and says so.
  Explanations none;
  estimate_speed(s, c, MemoryEstimate{}, &none);
  EXPECT_TRUE(has_warning(none, "batch sized from the KV pool"));
}

// llama.cpp on a GPU without FP16 tensor cores runs the DP4A kernels; where their counted
// mat-vec instructions bind the decode (3-bit q3_k on the P40), the held-out P40 rows ran slower
// than counted: the answer says so. A 4-bit decode there is bound by its bytes, and a
// tensor-core GPU runs other kernels: no warning.
TEST(Explanations, Dp4aKernelsSayTheirSpeedIsLessCertain) {
  const Catalog& c = Catalog::builtin();
  auto warned = [&](const char* gpu, const char* weights) {
    const Scenario s = scenario(
        {{"model", "llama-2-7b"}, {"gpu", gpu}, {"engine", "llama.cpp"}, {"weights", weights}});
    Explanations why;
    estimate_speed(s, c, estimate_memory(s, c, nullptr), &why);
    return has_warning(why, "without FP16 tensor cores");
  };
  EXPECT_TRUE(warned("tesla-p40-24gb", "q3_k"));
  EXPECT_FALSE(warned("tesla-p40-24gb", "q4_0"));
  EXPECT_FALSE(warned("rtx-3090-24gb", "q3_k"));
}

// estimate() composes the estimators: the numbers-only detail has the full estimate's figures and
// no warnings or basis.
// Training on several GPUs warns that gradients cross PCIe only where the GPUs share no fast
// link: RTX 4090s (no NVLink, no gpus.csv fast_link_domain) do; MI300X (Infinity Fabric, 8 a
// node), Gaudi 3 (on-chip RoCE, 8) and H100 SXM (NVLink) do not.
TEST(Explanations, PcieWarningOnlyWithoutAFastLink) {
  auto warns = [](const char* gpu) {
    const Estimate e = estimate(scenario({{"model", "llama-3.1-8b"},
                                          {"task", "full"},
                                          {"gpu", gpu},
                                          {"gpu_count", 2},
                                          {"training", {{"zero_stage", 3}}}}),
                                Catalog::builtin());
    for (const auto& w : e.warnings)
      if (w.find("without NVLink: gradients and TP traffic cross PCIe") != std::string::npos)
        return true;
    return false;
  };
  EXPECT_TRUE(warns("rtx-4090-24gb"));
  EXPECT_FALSE(warns("mi300x-192gb"));
  EXPECT_FALSE(warns("gaudi3-128gb"));
  EXPECT_FALSE(warns("h100"));
}

TEST(Explanations, FiguresDetailMatchesFull) {
  const Scenario s =
      scenario({{"model", "llama-2-70b"}, {"task", "lora"}, {"gpu", "h100"}, {"gpu_count", 8}});
  const Estimate full = estimate(s, Catalog::builtin(), Detail::kFull);
  const Estimate figures = estimate(s, Catalog::builtin(), Detail::kFigures);
  EXPECT_DOUBLE_EQ(figures.memory.total, full.memory.total);
  ASSERT_TRUE(figures.performance && full.performance);
  EXPECT_DOUBLE_EQ(*figures.performance->step_time_s, *full.performance->step_time_s);
  EXPECT_TRUE(figures.basis.empty());
  EXPECT_TRUE(figures.warnings.empty());
  EXPECT_FALSE(full.basis.empty());
}

// vLLM preallocates its KV pool, so a batch larger than the pool leaves the device total under the
// capacity and still does not fit. The warning names the demand: Llama-3.1-8B's 8,030,261,248
// bf16 weights (14.96 GiB) and the KV of 16 sequences of 8,192 tokens at 32 layers x 8 KV heads
// x 128 x 2 (K, V) x 2 B = 131,072 B a token (16.00 GiB): 30.96 GiB before activations, non-torch
// memory and CUDA graphs (about 1 GiB), over the RTX 4090's usable memory; beside it, what vLLM
// takes at its default share. It gave the device total (22.2 GiB) as the need, which read as if
// it fit.
TEST(Explanations, DoesNotFitNamesTheBatchsDemandNotThePreallocatedPool) {
  const Scenario s = resolve_scenario({{"model", "llama-3.1-8b"},
                                       {"gpu", "4090"},
                                       {"engine", "vllm"},
                                       {"batch", 16},
                                       {"seq_len", 8192}},
                                      Catalog::builtin());
  const Estimate e = estimate(s, Catalog::builtin());
  ASSERT_TRUE(e.memory.fits.has_value());
  EXPECT_FALSE(*e.memory.fits);
  double needs_gib = 0, takes_gib = 0, usable_gib = 0, utilization = 0;
  for (const std::string& w : e.warnings)
    if (w.rfind("does not fit: needs ", 0) == 0)
      std::sscanf(w.c_str(),
                  "does not fit: needs %lf GiB per GPU, vllm takes %lf GiB of GeForce RTX 4090 "
                  "24GB's %lf GiB usable (gpu_memory_utilization %lf)",
                  &needs_gib, &takes_gib, &usable_gib, &utilization);
  const double gib = 1024.0 * 1024.0 * 1024.0;
  EXPECT_GT(needs_gib, (8030261248.0 * 2 + 16 * 8192 * 131072.0) / gib);
  EXPECT_LT(needs_gib, 32.5);
  EXPECT_GT(needs_gib, usable_gib);
  EXPECT_GT(usable_gib, 23.0);
  EXPECT_LT(takes_gib, usable_gib);
  EXPECT_DOUBLE_EQ(utilization, s.gpu_memory_utilization);  // the release's default
}

}  // namespace
}  // namespace gpusizer
