// The default engine and the knob warnings (issue 12 item 7).
#include "scenario/engine_choice.h"
#include "gpusizer/error.h"
#include "gpusizer/json/scenario.h"

#include <gtest/gtest.h>

namespace gpusizer {
namespace {

Scenario parse(nlohmann::json j) {
  return parse_scenario(j, Catalog::builtin());
}

bool has_note(const Scenario& s, const std::string& text) {
  for (const auto& n : s.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

TEST(EngineChoice, ServingDefaultsToVllmOnNvidiaAndAmd) {
  for (const char* gpu : {"h100-sxm5-80gb", "rtx-4090-24gb", "mi300x-192gb"}) {
    const Scenario s = parse({{"model", "llama-3.1-8b"}, {"gpu", gpu}});
    EXPECT_EQ(s.engine, "vllm") << gpu;
    EXPECT_EQ(s.engine_version, "0.21") << gpu;
    EXPECT_NE(s.engine_basis.find("default for serving"), std::string::npos) << s.engine_basis;
  }
}

TEST(EngineChoice, ServingDefaultsToLlamaCppOnAppleAndForGguf) {
  EXPECT_EQ(parse({{"model", "llama-3.1-8b"}, {"gpu", "apple-m2-ultra-192gb"}}).engine,
            "llama.cpp");
  EXPECT_EQ(
      parse({{"model", "llama-3.1-8b"}, {"weights", "q4_k_m"}, {"gpu", "rtx-4090-24gb"}}).engine,
      "llama.cpp");
}

// The GPU a serving line's default engine is chosen for is the scenario's GPU (looked up once,
// by the alias "h100" as by its id), and an unknown one is named at "gpu" whether or not an
// engine is given (the default engine's lookup comes first).
TEST(EngineChoice, DefaultEnginesGpuIsTheScenarios) {
  const Scenario s = parse({{"model", "llama-3.1-8b"}, {"gpu", "h100"}});
  ASSERT_TRUE(s.gpu);
  EXPECT_EQ(s.gpu.get(), Catalog::builtin().gpu_ref("h100").get());
  EXPECT_EQ(s.engine, "vllm");
  for (const nlohmann::json& engine : {nlohmann::json(), nlohmann::json("vllm")}) {
    nlohmann::json line = {{"model", "llama-3.1-8b"}, {"gpu", "no-such-gpu-9000"}};
    if (!engine.is_null()) line["engine"] = engine;
    try {
      parse(line);
      ADD_FAILURE() << "an unknown GPU was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "gpu") << e.what();
    }
  }
}

TEST(EngineChoice, TrainingStaysOnHf) {
  EXPECT_EQ(parse({{"model", "llama-3.1-8b"}, {"task", "lora"}, {"gpu", "h100-sxm5-80gb"}}).engine,
            "hf");
  EXPECT_EQ(parse({{"model", "resnet-50"}, {"task", "cv-train"}, {"gpu", "h100-sxm5-80gb"}}).engine,
            "hf");
}

TEST(EngineChoice, GivenEngineAndVersionAreKept) {
  const Scenario s = parse({{"model", "llama-3.1-8b"},
                            {"engine", "vllm"},
                            {"engine_version", "0.6.4"},
                            {"gpu", "rtx-3090-24gb"}});
  EXPECT_EQ(s.engine_version, "0.6.4");
  EXPECT_EQ(s.engine_basis, "given");
}

// No version given: the newest release's rules, and the basis names their range, so that
// "release 0.21" does not read as vLLM's newest release (data/engines.json: 0.21 covers 0.21 to
// 0.28).
TEST(EngineChoice, TheDefaultReleaseNamesTheRangeItCovers) {
  const Scenario s =
      parse({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu", "h100-sxm5-80gb"}});
  EXPECT_EQ(s.engine_version, "0.21");
  EXPECT_EQ(s.engine_basis, "given; release 0.21 (the newest modelled: 0.21 to 0.28)");
}

// vLLM 0.29 (released after the newest range modelled, 0.21 to 0.28.x in data/engines.json):
// sized by 0.21's rules, and the answer says so in its warnings and its engine basis.
TEST(EngineChoice, AVersionNewerThanModelledIsSizedByTheNewestWithAWarning) {
  const Scenario s = parse({{"model", "llama-3.1-8b"},
                            {"engine", "vllm"},
                            {"engine_version", "0.29.1"},
                            {"gpu", "h100-sxm5-80gb"}});
  EXPECT_EQ(s.engine_version, "0.21");
  EXPECT_TRUE(has_note(s,
                       "vllm 0.29.1 is newer than the releases modelled: sized by the rules "
                       "of 0.21 (0.21 to 0.28)"));
  EXPECT_NE(s.engine_basis.find("release 0.29.1 by the rules of 0.21, the newest modelled"),
            std::string::npos)
      << s.engine_basis;
  // A version inside a range is no warning.
  const Scenario inside = parse({{"model", "llama-3.1-8b"},
                                 {"engine", "vllm"},
                                 {"engine_version", "0.27.1"},
                                 {"gpu", "h100-sxm5-80gb"}});
  EXPECT_FALSE(has_note(inside, "newer than the releases modelled"));
}

// An empty engine_version is refused as an empty engine or GPU is, for the named engine and for
// the default one (vllm on an H100), with the releases listed; before, it was sized by the newest
// release with a basis reading "release  by the rules of 0.21".
TEST(EngineChoice, AnEmptyVersionIsBadInput) {
  for (const nlohmann::json& engine : {nlohmann::json(), nlohmann::json("vllm")}) {
    nlohmann::json line = {{"model", "llama-3.1-8b"}, {"engine_version", ""}, {"gpu", "h100"}};
    if (!engine.is_null()) line["engine"] = engine;
    try {
      parse(line);
      ADD_FAILURE() << "an empty engine_version was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "engine_version");
      EXPECT_NE(std::string(e.what()).find("unknown vllm version ''; the versions modelled are "
                                           "0.21 (0.21-0.28.x)"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(EngineChoice, KnobsAnEngineIgnoresAreWarnings) {
  const Scenario hf = parse({{"model", "llama-3.1-8b"},
                             {"engine", "hf"},
                             {"gpu_memory_utilization", 0.8},
                             {"max_num_batched_tokens", 4096}});
  EXPECT_TRUE(has_note(hf, "gpu_memory_utilization is ignored: hf"));
  EXPECT_TRUE(has_note(hf, "max_num_batched_tokens is ignored: hf"));
  const Scenario vllm =
      parse({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"gpu_memory_utilization", 0.8}});
  EXPECT_FALSE(has_note(vllm, "is ignored"));
}

// The engine's limits as launched: kept for the engines that have them, a warning and nothing
// else for the others.
TEST(EngineChoice, EngineLimitsAreKeptOrIgnored) {
  const Scenario vllm = parse({{"model", "llama-3.1-8b"},
                               {"engine", "vllm"},
                               {"max_num_seqs", 64},
                               {"max_model_len", 8192}});
  EXPECT_EQ(vllm.max_num_seqs, 64);
  EXPECT_EQ(vllm.max_model_len, 8192);
  EXPECT_FALSE(has_note(vllm, "is ignored"));
  EXPECT_FALSE(has_note(vllm, "exceeds max_num_seqs"));
  const Scenario wide =
      parse({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"batch", 96}, {"max_num_seqs", 64}});
  EXPECT_TRUE(has_note(wide, "batch 96 exceeds max_num_seqs 64"));
  const Scenario llama_cpp = parse({{"model", "llama-3.1-8b"},
                                    {"engine", "llama.cpp"},
                                    {"weights", "q4_k_m"},
                                    {"max_num_seqs", 64},
                                    {"max_model_len", 8192}});
  EXPECT_EQ(llama_cpp.max_num_seqs, 0);
  EXPECT_EQ(llama_cpp.max_model_len, 0);
  EXPECT_TRUE(has_note(llama_cpp, "max_num_seqs is ignored: llama.cpp"));
  EXPECT_TRUE(has_note(llama_cpp, "max_model_len is ignored: llama.cpp"));
}

// A sequence longer than the engine's max_model_len is refused by the engine: bad input naming
// the field.
TEST(EngineChoice, MaxModelLenBelowSeqLenIsBadInput) {
  try {
    parse({{"model", "llama-3.1-8b"},
           {"engine", "vllm"},
           {"seq_len", 4096},
           {"max_model_len", 2048}});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "max_model_len");
  }
  EXPECT_THROW(parse({{"model", "llama-3.1-8b"}, {"engine", "vllm"}, {"max_num_seqs", 0}}),
               InputError);
}

TEST(EngineChoice, AdvisorRetargetsOnlyADefaultedEngine) {
  const Catalog& c = Catalog::builtin();
  Scenario s = parse({{"model", "llama-3.1-8b"}});
  EXPECT_EQ(s.engine, "vllm");
  EXPECT_TRUE(retarget_default_engine(s, c.gpu("apple-m2-ultra-192gb"), c));
  EXPECT_EQ(s.engine, "llama.cpp");
  Scenario given = parse({{"model", "llama-3.1-8b"}, {"engine", "vllm"}});
  EXPECT_FALSE(retarget_default_engine(given, c.gpu("apple-m2-ultra-192gb"), c));
}

// The decision reads the typed flag, never the basis text (which is for the output only): a
// defaulted engine whose basis says something else is still retargeted, and a named one whose
// basis reads like a default is not.
TEST(EngineChoice, RetargetDecidesOnTheFlagNotTheBasisText) {
  const Catalog& c = Catalog::builtin();
  Scenario s = parse({{"model", "llama-3.1-8b"}});
  EXPECT_TRUE(s.engine_defaulted);
  s.engine_basis = "reworded";
  EXPECT_TRUE(retarget_default_engine(s, c.gpu("apple-m2-ultra-192gb"), c));
  Scenario given = parse({{"model", "llama-3.1-8b"}, {"engine", "vllm"}});
  EXPECT_FALSE(given.engine_defaulted);
  given.engine_basis = "default for serving bf16 weights";
  EXPECT_FALSE(retarget_default_engine(given, c.gpu("apple-m2-ultra-192gb"), c));
}

}  // namespace
}  // namespace gpusizer
