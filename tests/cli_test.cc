// End-to-end: the gpusizer binary through the contract's commands, exit codes and batch rules.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace {

struct Result {
  int status = -1;
  std::string out;
};

// Runs the CLI with a shell argument string; stderr goes to stdout when `merge_stderr`.
Result cli(const std::string& args, bool merge_stderr = false) {
  const std::string cmd =
      std::string(GPUSIZER_CLI_PATH) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null");
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

TEST(Cli, EstimateJsonHasTheContractKeys) {
  const Result r = cli("estimate --model llama-2-7b --gpu a100-sxm4-80gb --format json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"total_bytes", "reserved_bytes", "allocated_bytes", "low_bytes",
                          "high_bytes", "weights_bytes", "kv_cache_bytes", "activations_bytes",
                          "gradients_bytes", "optimizer_bytes", "master_weights_bytes",
                          "overhead_bytes", "gpu_capacity_bytes", "fits", "max_batch"})
    EXPECT_TRUE(j["memory"].contains(key)) << key;
  EXPECT_EQ(j["model"]["params"], 6738415616);
  EXPECT_TRUE(j.contains("warnings") && j.contains("basis") && j.contains("power"));
}

TEST(Cli, UnknownGpuExitsTwoWithSuggestions) {
  const Result r = cli("estimate --model llama-2-7b --gpu hh100-sxm5", true);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("gpu"), std::string::npos);
  EXPECT_NE(r.out.find("h100-sxm5-80gb"), std::string::npos);
}

TEST(Cli, BadFlagValueExitsTwo) {
  EXPECT_EQ(cli("estimate --model llama-2-7b --batch two").status, 2);
  EXPECT_EQ(cli("estimate --model llama-2-7b --batch 0").status, 2);
  EXPECT_EQ(cli("estimate --model llama-2-7b --format yaml").status, 2);
}

TEST(Cli, JsonlBatchAnswersEveryLineInOrder) {
  const std::string path = testing::TempDir() + "/batch.jsonl";
  std::ofstream(path) << R"({"model": "llama-2-7b"})"
                      << "\n"
                      << R"({"model": "no-such-model"})"
                      << "\n"
                      << "not json\n"
                      << R"({"model": "qwen2.5-7b", "batch": 4})"
                      << "\n";
  const Result r = cli("estimate --input " + path);
  EXPECT_EQ(r.status, 2);
  std::vector<nlohmann::json> lines;
  size_t start = 0;
  for (size_t end; (end = r.out.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(nlohmann::json::parse(r.out.substr(start, end - start)));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0]["model"]["id"], "llama-2-7b");
  EXPECT_EQ(lines[1]["error"]["code"], "unknown_name");
  EXPECT_EQ(lines[2]["error"]["code"], "bad_json");
  EXPECT_EQ(lines[3]["model"]["id"], "qwen2.5-7b");
}

TEST(Cli, JsonlBatchOnSeveralThreadsKeepsTheOrderOfOneThread) {
  // 1,500 lines span two blocks of map_in_order at 2 threads; every 100th line is bad and every
  // 250th is blank (skipped, no answer).
  const std::string path = testing::TempDir() + "/threads.jsonl";
  {
    std::ofstream out(path);
    for (int i = 0; i < 1500; ++i) {
      if (i % 250 == 249) out << "   \n";
      if (i % 100 == 7)
        out << R"({"model": "llama-2-7b", "batch": -1})"
            << "\n";
      else
        out << R"({"model": "llama-2-7b", "gpu": "a10-24gb", "batch": )" << 1 + i % 9 << "}\n";
    }
  }
  const Result parallel = cli("estimate --input " + path + " --jobs 2");
  const Result serial = cli("estimate --input " + path + " --jobs 1");
  EXPECT_EQ(parallel.status, 2);
  ASSERT_EQ(parallel.out, serial.out);
  size_t start = 0;
  int line = 0;
  for (size_t end; (end = parallel.out.find('\n', start)) != std::string::npos; start = end + 1) {
    const auto j = nlohmann::json::parse(parallel.out.substr(start, end - start));
    if (line % 100 == 7)
      EXPECT_EQ(j["error"]["code"], "out_of_range") << line;
    else
      EXPECT_EQ(j["scenario"]["batch"], 1 + line % 9) << line;
    ++line;
  }
  EXPECT_EQ(line, 1500);
}

TEST(Cli, StdinJsonlWithFormatFlag) {
  const Result r = cli("estimate --input - --format jsonl < /dev/null");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(r.out.empty());
}

TEST(Cli, CatalogsListEveryRow) {
  const Result gpus = cli("gpus --format json");
  ASSERT_EQ(gpus.status, 0);
  EXPECT_EQ(nlohmann::json::parse(gpus.out).size(), 59u);
  const Result models = cli("models --format json");
  ASSERT_EQ(models.status, 0);
  EXPECT_EQ(nlohmann::json::parse(models.out).size(), 66u);
  const Result filtered = cli("gpus --vendor amd --format json");
  for (const auto& g : nlohmann::json::parse(filtered.out)) EXPECT_EQ(g["vendor"], "AMD");
}

TEST(Cli, ValidateReportsGroups) {
  const Result r = cli("validate --format json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["memory"]["groups"].size(), 5u);
}

TEST(Cli, TableShowsTheBreakdown) {
  const Result r = cli("estimate -m llama-2-7b -g a100-80g -f table");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("weights"), std::string::npos);
  EXPECT_NE(r.out.find("GiB"), std::string::npos);
}

}  // namespace

namespace {

TEST(CliAdvisor, RecommendJsonIsTheContractsRecommendation) {
  const Result r = cli("recommend --model llama-2-7b --gpus a100-sxm4-80gb l4-24gb --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["options"].is_array() && j["rejected"].is_array());
  ASSERT_FALSE(j["options"].empty());
  EXPECT_TRUE(j["options"][0]["fits"].get<bool>());
  EXPECT_TRUE(j["options"][0]["estimate"]["memory"].contains("total_bytes"));
}

TEST(CliAdvisor, BadConstraintsExitTwo) {
  Result r = cli("recommend --model llama-2-7b --budget-usd -3", true);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("budget_usd"), std::string::npos) << r.out;
  r = cli("recommend --model llama-2-7b --vendor nvidiaa", true);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("vendor"), std::string::npos) << r.out;
  EXPECT_EQ(cli("recommend --model llama-2-7b --segment server").status, 2);
  EXPECT_EQ(cli("recommend --model llama-2-7b --objective cheap").status, 2);
}

TEST(CliAdvisor, FitAndReport) {
  Result r = cli("fit --gpu l40s --gpu-count 2 --task qlora --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_FALSE(nlohmann::json::parse(r.out)["models"].empty());
  r = cli("fit --gpu rtx-4090 --format markdown");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("| model"), std::string::npos);
  r = cli("report --model llama-2-13b --allow-quantization --format markdown");
  ASSERT_EQ(r.status, 0);
  for (const char* heading : {"Model and scenario", "Memory per GPU", "Options", "Cloud vs on-prem",
                              "Power and machine room", "Risks"})
    EXPECT_NE(r.out.find(heading), std::string::npos) << heading;
  r = cli("recommend --model llama-2-7b --task full --max-gpus 4 --format table");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("Rejected"), std::string::npos);
}

}  // namespace
