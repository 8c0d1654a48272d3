// Typed engine profiles (data/engines.json): strict reading, releases and the per-release rules.
#include "gpusizer/engine_profile.h"

#include <gtest/gtest.h>

#include "embed/embedded.h"
#include "gpusizer/catalog.h"
#include "gpusizer/error.h"
#include "gpusizer/json/engine_profile.h"

namespace gpusizer {
namespace {

TEST(EngineProfile, CapabilitiesAreTypedFlags) {
  const Catalog& c = Catalog::builtin();
  EXPECT_TRUE(c.engine("vllm").preallocates);
  EXPECT_TRUE(c.engine("vllm").splits_tensors);
  EXPECT_FALSE(c.engine("hf").splits_tensors);         // device_map="auto": whole layers per GPU
  EXPECT_FALSE(c.engine("llama.cpp").splits_tensors);  // --split-mode layer
  EXPECT_TRUE(c.engine("hf").kv_grows_by_concat);      // DynamicCache torch.cat
  EXPECT_TRUE(c.engine("llama.cpp").loads("gguf"));
  EXPECT_FALSE(c.engine("vllm").loads("gguf"));
  EXPECT_TRUE(c.engine("vllm").honours("gpu_memory_utilization"));
  EXPECT_FALSE(c.engine("hf").honours("gpu_memory_utilization"));
  EXPECT_FALSE(c.engine("trtllm").runs_on("AMD"));
  // Whole entries of data/engines.json's lists, by every byte: megatron runs "full" and
  // "pretrain"; "fulL", "ful", "pretrainx" and "" are none of them.
  EXPECT_TRUE(c.engine("megatron").runs("full"));
  EXPECT_TRUE(c.engine("megatron").runs("pretrain"));
  EXPECT_FALSE(c.engine("megatron").runs("fulL"));
  EXPECT_FALSE(c.engine("megatron").runs("ful"));
  EXPECT_FALSE(c.engine("megatron").runs("pretrainx"));
  EXPECT_FALSE(c.engine("megatron").runs("lora"));
  EXPECT_FALSE(c.engine("megatron").runs(""));
  EXPECT_TRUE(c.engine("hf").runs_on("Intel (Habana)"));
  EXPECT_FALSE(c.engine("vllm").runs_on("Apple"));
  EXPECT_EQ(c.engine("megatron").max_zero_stage, 1);
  EXPECT_TRUE(c.engine("fsdp").own_zero3);
  // "device" and "defaults" are not engines.
  EXPECT_THROW(c.engine("device"), InputError);
  EXPECT_THROW(c.engine("defaults"), InputError);
}

TEST(EngineProfile, ReleasesNewestFirstAndUnknownVersionNamesTheKnownOnes) {
  const EngineProfile& v = Catalog::builtin().engine("vllm");
  EXPECT_EQ(v.newest_version(), "0.21");
  EXPECT_EQ(v.release("").version, "0.21");
  EXPECT_EQ(v.release("0.6.4").version, "0.6.4");
  try {
    v.release("0.3");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "engine_version");
    const std::string m = e.what();
    EXPECT_NE(m.find("0.21 (0.21-0.28.x), 0.11 (0.11-0.20.x), 0.10 (0.9-0.10.x), 0.7 (0.7-0.8.x), "
                     "0.6.5 (0.6.5.x), 0.6.4 (0.6.4.x)"),
              std::string::npos)
        << m;
  }
  EXPECT_EQ(Catalog::builtin().engine("hf").newest_version(), "all");
}

// data/engines.json: trtllm 1.0 covers ["1.0", "1.2"] (the PyTorch backend's pool rule, unchanged
// through 1.1 and 1.2.x), 0.8 covers ["0.8", "0.21"] (TensorRT engines under the C++ executor),
// 0.6 covers ["0.5", "0.7.0"]; 0.7.1 (XQA and the GQA kernel, fraction 0.85) is in neither, and
// 0.22 does not exist as a TensorRT-engine release modelled here.
TEST(EngineProfile, AVersionInsideAReleasesRangeTakesItsRules) {
  const EngineProfile& t = Catalog::builtin().engine("trtllm");
  EXPECT_EQ(t.release("1.0").version, "1.0");
  EXPECT_EQ(t.release("1.0.1").version, "1.0");  // a release's own patches
  EXPECT_EQ(t.release("1.1").version, "1.0");
  EXPECT_EQ(t.release("1.1.0").version, "1.0");
  EXPECT_EQ(t.release("1.2.1").version, "1.0");  // the range's end, 1.2, takes in its patches
  EXPECT_EQ(t.release("0.8").version, "0.8");
  EXPECT_EQ(t.release("0.16").version, "0.8");
  EXPECT_EQ(t.release("0.16.0").version, "0.8");
  EXPECT_EQ(t.release("0.21.3").version, "0.8");  // the last "0.21" takes in its patches
  EXPECT_EQ(t.release("0.5").version, "0.6");
  EXPECT_EQ(t.release("0.7").version, "0.6");  // 0.7 = 0.7.0
  // An exact name is never read as a range: find_release stays exact.
  EXPECT_EQ(t.find_release("0.16"), nullptr);
  for (const char* outside : {"0.7.1", "0.22", "0.4.9", "0.16rc1", "v0.16", "0..16", ""}) {
    if (!*outside) continue;  // "" is the newest, not an error
    try {
      t.release(outside);
      FAIL() << outside << ": no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "engine_version");
      const std::string m = e.what();
      EXPECT_NE(m.find("1.0 (1.0-1.2.x), 0.8 (0.8-0.21.x), 0.6 (0.5-0.7.0.x)"), std::string::npos)
          << m;
    }
  }
}

// A version after the newest release's range takes the newest release's rules (a user on a
// release newer than the data is better served by them, with a warning, than by an error); one
// older than every range, or between two ranges, stays an error. Ranges read from
// data/engines.json: vllm's newest, 0.21, covers 0.21 to 0.28.x; trtllm's, 1.0, 1.0 to 1.2.x
// (0.8's ends at 0.21, so 0.22 lies between two ranges); sglang's, 0.5.10, 0.5.10 to 0.5.x.
TEST(EngineProfile, AVersionAfterTheNewestRangeTakesTheNewestRules) {
  const Catalog& c = Catalog::builtin();
  const EngineProfile& v = c.engine("vllm");
  const std::string newest_last = v.releases.front().covers_last;  // "0.28" when written
  for (const char* after : {"0.29", "0.30.0", "0.31.2", "1.0"}) {
    EXPECT_TRUE(v.newer_than_modelled(after)) << after;
    EXPECT_EQ(&v.release(after), &v.releases.front()) << after;
  }
  EXPECT_FALSE(v.newer_than_modelled(newest_last + ".9"));  // the last takes in its patches
  EXPECT_FALSE(v.newer_than_modelled("0.6"));
  EXPECT_FALSE(v.newer_than_modelled("latest"));  // not a dotted version: an error, as before
  EXPECT_THROW(v.release("latest"), InputError);
  EXPECT_THROW(v.release("0.5.4"), InputError);  // older than every release modelled
  const EngineProfile& t = c.engine("trtllm");
  EXPECT_EQ(t.release("1.3.0").version, "1.0");
  EXPECT_TRUE(t.newer_than_modelled("1.3.0"));
  EXPECT_FALSE(t.newer_than_modelled("1.2.1"));  // inside 1.0's range
  EXPECT_THROW(t.release("0.22"), InputError);   // between 0.8's range and 1.0
  const EngineProfile& g = c.engine("sglang");
  EXPECT_EQ(g.release("0.6.0").version, g.newest_version());
  EXPECT_THROW(g.release("0.5.1"), InputError);  // between 0.4 and 0.5.3
  // hf's newest release, "all", names no range: nothing is "after" it. 4.35 stands for the
  // transformers releases whose layers build a rotary cache at load, 4.34 to 4.37 (its _source);
  // an empty version is no release (named_release: not the newest, as release("") is).
  const EngineProfile& h = c.engine("hf");
  EXPECT_FALSE(h.newer_than_modelled("9.0"));
  EXPECT_EQ(h.release("4.36.2").version, "4.35");
  EXPECT_EQ(h.release("4.34").version, "4.35");
  EXPECT_THROW(h.release("4.33"), InputError);
  EXPECT_THROW(h.release("4.38"), InputError);
  EXPECT_EQ(h.release("").version, "all");
  EXPECT_THROW(h.named_release(""), InputError);
}

// data/engines.json vllm: the versions a user types (a log's "v0.10.1.1", "0.27.1", "0.28.0") take
// the rules of the release whose range holds them: 0.9-0.10 V1 with graphs outside the budget,
// 0.11-0.20 the dummy sampler's sort (0.19.0's log, VLLMLOGS-017), 0.21-0.28 the CUDA-graph
// estimate inside the budget ("default since v0.21.0" in 0.27.1's log; 0.28.0's profile folds it
// into the activation peak the same way, syv-ai/qwen38-27b-rtx3090 issue #106), V0 0.7-0.8.
TEST(EngineProfile, VllmVersionsTakeTheRulesOfTheirRange) {
  const EngineProfile& v = Catalog::builtin().engine("vllm");
  EXPECT_EQ(v.release("0.10.1.1").version, "0.10");
  EXPECT_EQ(v.release("0.9.2").version, "0.10");
  EXPECT_EQ(v.release("0.11.0").version, "0.11");
  EXPECT_EQ(v.release("0.19.0").version, "0.11");
  EXPECT_EQ(v.release("0.20.2").version, "0.11");
  EXPECT_EQ(v.release("0.21.0").version, "0.21");
  EXPECT_EQ(v.release("0.27.1").version, "0.21");
  EXPECT_EQ(v.release("0.28").version, "0.21");
  EXPECT_EQ(v.release("0.28.0").version, "0.21");  // the range's end takes in its patches
  EXPECT_EQ(v.release("0.28.2").version, "0.21");
  EXPECT_DOUBLE_EQ(v.release("0.28.0").memory_fraction, 0.92);  // vLLM PR #38284's default
  EXPECT_DOUBLE_EQ(v.release("0.20.2").memory_fraction, 0.9);
  EXPECT_EQ(v.release("0.8.5").version, "0.7");
  EXPECT_EQ(Catalog::builtin().engine("sglang").release("0.4.6").version, "0.4");
  EXPECT_TRUE(v.release("0.21").cuda_graphs_in_budget);
  EXPECT_FALSE(v.release("0.20").cuda_graphs_in_budget);
  // Older than the rules modelled, or between two ranges: the error lists the ranges (a newer
  // version takes the newest rules: AVersionAfterTheNewestRangeTakesTheNewestRules).
  for (const char* outside : {"0.6.6", "0.5.4"})
    EXPECT_THROW(v.release(outside), InputError) << outside;
}

// vLLM's releases name their code path (data/engines.json engine_path): V1 (v1/worker/
// gpu_worker.py) from 0.9, V0 (worker/worker.py) before; gpusizer check keeps a V1 log on V1 rules.
TEST(EngineProfile, VllmReleasesNameTheirEnginePath) {
  const EngineProfile& v = Catalog::builtin().engine("vllm");
  for (const char* version : {"0.21", "0.11", "0.10"})
    EXPECT_EQ(v.release(version).engine_path, "V1") << version;
  for (const char* version : {"0.7", "0.6.5", "0.6.4"})
    EXPECT_EQ(v.release(version).engine_path, "V0") << version;
  EXPECT_EQ(Catalog::builtin().engine("sglang").release("").engine_path, "");  // one path
  nlohmann::json engines = nlohmann::json::parse(embedded::find("engines.json"));
  engines["vllm"]["releases"][0]["engine_path"] = 1;
  try {
    read_engine_profiles(engines, "engines.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("vllm.releases[0].engine_path"), std::string::npos)
        << e.what();
  }
}

TEST(EngineProfile, CoversMustBeARangeAroundTheReleasesOwnVersion) {
  const auto engines = [](const std::string& covers) {
    return R"({"hf": {"kind": "eager", "tasks": ["inference"], "preallocates": false,
      "splits_tensors": false, "pp_uses_nccl": false, "vendors": [], "weight_kinds": ["float"],
      "knobs": [], "norm_saves_fp32_input": true, "allocator_overhead_fraction": 0.06,
      "releases": [{"version": "4.35", "covers": )" +
           covers + "}]}}";
  };
  const auto read = [&](const std::string& covers) {
    nlohmann::json j = nlohmann::json::parse(engines(covers));
    for (const auto& key :
         {"caches_mla_latent", "kv_grows_by_concat", "naive_pipeline", "persistent_grad_buffers",
          "ddp_grad_buckets", "own_zero3", "trains_on_apple", "language_models_only",
          "fp8_kv_cache", "fp8_kv_any_gpu", "logits_all_positions_in_generate",
          "kbit_training_fp32_upcast", "adapters_fp32"})
      j["hf"][key] = false;
    j["hf"]["optimizer_step_temporaries"] = 0;
    return read_engine_profiles(j, "engines.json");
  };
  EXPECT_EQ(read(R"(["4.34", "4.37"])").front().release("4.36").version, "4.35");
  for (const char* bad : {R"(["4.36", "4.37"])", R"(["4.37", "4.34"])", R"(["4.34"])",
                          R"(["4.34", "x"])", R"("4.34")"}) {
    try {
      read(bad);
      FAIL() << bad << ": no error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("covers"), std::string::npos) << e.what();
    }
  }
}

TEST(EngineProfile, VllmV1ProfileBudgetFollowsTheGpuClass) {
  // vllm/engine/arg_utils.py get_batch_defaults (OpenAI server): 8192 tokens and 1024 sequences
  // on GPUs of at least 70 GiB other than A100, 2048 and 256 elsewhere; a given budget wins.
  const EngineRelease& v1 = Catalog::builtin().engine("vllm").release("0.10");
  const ProfileRun h100 = profile_run(v1, 0, 8192, 80, "h100-sxm5-80gb");
  EXPECT_EQ(h100.tokens, 8192);
  EXPECT_EQ(h100.seqs, 1024);
  const ProfileRun a100 = profile_run(v1, 0, 8192, 80, "a100-sxm4-80gb");
  EXPECT_EQ(a100.tokens, 2048);
  EXPECT_EQ(a100.seqs, 256);
  EXPECT_EQ(profile_run(v1, 0, 8192, 24, "rtx-4090-24gb").tokens, 2048);
  EXPECT_EQ(profile_run(v1, 4096, 8192, 24, "rtx-4090-24gb").tokens, 4096);
}

TEST(EngineProfile, VllmV0ProfilesMaxModelLenUnlessChunkedPrefillIsOn) {
  // vllm/config.py SchedulerConfig (0.6): max(max_model_len, 2048) without chunked prefill,
  // which turns on above 32k tokens of context with a budget of 512.
  const EngineRelease& v0 = Catalog::builtin().engine("vllm").release("0.6.4");
  EXPECT_EQ(profile_run(v0, 0, 20000, 24, "rtx-3090-24gb").tokens, 20000);
  EXPECT_EQ(profile_run(v0, 0, 1024, 24, "rtx-3090-24gb").tokens, 2048);
  EXPECT_EQ(profile_run(v0, 0, 65536, 80, "h100-sxm5-80gb").tokens, 512);
}

TEST(EngineProfile, SglangStaticFractionFallsWithTp) {
  // sglang/srt/server_args.py: mem_fraction_static 0.88 (TP 1), 0.87 (2), 0.85 (4), 0.81 (8).
  const EngineRelease& r = Catalog::builtin().engine("sglang").release("0.4");
  EXPECT_DOUBLE_EQ(memory_fraction(r, false, 0.9, 1), 0.88);
  EXPECT_DOUBLE_EQ(memory_fraction(r, false, 0.9, 2), 0.87);
  EXPECT_DOUBLE_EQ(memory_fraction(r, false, 0.9, 8), 0.81);
  EXPECT_DOUBLE_EQ(memory_fraction(r, true, 0.7, 8), 0.7);  // given: the user's
}

TEST(EngineProfile, Sglang053DefaultFractionFollowsTheGpusMemory) {
  // python/sglang/srt/server_args.py _handle_gpu_memory_settings (v0.5.3): reserved = 512 +
  // max(chunk, 2048) x 1.5 + cuda_graph_max_bs x 2 + tp x pp x 128 MiB, at least 10,240 MiB
  // above 60 GiB; fraction = round((gpu - reserved) / gpu, 3). gpu in nvidia-smi's MiB.
  constexpr double kMiB = 1024.0 * 1024.0;
  const EngineRelease& r = Catalog::builtin().engine("sglang").release("0.5.4");
  const auto f = [&](double mib, int64_t tp, int64_t chunk = 0) {
    return memory_fraction(r, false, 0.5, FractionInputs{tp, 1, chunk, mib * kMiB});
  };
  // H100 (81,559 MiB), TP 1: chunk 8192, graphs 256: 512 + 12,288 + 512 + 128 = 13,440;
  // (81,559 - 13,440) / 81,559 = 0.8352 -> 0.835, as the docs' CI log on an H100 prints.
  EXPECT_DOUBLE_EQ(f(81559, 1), 0.835);
  // H200 (143,771 MiB), TP 1: the same 13,440; 0.90652 -> 0.907, as logged on an H200.
  EXPECT_DOUBLE_EQ(f(143771, 1), 0.907);
  // H100, TP 8: graphs 512 from TP 4: 512 + 12,288 + 1,024 + 1,024 = 14,848 -> 0.81795 -> 0.818.
  EXPECT_DOUBLE_EQ(f(81559, 8), 0.818);
  // A given chunk of 2,048 on an H100: 512 + 3,072 + 512 + 128 = 4,224, raised to the 10 GiB
  // floor above 60 GiB: (81,559 - 10,240) / 81,559 = 0.87445 -> 0.874.
  EXPECT_DOUBLE_EQ(f(81559, 1, 2048), 0.874);
  // RTX 4090 (24,564 MiB): chunk 2048, graphs 24 below TP 4: 512 + 3,072 + 48 + 128 = 3,760,
  // no floor: 0.84693 -> 0.847; at TP 4 graphs 80: 512 + 3,072 + 160 + 512 = 4,256 -> 0.827.
  EXPECT_DOUBLE_EQ(f(24564, 1), 0.847);
  EXPECT_DOUBLE_EQ(f(24564, 4), 0.827);
  // T4 (15,360 MiB): chunk 2048, graphs 8: 512 + 3,072 + 16 + 128 = 3,728 -> 0.75729 -> 0.757.
  EXPECT_DOUBLE_EQ(f(15360, 1), 0.757);
  // No GPU: SGLang's fallback 0.88; given: the user's.
  EXPECT_DOUBLE_EQ(memory_fraction(r, false, 0.5, 1), 0.88);
  EXPECT_DOUBLE_EQ(memory_fraction(r, true, 0.7, FractionInputs{1, 1, 0, 81559 * kMiB}), 0.7);
}

TEST(EngineProfile, SglangPiecewiseGraphSizes) {
  // server_args.py _generate_piecewise_cuda_graph_tokens: 4..32 by 4 (8), 48..256 by 16 (14),
  // 288..512 by 32 (8), 576..1024 by 64 (8), 1280..4096 by 256 (12), 4608.. by 512: 58 counts up
  // to 8,192 (the list the docs' CI logs print), 42 up to 2,048, 8 + 24 = 74 up to 16,384.
  const PrefillGraphRule& g =
      Catalog::builtin().engine("sglang").release("0.5.10").reserved_memory.prefill_graphs;
  EXPECT_EQ(g.sizes(8192), 58);
  EXPECT_EQ(g.sizes(2048), 42);
  EXPECT_EQ(g.sizes(16384), 74);
  EXPECT_EQ(g.sizes(100), 12);  // 4..32 (8) and 48, 64, 80, 96
  EXPECT_EQ(g.sizes(3), 0);
  EXPECT_TRUE(Catalog::builtin()
                  .engine("sglang")
                  .release("0.5.3")
                  .reserved_memory.prefill_graphs.ranges.empty());
}

TEST(EngineProfile, Sglang0510ReservesThePiecewiseGraphs) {
  // v0.5.10 (PR #16331, PR #15927): 0.5.3's reserve + 8 MiB per piecewise graph size, before the
  // 10 GiB floor. H100 (81,559 MiB), TP 1: 13,440 + 58 x 8 = 13,904; (81,559 - 13,904) / 81,559 =
  // 0.82952 -> 0.83, as the docs' CI log of 2026-03-08 prints (disable_piecewise_cuda_graph=False).
  constexpr double kMiB = 1024.0 * 1024.0;
  const EngineRelease& r = Catalog::builtin().engine("sglang").release("0.5.10");
  const auto f = [&](double mib, int64_t tp, int64_t pp = 1, bool piecewise = true,
                     bool mla = false, int64_t chunk = 0) {
    return memory_fraction(r, false, 0.5,
                           FractionInputs{tp, pp, chunk, mib * kMiB, piecewise, mla});
  };
  EXPECT_DOUBLE_EQ(f(81559, 1), 0.830);
  // TP 2: 13,904 + 128 = 14,032 -> 0.82795 -> 0.828, the figure of issue #29092 (Qwen3-32B on an
  // H100, TP not stated; TP 1 would print 0.83).
  EXPECT_DOUBLE_EQ(f(81559, 2), 0.828);
  // H200 (143,771 MiB), TP 1: 13,904 -> 0.90329 -> 0.903.
  EXPECT_DOUBLE_EQ(f(143771, 1), 0.903);
  // H100, TP 8: 512 + 12,288 + 1,024 + 1,024 + 464 = 15,312 -> 0.81226 -> 0.812.
  EXPECT_DOUBLE_EQ(f(81559, 8), 0.812);
  // PP 2 turns the piecewise graphs off: 512 + 12,288 + 512 + 256 = 13,568 -> 0.83364 -> 0.834.
  EXPECT_DOUBLE_EQ(f(81559, 1, 2, false), 0.834);
  // An MLA model captures up to 2,048 tokens: 13,440 + 42 x 8 = 13,776 -> 0.83109 -> 0.831.
  EXPECT_DOUBLE_EQ(f(81559, 1, 1, true, true), 0.831);
  // RTX 4090 (24,564 MiB), TP 1, chunk 2,048: 3,760 + 42 x 8 = 4,096, no floor -> 0.83325 ->
  // 0.833; a given chunk of 2,048 on an H100 stays at the 10 GiB floor (4,560 < 10,240): 0.874.
  EXPECT_DOUBLE_EQ(f(24564, 1), 0.833);
  EXPECT_DOUBLE_EQ(f(81559, 1, 1, true, false, 2048), 0.874);
}

TEST(EngineProfile, Sglang053ChunkedPrefillFollowsTheGpuClass) {
  // server_args.py _handle_gpu_memory_settings: 2,048 below 35 GiB, 4,096 below 60, 8,192 below
  // 160, 16,384 above; a given chunked_prefill_size wins.
  const EngineRelease& r = Catalog::builtin().engine("sglang").release("0.5.3");
  EXPECT_EQ(profile_run(r, 0, 8192, 24, "rtx-4090-24gb").tokens, 2048);
  EXPECT_EQ(profile_run(r, 0, 8192, 48, "l40s-48gb").tokens, 4096);
  EXPECT_EQ(profile_run(r, 0, 8192, 80, "h100-sxm5-80gb").tokens, 8192);
  EXPECT_EQ(profile_run(r, 0, 8192, 180, "b200-180gb").tokens, 16384);
  EXPECT_EQ(profile_run(r, 4096, 8192, 80, "h100-sxm5-80gb").tokens, 4096);
}

TEST(EngineProfile, SglangVersionsByRange) {
  // 0.5.10 to 0.5.x take release 0.5.10 (the default), 0.5.3 to 0.5.9 release 0.5.3, 0.4.x
  // release 0.4; 0.5.0 to 0.5.2 (an earlier form of the reserve) and 0.3 are not modelled, and
  // the error lists the ranges; 0.6 comes after the newest range and takes its rules.
  const EngineProfile& e = Catalog::builtin().engine("sglang");
  EXPECT_EQ(e.release("").version, "0.5.10");
  EXPECT_EQ(e.release("0.5.4").version, "0.5.3");
  EXPECT_EQ(e.release("0.5.9").version, "0.5.3");
  EXPECT_EQ(e.release("0.5.10").version, "0.5.10");
  EXPECT_EQ(e.release("0.5.19").version, "0.5.10");
  EXPECT_EQ(e.release("0.4.6").version, "0.4");
  EXPECT_EQ(e.release("0.6").version, "0.5.10");
  for (const char* outside : {"0.3", "0.5.2"}) {
    try {
      e.release(outside);
      FAIL() << outside << ": no error";
    } catch (const InputError& err) {
      const std::string what = err.what();
      EXPECT_NE(what.find("0.5.10 (0.5.10-0.5.x)"), std::string::npos) << what;
      EXPECT_NE(what.find("0.5.3 (0.5.3-0.5.9.x)"), std::string::npos) << what;
      EXPECT_NE(what.find("0.4 (0.4.x)"), std::string::npos) << what;
    }
  }
}

TEST(EngineProfile, MisspeltKeyIsAnErrorNamingFileAndKey) {
  const std::string bad = R"({"defaults": {"serving": ["hf"], "training": "hf"},
    "device": {"driver_reserved_fraction": 0.01, "gddr_ecc_fraction": 0.06,
               "apple_wired_fraction": 0.7, "cuda_context_bytes": 1, "nccl_bytes_per_communicator": 1},
    "hf": {"kind": "eager", "tasks": ["inference"], "preallocates": false, "splits_tensors": false,
           "pp_uses_nccl": false, "vendors": [], "weight_kinds": ["float"], "knobs": [],
           "norm_saves_fp32_input": true, "allocator_overhead_fracton": 0.06,
           "releases": [{"version": "all"}]}})";
  try {
    read_engine_profiles(nlohmann::json::parse(bad), "engines.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("engines.json hf"), std::string::npos) << m;
    EXPECT_NE(m.find("allocator_overhead_fraction"), std::string::npos) << m;
  }
}

// SGLang 0.5.10's reserved_memory is 0.5.3's ("same_as") with its own piecewise graphs; naming a
// release without a rule of its own is bad data naming the key.
TEST(EngineProfile, ReservedMemorySameAsNamesAReleaseWithARule) {
  const EngineProfile& e = Catalog::builtin().engine("sglang");
  EXPECT_EQ(e.release("0.5.10").reserved_memory.classes.size(),
            e.release("0.5.3").reserved_memory.classes.size());
  nlohmann::json engines = nlohmann::json::parse(embedded::find("engines.json"));
  engines["sglang"]["releases"][0]["reserved_memory"]["same_as"] = "0.4";
  try {
    read_engine_profiles(engines, "engines.json");
    FAIL() << "no error";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.field()).find("same_as"), std::string::npos) << err.field();
  }
}

