// Serving engines' start-up memory by release (data/engines.json releases), each figure derived
// by hand in the comment beside it. Llama-3.1-8B throughout: 8,030,261,248 parameters x 2 B =
// 14.9575 GiB of bf16 weights; one token of KV cache = 2 x 32 layers x 8 heads x 128 x 2 B =
// 131,072 B; one token of the profile forward = 2 B x (3 x 14,336 gated MLP + 2 x 4,096) =
// 102,400 B (memory_parts inference_transient_bytes_per_token).
#include <gtest/gtest.h>

#include "gpusizer/error.h"
#include "gpusizer/json/api.h"

namespace gpusizer {
namespace {

constexpr double kGiB = 1073741824.0;

nlohmann::json run(nlohmann::json scenario) {
  scenario["model"] = "llama-3.1-8b";
  return estimate_json(scenario);
}

double gib(const nlohmann::json& out, const char* key) {
  return out["memory"][key].get<double>() / kGiB;
}

TEST(EngineStartup, VllmV1OnH100) {
  // vLLM 0.10 (V1) on H100 80 GB: usable 80 x (1 - 0.0106) = 79.152 GiB; budget 0.9 x 79.152 =
  // 71.2368 GiB. The profile runs 8,192 tokens (H100: >= 70 GiB and not A100), so the
  // activation peak is 8,192 x 102,400 B = 0.78125 GiB (the sampler, 1,024 rows x 128,256 x
  // 4 B = 0.489 GiB, is smaller); non-torch 0.20 GiB. KV pool = 71.2368 - 14.9575 - 0.78125 -
  // 0.20 = 55.298 GiB = 453,001 tokens of 131,072 B. The CUDA context (500 MiB) and CUDA graphs
  // (0.21 GiB) sit outside the budget: total 71.2368 + 0.4883 + 0.21 = 71.935 GiB.
  const auto out = run({{"engine", "vllm"}, {"engine_version", "0.10"}, {"gpu", "h100-sxm5-80gb"}});
  EXPECT_NEAR(gib(out, "activations_bytes"), 0.78125, 1e-6);
  EXPECT_NEAR(gib(out, "overhead_bytes"), 0.20, 1e-6);
  EXPECT_NEAR(gib(out, "kv_cache_bytes"), 55.298, 1e-3);
  EXPECT_NEAR(out["memory"]["kv_cache_capacity_tokens"].get<double>(), 453001, 1);
  EXPECT_NEAR(gib(out, "total_bytes"), 71.935, 1e-3);
}

TEST(EngineStartup, Vllm011SamplerSortPathSetsTheActivationPeakOnH100) {
  // vLLM 0.11 on H100: the dummy sampler over 1,024 rows sorts the
  // vocabulary: bf16 logits 2 B + fp32 copy 4 + sorted values 4 + int64 indices 8 + torch.sort's
  // int64 iota 8 + cub's alternate keys and values 4 + 8 = 38 B per entry; 1,024 x 128,256 x
  // 38 B = 4.6479 GiB, above the 8,192-token forward (0.78125 GiB). KV pool = 71.2368 -
  // 14.9575 - 4.6479 - 0.20 = 51.431 GiB = 421,325 tokens of 131,072 B (llm-d-benchmark's 0.11
  // log: activation 4.76 GiB, pool 51.38 GiB). What sits outside the budget is unchanged:
  // total 71.935 GiB.
  const auto out = run({{"engine", "vllm"}, {"engine_version", "0.11"}, {"gpu", "h100-sxm5-80gb"}});
  EXPECT_EQ(out["scenario"]["engine_version"], "0.11");
  EXPECT_NEAR(gib(out, "activations_bytes"), 4.64795, 1e-5);
  EXPECT_NEAR(gib(out, "kv_cache_bytes"), 51.431, 1e-3);
  EXPECT_NEAR(out["memory"]["kv_cache_capacity_tokens"].get<double>(), 421325, 1);
  EXPECT_NEAR(gib(out, "total_bytes"), 71.935, 1e-3);
}

TEST(EngineStartup, Vllm021ReservesItsCudaGraphsInsideTheBudget) {
  // vLLM 0.21 (the default release) on H100, as 0.10 above (the dummy sampler holds fp32
  // logits only, 0.489 GiB, under the 8,192-token forward's 0.78125 GiB) but the default
  // gpu_memory_utilization is 0.92 (vLLM PR #38284, with the CUDA-graph estimate): budget
  // 0.92 x 79.152 = 72.8198 GiB, and the profile subtracts its CUDA-graph estimate,
  // 225,485,783 B = 0.21 GiB, from the budget, where the graphs then live (gpu_worker.py
  // determine_available_memory): KV pool 72.8198 - 14.9575 - 0.78125 - 0.20 - 0.21 =
  // 56.671 GiB = 464,249 tokens of 131,072 B; total 72.8198 + 0.4883 (the CUDA context,
  // outside) = 73.308 GiB.
  const auto out = run({{"engine", "vllm"}, {"gpu", "h100-sxm5-80gb"}});
  EXPECT_EQ(out["scenario"]["engine_version"], "0.21");
  EXPECT_NEAR(gib(out, "activations_bytes"), 0.78125, 1e-6);
  EXPECT_NEAR(gib(out, "kv_cache_bytes"), 56.671, 1e-3);
  EXPECT_NEAR(out["memory"]["kv_cache_capacity_tokens"].get<double>(), 464249, 1);
  EXPECT_NEAR(gib(out, "total_bytes"), 73.308, 1e-3);
  // A version a user types takes its range's rules and says so: 0.27.1 and 0.28.0 (the end of
  // the range, 0.21 to 0.28) size the same pool.
  for (const char* typed_version : {"0.27.1", "0.28.0"}) {
    const auto typed =
        run({{"engine", "vllm"}, {"engine_version", typed_version}, {"gpu", "h100-sxm5-80gb"}});
    EXPECT_EQ(typed["scenario"]["engine_version"], "0.21") << typed_version;
    EXPECT_EQ(typed["memory"]["kv_cache_bytes"], out["memory"]["kv_cache_bytes"]) << typed_version;
  }
  // A fraction given is the user's, not the release's: 0.9 is 0.10's budget less the 0.21 GiB
  // of graphs, 55.298 - 0.210 = 55.088 GiB.
  const auto given =
      run({{"engine", "vllm"}, {"gpu", "h100-sxm5-80gb"}, {"gpu_memory_utilization", 0.9}});
  EXPECT_NEAR(gib(given, "kv_cache_bytes"), 55.088, 1e-3);
}

TEST(EngineStartup, VllmV1RefusesAUtilizationThatLeavesNoRoomForItsBaseline) {
  // RTX 4090: usable 24 x 0.9894 = 23.746 GiB; 0.99 x that = 23.508 GiB plus 0.49 GiB of CUDA
  // context and 0.21 GiB of graphs = 24.2 GiB > 23.746: vLLM V1 stops at start-up (free memory
  // below the requested utilization, gpu_worker.init_device).
  const auto out =
      run({{"engine", "vllm"}, {"gpu", "rtx-4090-24gb"}, {"gpu_memory_utilization", 0.99}});
  EXPECT_FALSE(out["memory"]["fits"].get<bool>());
  // The V0 rules counted the context inside the budget: the same setting starts there.
  const auto v0 = run({{"engine", "vllm"},
                       {"engine_version", "0.7"},
                       {"gpu", "rtx-4090-24gb"},
                       {"gpu_memory_utilization", 0.99}});
  EXPECT_TRUE(v0["memory"]["fits"].get<bool>());
}

TEST(EngineStartup, Vllm064OnRtx3090AtMaxModelLen20000) {
  // vLLM 0.6.4, --max-model-len 20000 (vLLM issue #10517): no chunked prefill below 32k, so the
  // profile runs max(20,000, 2,048) = 20,000 tokens: 20,000 x 102,400 B = 1.9073 GiB (the log:
  // peak_torch 17.06 - weights 14.99 = 2.07 GiB); the sampler, 256 x 128,256 x 41 B = 1.254 GiB,
  // is smaller. Non-torch 0.35 GiB as that log reports.
  const auto out = run({{"engine", "vllm"},
                        {"engine_version", "0.6.4"},
                        {"gpu", "rtx-3090-24gb"},
                        {"seq_len", 20000}});
  EXPECT_NEAR(gib(out, "activations_bytes"), 20000 * 102400 / kGiB, 1e-9);
  EXPECT_NEAR(gib(out, "overhead_bytes"), 0.35, 1e-6);
}

TEST(EngineStartup, SglangStaticFractionLeavesActivationsInTheReserve) {
  // SGLang 0.4 on H100 at TP 1: mem_fraction_static 0.88 x 79.152 = 69.654 GiB; pool = that -
  // weights 14.9575 - CUDA context 0.4883 = 54.208 GiB = 444,071 tokens; the activations are not
  // subtracted (they live in the 12% reserve).
  const auto out =
      run({{"engine", "sglang"}, {"engine_version", "0.4"}, {"gpu", "h100-sxm5-80gb"}});
  EXPECT_NEAR(gib(out, "kv_cache_bytes"), 54.208, 1e-3);
  EXPECT_NEAR(out["memory"]["kv_cache_capacity_tokens"].get<double>(), 444071, 1);
}

TEST(EngineStartup, Sglang053DerivesItsFractionFromTheH100sMemory) {
  // SGLang 0.5.3 (0.5.3 to 0.5.9) on H100 at TP 1 sizes its fraction by nvidia-smi's total,
  // taken as the marketed 80 GiB = 81,920 MiB: reserved 512 + 8,192 x 1.5 + 256 x 2 + 128 =
  // 13,440 MiB (server_args.py _handle_gpu_memory_settings), so mem_fraction_static =
  // round(68,480 / 81,920, 3) = 0.836 (an H100 SXM whose nvidia-smi shows 81,559 MiB gets 0.835).
  // Budget 0.836 x 79.152 = 66.1711 GiB of what CUDA sees; pool = that - weights 14.9575 - CUDA
  // context 0.4883 = 50.725 GiB = 415,541 tokens of 131,072 B.
  const auto out =
      run({{"engine", "sglang"}, {"engine_version", "0.5.3"}, {"gpu", "h100-sxm5-80gb"}});
  EXPECT_EQ(out["scenario"]["engine_version"], "0.5.3");
  // The answer's scenario shows the fraction the pool used, not the 0.88 of an unknown GPU.
  EXPECT_DOUBLE_EQ(out["scenario"]["gpu_memory_utilization"].get<double>(), 0.836);
  EXPECT_NEAR(gib(out, "kv_cache_bytes"), 50.725, 1e-3);
  EXPECT_NEAR(out["memory"]["kv_cache_capacity_tokens"].get<double>(), 415541, 1);
  // The basis says what the default came from: 81,920 MiB, TP 1, chunk 8,192, graphs 256.
  const std::string basis = out["basis"]["kv_cache_bytes"].get<std::string>();
  EXPECT_NE(basis.find("KV pool = 0.836 x capacity"), std::string::npos) << basis;
  EXPECT_NE(basis.find("default for 81920 MiB of GPU memory at TP 1 x PP 1 (chunked prefill 8192, "
                       "CUDA graphs up to batch 256)"),
            std::string::npos)
      << basis;
}

TEST(EngineStartup, Sglang0510ReservesItsPiecewiseGraphsOnTheH100) {
  // SGLang 0.5.10 (the default release, piecewise CUDA graphs on) on H100 at TP 1: 0.5.3's
  // 13,440 MiB + 58 captured token counts x 8 MiB = 13,904 MiB (server_args.py
  // _handle_gpu_memory_settings), so mem_fraction_static = round(68,016 / 81,920, 3) = 0.830.
  // Budget 0.830 x 79.152 = 65.6962 GiB; pool = that - weights 14.9575 - CUDA context 0.4883 =
  // 50.2504 GiB, 0.006 x 79.152 = 0.4749 GiB (3,890 tokens of 131,072 B) less than 0.5.3's
  // 415,541: 411,651 tokens.
  const auto out = run({{"engine", "sglang"}, {"gpu", "h100-sxm5-80gb"}});
  EXPECT_EQ(out["scenario"]["engine_version"], "0.5.10");
  EXPECT_DOUBLE_EQ(out["scenario"]["gpu_memory_utilization"].get<double>(), 0.830);
  EXPECT_NEAR(gib(out, "kv_cache_bytes"), 50.2504, 1e-3);
  EXPECT_NEAR(out["memory"]["kv_cache_capacity_tokens"].get<double>(), 411651, 2);
  const std::string basis = out["basis"]["kv_cache_bytes"].get<std::string>();
  EXPECT_NE(basis.find("(chunked prefill 8192, CUDA graphs up to batch 256, piecewise prefill "
                       "graphs at 58 token counts)"),
            std::string::npos)
      << basis;
  // Pipeline parallelism turns the piecewise graphs off: the basis leaves them out.
  const auto pp = run({{"engine", "sglang"},
                       {"gpu", "h100-sxm5-80gb"},
                       {"gpu_count", 2},
                       {"parallel", {{"pp", 2}}}});
  EXPECT_EQ(pp["basis"]["kv_cache_bytes"].get<std::string>().find("piecewise"), std::string::npos);
}

TEST(EngineStartup, TrtllmFractionIsOfFreeMemory) {
  // TensorRT-LLM 1.0 on H100: free_gpu_memory_fraction 0.9 x (79.152 - 14.9575 weights -
  // 0.78125 activation workspace (8,192 tokens) - 1 GiB runtime) = 0.9 x 62.413 = 56.172 GiB.
  const auto out = run({{"engine", "trtllm"}, {"gpu", "h100-sxm5-80gb"}});
  EXPECT_NEAR(gib(out, "kv_cache_bytes"), 56.172, 1e-3);
}

TEST(EngineStartup, UnknownVersionExitsNamingTheField) {
  try {
    run({{"engine", "vllm"}, {"engine_version", "0.2"}, {"gpu", "h100-sxm5-80gb"}});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "engine_version");
  }
}

}  // namespace
}  // namespace gpusizer
