// gpusizer check maps the engine version a log states to a release through data/engines.json's
// ranges. The releases expected are checked by hand against engines.json "covers": vllm 0.21
// [0.21, 0.27], 0.11 [0.11, 0.20], 0.10 [0.9, 0.10] (these three engine_path V1), 0.7 [0.7, 0.8],
// 0.6.5 and 0.6.4 only themselves (V0); sglang 0.5.10 [0.5.10, 0.5.x], 0.5.3 [0.5.3, 0.5.9], 0.4
// [0.4.x]; trtllm 1.0 [1.0.x], 0.8 [0.8, 0.21], 0.6 [0.5, 0.7.0]. The version lines are quoted
// from public logs (sources at each), cut before the engine's config.
#include "gpusizer/json/log_check.h"

#include <gtest/gtest.h>

#include <string>

#include "gpusizer/catalog.h"
#include "gpusizer/log_reader.h"

namespace gpusizer {
namespace {

using nlohmann::json;

// The first run of `log` checked as a Llama-3.1-8B on an RTX 3090 (flags: the lines name no
// model), so that every release applied is also estimated.
json checked(const std::string& log) {
  const json flags = {{"model", "llama-3.1-8b"}, {"gpu", "rtx-3090-24gb"}};
  return check_log(read_log(log, "log"), flags, Catalog::builtin())["runs"].at(0);
}

std::string notes_of(const json& run) {
  std::string all;
  for (const auto& n : run["notes"]) all += n.get<std::string>() + "\n";
  return all;
}

// A figure each engine's reader keeps a run for (vLLM V1's loader line; SGLang's pool, vLLM issue
// #21348; TensorRT-LLM's engine, shaamil101-etched/trtllm-benchmarks at aeec9f2).
const char* kVllmFigure = "Model loading took 14.99 GiB\n";
const char* kSglangFigure =
    "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB\n";
const char* kTrtllmFigure = "[TensorRT-LLM][INFO] Loaded engine size: 8925 MiB\n";

struct Case {
  std::string log;
  const char* release;
};

// Versions inside a range take its release: V0 0.8.5.post1 (https://github.com/kserve/kserve/
// pull/4470), V1 0.24.0 (https://github.com/noonghunna/club-3090/issues/612), SGLang 0.5.4,
// 0.4.6.post5 and 0.5.19 as check_env and the image tags print them, TensorRT-LLM 0.16.0 and
// 1.0.0rc4 (https://github.com/NVIDIA/TensorRT-LLM/issues/6294).
TEST(LogCheck, AVersionInsideARangeTakesThatRelease) {
  const std::string v = kVllmFigure, s = kSglangFigure, t = kTrtllmFigure;
  for (const Case& c : {Case{"Initializing a V0 LLM engine (v0.8.5.post1)\n" + v, "0.7"},
                        Case{"Initializing a V1 LLM engine (v0.24.0)\n" + v, "0.21"},
                        Case{"sglang==0.5.4\n" + s, "0.5.3"},
                        Case{"docker run lmsysorg/sglang:v0.4.6.post5-cu124\n" + s, "0.4"},
                        Case{"image lmsysorg/sglang:v0.5.19\n" + s, "0.5.10"},
                        Case{"[TensorRT-LLM] TensorRT-LLM version: 0.16.0\n" + t, "0.8"},
                        Case{"[TensorRT-LLM] TensorRT-LLM version: 1.0.0rc4\n" + t, "1.0"}}) {
    const json run = checked(c.log);
    EXPECT_EQ(run["scenario"]["engine_version"], c.release) << c.log;
    EXPECT_FALSE(run.contains("error")) << c.log << run.dump();
    EXPECT_EQ(notes_of(run).find("outside"), std::string::npos) << c.log;
  }
  const json v0 = checked("Initializing a V0 LLM engine (v0.8.5.post1)\n" + v);
  EXPECT_EQ(notes_of(v0), "the log's vllm 0.8.5 is checked with release 0.7 (0.7-0.8.x)\n");
}

// A version no release covers is checked with the newest release, said in a note, and is not an
// error: vLLM 0.4.2 (https://github.com/vllm-project/vllm/issues/5104), 0.6.1 (0.6.0 to 0.6.3
// profile by the method vLLM PR #9352 replaced in 0.6.4, so 0.6.4's range stays 0.6.4:
// https://github.com/pytorch/serve/pull/3343), SGLang 0.5.1 (before 0.5.3's reserve rule),
// TensorRT-LLM 0.7.1 (XQA arrived; neither 0.6 nor 0.8 covers it).
TEST(LogCheck, AVersionNoReleaseCoversTakesTheNewestWithANote) {
  const std::string v = kVllmFigure;
  for (const Case& c :
       {Case{"INFO 05-29 10:26:04 llm_engine.py:100] Initializing an LLM engine (v0.4.2)\n" + v,
             "0.21"},
        Case{"Initializing an LLM engine (v0.6.1.dev238+ge2c6e0a82)\n" + v, "0.21"},
        Case{"sglang==0.5.1\n" + std::string(kSglangFigure), "0.5.10"},
        Case{"TensorRT-LLM version: 0.7.1\n" + std::string(kTrtllmFigure), "1.0"}}) {
    const json run = checked(c.log);
    EXPECT_EQ(run["scenario"]["engine_version"], c.release) << c.log;
    EXPECT_FALSE(run.contains("error")) << c.log << run.dump();
    EXPECT_NE(notes_of(run).find("outside the releases modelled"), std::string::npos) << c.log;
  }
  EXPECT_EQ(notes_of(checked("Initializing an LLM engine (v0.4.2)\n" + v)),
            "the log's vllm 0.4.2 is outside the releases modelled (0.6.4.x, 0.6.5.x, 0.7-0.8.x, "
            "0.9-0.10.x, 0.11-0.20.x, 0.21-0.28.x); checked with release 0.21\n");
  // After the newest range (0.21 covers 0.21 to 0.28.x in data/engines.json): the newest
  // release, as an estimate takes it, and the note says the log is the newer one.
  const json newer = checked("Initializing a V1 LLM engine (v0.29.0)\n" + v);
  EXPECT_EQ(newer["scenario"]["engine_version"], "0.21");
  EXPECT_EQ(notes_of(newer),
            "the log's vllm 0.29.0 is newer than the releases modelled; checked with release 0.21 "
            "(0.21-0.28.x)\n");
}

// vLLM's V1 engine in 0.8.x: 0.8.5 lies in the range of the V0 release 0.7, but V1 profiles by
// its own gpu_worker.py, so the log takes the oldest V1 release, 0.10. The path moves only a
// version covered by an older release of the other path: V0 0.8.5 stays 0.7, V1 0.24 stays 0.21.
// Source of the V1 line: https://github.com/vllm-project/vllm/pull/18224 (comment by davidxia).
TEST(LogCheck, AV1LogOfAV0RangeTakesTheOldestV1Release) {
  const std::string v = kVllmFigure;
  const json run = checked(
      "INFO 05-20 12:43:01 [core.py:61] Initializing a V1 LLM engine (v0.8.5.dev708+g451da4bcb)\n" +
      v);
  EXPECT_EQ(run["scenario"]["engine_version"], "0.10");
  EXPECT_FALSE(run.contains("error")) << run.dump();
  EXPECT_EQ(notes_of(run),
            "the log's vllm 0.8.5 runs the V1 engine, which release 0.7 (0.7-0.8.x) does not "
            "model: checked with release 0.10, the oldest V1 release\n");
  EXPECT_EQ(checked("Initializing a V0 LLM engine (v0.8.5)\n" + v)["scenario"]["engine_version"],
            "0.7");
  EXPECT_EQ(checked("Initializing a V1 LLM engine (v0.24.0)\n" + v)["scenario"]["engine_version"],
            "0.21");
}

// Without a version line the reader infers the release from the form of a memory line; the check
// says so, and the release is the one inferred. Source: https://github.com/vllm-project/vllm/
// issues/10517 (comment of 2024-12-02), the two first lines.
TEST(LogCheck, AnInferredVersionIsNoted) {
  const json run = checked(
      "Loading model weights took 14.9888 GB\nMemory profiling results: total_gpu_memory=23.58GiB "
      "initial_memory_usage=15.34GiB peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB "
      "non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90\n");
  EXPECT_EQ(run["scenario"]["engine_version"], "0.6.4");
  const std::string notes = notes_of(run);
  EXPECT_EQ(notes.rfind("the log states no vllm version: 0.6.4 inferred from line 2: ", 0), 0u)
      << notes;
  EXPECT_EQ(notes.find("checked with"), std::string::npos) << notes;
}

// A figures file's scenario is the user's own: its engine_version is read as an estimate reads
// it, so a version no release covers is the estimate's error naming the field, not remapped.
TEST(LogCheck, AFiguresFilesVersionIsLeftToTheEstimate) {
  const json run = checked(R"({"scenario": {"engine": "vllm", "engine_version": "0.5.4"},
                               "measured": {"kv_cache_tokens": 31232}})");
  EXPECT_EQ(run["scenario"]["engine_version"], "0.5.4");
  ASSERT_TRUE(run.contains("error"));
  EXPECT_NE(run["error"].get<std::string>().find("0.5.4"), std::string::npos) << run["error"];
  EXPECT_TRUE(run["notes"].empty());
}

// calibrate's rows from a log take the release as the check does: trtllm-bench's throughput of
// a TensorRT-LLM 0.7.1 run (in neither 0.6's range, 0.5 to 0.7.0, nor 0.8's) is estimated by the
// newest release with the check's note, not refused as an unknown version; 0.16.0 takes 0.8.
TEST(LogCheck, CalibrationRowsFromALogTakeTheMappedRelease) {
  const json flags = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}};
  const std::string report = "Token Throughput (tokens/sec):\t7944.3036\n";
  for (const Case& c : {Case{"[TensorRT-LLM] TensorRT-LLM version: 0.7.1\n" + report, "1.0"},
                        Case{"[TensorRT-LLM] TensorRT-LLM version: 0.16.0\n" + report, "0.8"}}) {
    const auto cases = speed_cases_from_log(read_log(c.log, "log"), flags, Catalog::builtin());
    ASSERT_EQ(cases.size(), 1u) << c.log;
    EXPECT_EQ(cases[0].compare, "offline_output_tokens_per_s");
    EXPECT_EQ(cases[0].scenario["engine_version"], c.release) << c.log;
  }
  const auto uncovered =
      speed_cases_from_log(read_log("[TensorRT-LLM] TensorRT-LLM version: 0.7.1\n" + report, "log"),
                           flags, Catalog::builtin());
  EXPECT_NE(uncovered[0].notes.find("outside the releases modelled"), std::string::npos)
      << uncovered[0].notes;
}

}  // namespace
}  // namespace gpusizer