// cuda_graphs_in_budget belongs to vLLM's rule, which takes the graphs from its pool; on another
// rule (TensorRT-LLM's share of free memory) it would drop them from the total alone.
TEST(EngineProfile, GraphsInTheBudgetOnlyUnderTheShareOfTotalRule) {
  nlohmann::json engines = nlohmann::json::parse(embedded::find("engines.json"));
  engines["trtllm"]["releases"][0]["cuda_graphs_in_budget"] = true;
  try {
    read_engine_profiles(engines, "engines.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.field()).find("cuda_graphs_in_budget"), std::string::npos) << e.field();
  }
  engines["trtllm"]["releases"][0].erase("cuda_graphs_in_budget");
  EXPECT_NO_THROW(read_engine_profiles(engines, "engines.json"));
}

// Every capability flag an engine must state, all off.
constexpr const char* kFlagsOff = R"("caches_mla_latent": false, "kv_grows_by_concat": false,
    "naive_pipeline": false, "persistent_grad_buffers": false, "ddp_grad_buckets": false,
    "own_zero3": false, "trains_on_apple": false, "language_models_only": false,
    "fp8_kv_cache": false, "fp8_kv_any_gpu": false, "logits_all_positions_in_generate": false,
    "kbit_training_fp32_upcast": false, "adapters_fp32": false,
    "optimizer_step_temporaries": 0)";

