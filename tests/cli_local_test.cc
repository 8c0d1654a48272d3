// End-to-end: the gpusizer binary on what users already have: models in local stores, start-up
// logs and llama-bench output, documents for spreadsheets, and batches without a terminal.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "importers/test_stores.h"

namespace {

namespace fs = std::filesystem;

struct Result {
  int status = -1;
  std::string out;
};

// Runs `prefix gpusizer args` through the shell; stderr is merged into out when `merge`, else
// written to `stderr_file` (or dropped).
Result run(const std::string& prefix, const std::string& args, bool merge = false,
           const std::string& stderr_file = "/dev/null") {
  const std::string cmd = prefix + " " + std::string(GPUSIZER_CLI_PATH) + " " + args +
                          (merge ? " 2>&1" : " 2>'" + stderr_file + "'");
  Result r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
  const int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class CliLocal : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpusizer_cli_local_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    gpusizer::testing::make_fake_stores(dir_);
    fs::create_directories(dir_ / "home");
    env_ = "cd '" + dir_.string() + "' && env HOME='" + (dir_ / "home").string() +
           "' HF_HUB_CACHE='" + (dir_ / "hf").string() + "' MODELSCOPE_CACHE='" +
           (dir_ / "ms").string() + "' OLLAMA_MODELS='" + (dir_ / "ollama").string() + "'";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
  std::string env_;
};

TEST_F(CliLocal, ModelNamesResolveFromTheThreeStoresWithExactCounts) {
  struct Want {
    const char* name;
    const char* origin;
    int64_t params;
  };
  for (const Want& w :
       {Want{"acme/tiny", "hf-cache", gpusizer::testing::kStoreTinyParams},
        Want{"qwen/Tiny2.5-0.5B", "modelscope", gpusizer::testing::kStoreTinyParams},
        Want{"tiny:q4", "ollama", gpusizer::testing::kStoreGgufParams}}) {
    const Result r = run(env_, std::string("estimate --format json --model ") + w.name);
    ASSERT_EQ(r.status, 0) << w.name << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["scenario"]["model_origin"], w.origin) << w.name;
    EXPECT_EQ(j["model"]["params"], w.params) << w.name;
    EXPECT_NE(r.out.find("model found in " + std::string(w.origin)), std::string::npos);
  }
}

TEST_F(CliLocal, BrokenStoreEntryExitsTwoNamingTheFile) {
  fs::remove_all(dir_ / "hf" / "models--acme--tiny" / "snapshots");
  const Result r = run(env_, "estimate --model acme/tiny", true);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("models--acme--tiny/refs/main"), std::string::npos) << r.out;
  // An unknown name is still refused with the catalog's suggestions.
  const Result u = run(env_, "estimate --model llama-2-7bb", true);
  EXPECT_EQ(u.status, 2);
  EXPECT_NE(u.out.find("llama-2-7b"), std::string::npos);
}

TEST_F(CliLocal, ModelsLocalListsTheStoresAsTableJsonAndCsv) {
  const Result j = run(env_, "models --local --format json");
  ASSERT_EQ(j.status, 0);
  const auto rows = nlohmann::json::parse(j.out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["store"], "hf-cache");
  EXPECT_EQ(rows[2]["name"], "tiny:q4");
  const Result t = run(env_, "models --local --format table");
  EXPECT_NE(t.out.find("qwen/Tiny2.5-0.5B"), std::string::npos);
  const Result c = run(env_, "models --local --format csv");
  EXPECT_EQ(c.out.substr(0, c.out.find("\r\n")), "store,name,bytes,path");
  EXPECT_EQ(c.out.find("error"), std::string::npos);  // no entry is broken
}

// vLLM 0.6 start-up of Llama-3.1-8B-Instruct on an RTX 3090 at --max-model-len 20000.
// Source: https://github.com/vllm-project/vllm/issues/10517 (comment of 2024-12-02).
const char* kVllmLog = R"(Loading model weights took 14.9888 GB
Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90
GPU blocks: 1952, # CPU blocks: 2048
Maximum concurrency for 20000 tokens per request: 1.56x
)";

TEST_F(CliLocal, CheckPutsTheEstimateBesideTheLog) {
  const std::string log = write("vllm.log", kVllmLog);
  const Result t = run(env_, "check " + log + " --model llama-3.1-8b --gpu rtx-3090-24gb -f table");
  ASSERT_EQ(t.status, 0) << t.out;
  for (const char* c : {"weights", "non-torch", "activation peak", "KV cache bytes",
                        "KV cache tokens", "max concurrency"})
    EXPECT_NE(t.out.find(c), std::string::npos) << c;
  const Result j = run(env_, "check " + log + " --model llama-3.1-8b --gpu rtx-3090-24gb -f json");
  const auto check = nlohmann::json::parse(j.out);
  ASSERT_EQ(check["runs"].size(), 1u);
  EXPECT_EQ(check["runs"][0]["scenario"]["seq_len"], 20000);  // from the log, not a flag
  int weights_rows = 0;
  for (const auto& row : check["runs"][0]["rows"]) {
    if (row["key"] != "weights_bytes") continue;
    ++weights_rows;
    // Llama-3.1-8B holds 8,030,261,248 parameters: x 2 bytes = 16,060,522,496 B = 14.9575 GiB
    // against the 14.9888 GiB vLLM loaded: -0.2%.
    EXPECT_NEAR(row["rel_error"].get<double>(), 14.9575 / 14.9888 - 1, 0.002);
  }
  EXPECT_EQ(weights_rows, 1) << "the log's weights line is compared once";
  // Without a model the log cannot be estimated: exit 2 with the reason.
  EXPECT_EQ(run(env_, "check " + log).status, 2);
}