TEST(EngineProfile, EveryFlagAndZeroStageIsARequiredKey) {
  // No flag or ZeRO limit takes a C++ default: leaving one out of a shipped engine is an error
  // naming the file, the engine and the key.
  const nlohmann::json shipped = nlohmann::json::parse(embedded::find("engines.json"));
  for (const char* key :
       {"caches_mla_latent", "kv_grows_by_concat", "naive_pipeline", "persistent_grad_buffers",
        "ddp_grad_buckets", "own_zero3", "trains_on_apple", "language_models_only", "fp8_kv_cache",
        "fp8_kv_any_gpu", "logits_all_positions_in_generate", "kbit_training_fp32_upcast",
        "adapters_fp32", "optimizer_step_temporaries", "max_zero_stage"}) {
    nlohmann::json doc = shipped;
    ASSERT_TRUE(doc["deepspeed"].contains(key)) << key;
    doc["deepspeed"].erase(key);
    try {
      read_engine_profiles(doc, "engines.json");
      ADD_FAILURE() << key << ": no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), std::string("engines.json deepspeed.") + key);
      EXPECT_EQ(e.code(), "bad_file");
    }
  }
  // A ZeRO limit is for engines that train.
  nlohmann::json doc = shipped;
  doc["vllm"]["max_zero_stage"] = 3;
  EXPECT_THROW(read_engine_profiles(doc, "engines.json"), InputError);
}

TEST(EngineProfile, FlagsOfTheShippedEngines) {
  const Catalog& c = Catalog::builtin();
  // transformers docs "Efficient training on multiple GPUs": device_map's naive pipeline.
  EXPECT_TRUE(c.engine("hf").naive_pipeline);
  EXPECT_FALSE(c.engine("megatron").naive_pipeline);   // 1F1B and interleaved schedules
  EXPECT_FALSE(c.engine("deepspeed").naive_pipeline);  // PipelineModule TrainSchedule (1F1B)
  // llama.cpp --cache-type-k/v: f16, bf16, q8_0, q4_0, ... but no fp8.
  EXPECT_FALSE(c.engine("llama.cpp").fp8_kv_cache);
  EXPECT_TRUE(c.engine("vllm").fp8_kv_cache);     // --kv-cache-dtype fp8
  EXPECT_EQ(c.engine("vllm").max_zero_stage, 0);  // serves only
  EXPECT_EQ(c.engine("fsdp").max_zero_stage, 3);
}

TEST(EngineProfile, TrainingLeversAreReadAndChecked) {
  // A training engine states its layout levers; offloads must start with "none" and ZeRO
  // stages stay within max_zero_stage.
  auto engine = [](const std::string& levers) {
    return R"({"hf": {"kind": "eager", "tasks": ["full"], "preallocates": false,
           "splits_tensors": false, "pp_uses_nccl": false, "vendors": [], "weight_kinds": [],
           "knobs": [], "norm_saves_fp32_input": true, "allocator_overhead_fraction": 0.06,
           "loss_bytes_per_logit": 14, "max_zero_stage": 1, "releases": [{"version": "all"}],)" +
           std::string(kFlagsOff) + levers + "}}";
  };
  const std::string ok = R"(, "training_levers": {"tp": true, "pp": true, "sp": true,
      "cp": false, "ep": false, "selective_recompute": true, "max_interleave": 4,
      "zero_stages": [0, 1], "offloads": ["none", "optimizer"]})";
  const auto profiles = read_engine_profiles(nlohmann::json::parse(engine(ok)), "engines.json");
  ASSERT_EQ(profiles.size(), 1u);
  const TrainingLevers& l = profiles[0].training_levers;
  EXPECT_TRUE(l.tp && l.sp && l.selective);
  EXPECT_FALSE(l.cp);
  EXPECT_EQ(l.max_interleave, 4);
  EXPECT_EQ(l.zero_stages, (std::vector<int>{0, 1}));
  EXPECT_EQ(l.offloads, (std::vector<Offload>{Offload::kNone, Offload::kOptimizer}));
  auto error_of = [&](const std::string& levers) {
    try {
      read_engine_profiles(nlohmann::json::parse(engine(levers)), "engines.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("").find("training_levers"), std::string::npos);
  std::string stage3 = ok;
  stage3.replace(stage3.find("[0, 1]"), 6, "[0, 3]");
  EXPECT_NE(error_of(stage3).find("zero_stages"), std::string::npos);
  std::string first = ok;
  first.replace(first.find(R"(["none", "optimizer"])"), 21, R"(["optimizer"])");
  EXPECT_NE(error_of(first).find("offloads"), std::string::npos);
}

}  // namespace
}  // namespace gpusizer