// llama-bench on an RTX 4090. Source: https://github.com/ggml-org/llama.cpp/pull/4766.
const char* kBench = R"(  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes
| model                          |       size |     params | backend    | ngl | test       |              t/s |
| ------------------------------ | ---------: | ---------: | ---------- | --: | ---------- | ---------------: |
| llama 7B F16                   |  12.55 GiB |     6.74 B | CUDA       |  99 | pp 512     | 11048.22 ± 269.74 |
| llama 7B F16                   |  12.55 GiB |     6.74 B | CUDA       |  99 | tg 128     |     61.03 ± 0.07 |
| llama 7B Q8_0                  |   6.67 GiB |     6.74 B | CUDA       |  99 | pp 512     | 7664.00 ± 108.83 |
| llama 7B Q8_0                  |   6.67 GiB |     6.74 B | CUDA       |  99 | tg 128     |     98.13 ± 0.07 |
)";

TEST_F(CliLocal, CalibrateOnLlamaBenchShowsEveryRowAndWritesNothingWithoutOutput) {
  const std::string bench = write("bench.md", kBench);
  const Result r = run(env_, "calibrate " + bench + " --model llama-2-7b --gpu rtx-4090");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("read 4 speed rows"), std::string::npos) << r.out;
  for (int i = 1; i <= 4; ++i)
    EXPECT_NE(r.out.find("llama-bench-markdown-" + std::to_string(i)), std::string::npos);
  EXPECT_NE(r.out.find("calibrated on 4 rows"), std::string::npos);
  EXPECT_NE(r.out.find("profile not written"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "speed.json"));
  const Result w =
      run(env_, "calibrate " + bench + " --model llama-2-7b --gpu rtx-4090 -o fit.json");
  EXPECT_EQ(w.status, 0);
  EXPECT_TRUE(fs::exists(dir_ / "fit.json"));
}

TEST_F(CliLocal, CalibrateUsesPlainRowsAndShowsMemoryFiguresOfALog) {
  // Rows with neither "include" nor "use" calibrate (they were dropped before).
  const std::string rows = write(
      "mine.jsonl",
      R"({"id": "a", "compare": "decode_tokens_per_s", "measured": 61.03, "scenario": {"model": "llama-2-7b", "gpu": "rtx-4090", "engine": "llama.cpp", "weights": "fp16", "prompt_len": 0, "output_len": 128}})"
      "\n"
      R"({"id": "b", "compare": "decode_tokens_per_s", "measured": 98.13, "scenario": {"model": "llama-2-7b", "gpu": "rtx-4090", "engine": "llama.cpp", "weights": "q8_0", "prompt_len": 0, "output_len": 128}})"
      "\n");
  const Result r = run(env_, "calibrate " + rows);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("calibrated on 2 rows"), std::string::npos) << r.out;
  const std::string log = write("vllm.log", kVllmLog);
  const Result m = run(env_, "calibrate " + log + " --model llama-3.1-8b --gpu rtx-3090-24gb");
  ASSERT_EQ(m.status, 0) << m.out;
  EXPECT_NE(m.out.find("memory figures read"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("KV cache tokens"), std::string::npos);
}

TEST_F(CliLocal, ReportIsMarkdownWhenPiped) {
  const Result r = run(env_, "report --model llama-2-7b --engine vllm");
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("#", 0), 0u) << r.out.substr(0, 200);
  EXPECT_FALSE(nlohmann::json::accept(r.out));
  EXPECT_TRUE(nlohmann::json::accept(run(env_, "report --model llama-2-7b -f json").out));
}

TEST_F(CliLocal, TablesAsCsv) {
  const Result g = run(env_, "gpus --format csv");
  ASSERT_EQ(g.status, 0);
  const Result gj = run(env_, "gpus --format json");
  const size_t rows = nlohmann::json::parse(gj.out).size();
  size_t lines = 0;
  for (size_t at = g.out.find("\r\n"); at != std::string::npos; at = g.out.find("\r\n", at + 2))
    ++lines;
  EXPECT_EQ(lines, rows + 1);  // header + one record per GPU (no field holds a line break)
  EXPECT_EQ(g.out.rfind("id,", 0), 0u);
  EXPECT_EQ(run(env_, "recommend --model llama-2-7b --format csv").out.rfind("rank,gpu,", 0), 0u);
  EXPECT_EQ(run(env_, "validate --format csv").out.rfind("set,id,", 0), 0u);
  EXPECT_EQ(run(env_, "models --format csv").status, 0);
  EXPECT_EQ(run(env_, "estimate --model llama-2-7b --format csv").status, 2);  // not a table
}

TEST_F(CliLocal, BatchPrintsNoProgressWhenStderrIsNotATerminal) {
  std::string lines;
  for (int i = 0; i < 200; ++i)
    lines += R"({"model": "llama-2-7b", "batch": )" + std::to_string(i + 1) + "}\n";
  const std::string batch = write("b.jsonl", lines);
  const std::string err = (dir_ / "err.txt").string();
  const Result r = run(env_, "estimate --input " + batch + " --jobs 2", false, err);
  EXPECT_EQ(r.status, 0);
  std::ifstream in(err);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), "");
}

TEST_F(CliLocal, ServeRefusesAnUnknownStore) {
  const Result r = run(env_, "serve --port 0 --model-stores hf,civitai", true);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("civitai"), std::string::npos);
}

}  // namespace
