// End-to-end: the gpusizer binary through the contract's commands, exit codes and batch rules.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
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
  // 250th is preceded by a blank line, which gets an error answer in its place.
  const std::string path = testing::TempDir() + "/threads.jsonl";
  std::vector<std::string> expect;  // per input line: "bad", "blank" or the batch
  {
    std::ofstream out(path);
    for (int i = 0; i < 1500; ++i) {
      if (i % 250 == 249) {
        out << "   \n";
        expect.push_back("blank");
      }
      if (i % 100 == 7) {
        out << R"({"model": "llama-2-7b", "batch": -1})"
            << "\n";
        expect.push_back("bad");
      } else {
        out << R"({"model": "llama-2-7b", "gpu": "a10-24gb", "batch": )" << 1 + i % 9 << "}\n";
        expect.push_back(std::to_string(1 + i % 9));
      }
    }
  }
  const Result parallel = cli("estimate --input " + path + " --jobs 2");
  const Result serial = cli("estimate --input " + path + " --jobs 1");
  EXPECT_EQ(parallel.status, 2);
  ASSERT_EQ(parallel.out, serial.out);
  size_t start = 0;
  size_t line = 0;
  for (size_t end; (end = parallel.out.find('\n', start)) != std::string::npos; start = end + 1) {
    ASSERT_LT(line, expect.size());
    const auto j = nlohmann::json::parse(parallel.out.substr(start, end - start));
    if (expect[line] == "bad") {
      EXPECT_EQ(j["error"]["code"], "out_of_range") << line;
    } else if (expect[line] == "blank") {
      EXPECT_EQ(j["error"]["code"], "bad_input") << line;
      EXPECT_EQ(j["error"]["message"], "line " + std::to_string(line + 1) + " is blank") << line;
    } else {
      EXPECT_EQ(j["scenario"]["batch"], std::stoi(expect[line])) << line;
    }
    ++line;
  }
  EXPECT_EQ(line, 1506u);  // 1,500 scenarios + 6 blank lines: one answer per input line
}

TEST(Cli, StdinJsonlWithFormatFlag) {
  const Result r = cli("estimate --input - --format jsonl < /dev/null");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(r.out.empty());
}

TEST(Cli, CatalogsListEveryRow) {
  const Result gpus = cli("gpus --format json");
  ASSERT_EQ(gpus.status, 0);
  // 60 rows with the RTX 5090 D, + 10: RTX 4080, 4070 Ti, 4070 SUPER, 4070, 3080 Ti, 2080 Ti,
  // 5070 Ti, 5060 Ti, Tesla P40, RTX A5000.
  EXPECT_EQ(nlohmann::json::parse(gpus.out).size(), 70u);
  const Result models = cli("models --format json");
  ASSERT_EQ(models.status, 0);
  // 66 rows, + Mistral-7B-v0.1 (session 21: the TensorRT-LLM v0.17 perf-overview's Mistral 7B).
  EXPECT_EQ(nlohmann::json::parse(models.out).size(), 67u);
  const Result filtered = cli("gpus --vendor amd --format json");
  const auto amd = nlohmann::json::parse(filtered.out);
  EXPECT_FALSE(amd.empty()) << "the catalog lists AMD GPUs (MI300X, MI250X, ...)";
  for (const auto& g : amd) EXPECT_EQ(g["vendor"], "AMD");
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

namespace {

// Hostile inputs to the CLI (issue 16): each must end with exit 2 and a message, promptly. The
// commands run under timeout(1) so that a regression hangs for 20 s, not forever.
Result cli_bounded(const std::string& args) {
  return cli("--help >/dev/null; exec timeout 20 " + std::string(GPUSIZER_CLI_PATH) + " " + args,
             true);
}

std::string scratch_dir(const std::string& name) {
  const std::string dir =
      testing::TempDir() + "/cli_hostile_" + name + "_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(CliHostile, InputFifoIsRefusedNotWaitedOn) {
  const std::string dir = scratch_dir("fifo");
  const std::string fifo = dir + "/scenario.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Result r = cli_bounded("estimate --input " + fifo);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("is a FIFO"), std::string::npos) << r.out;
  const std::string jsonl = dir + "/batch.jsonl";
  ASSERT_EQ(mkfifo(jsonl.c_str(), 0600), 0);
  r = cli_bounded("estimate --input " + jsonl);
  EXPECT_EQ(r.status, 2) << r.out;
  r = cli_bounded("inspect " + fifo);
  EXPECT_EQ(r.status, 2) << r.out;
}

TEST(CliHostile, DevZeroStopsAtTheInputCap) {
  // Read to exhaustion it was a bad_alloc (exit 1) under a 3 GB cap, or ate the machine.
  Result r = cli_bounded("estimate --input /dev/zero");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("character device"), std::string::npos) << r.out;
  r = cli_bounded("estimate --input - < /dev/zero");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("over the limit of 256 MiB"), std::string::npos) << r.out;
}

TEST(CliHostile, ADirectoryGivenAsJsonlExitsTwo) {
  const std::string dir = scratch_dir("dir") + "/batch.jsonl";
  std::filesystem::create_directories(dir);
  const Result r = cli_bounded("estimate --input " + dir);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("is a directory"), std::string::npos) << r.out;
}

TEST(CliHostile, NonFiniteAndHugeNumbersAreBadInputNamingTheField) {
  const std::string dir = scratch_dir("numbers");
  std::ofstream(dir + "/huge.json") << R"({"model": "llama-2-7b", "batch": 1e400})";
  Result r = cli_bounded("estimate --input " + dir + "/huge.json");
  EXPECT_EQ(r.status, 2) << r.out;  // was exit 1, an internal error
  EXPECT_NE(r.out.find("batch: must be a finite number"), std::string::npos) << r.out;
  std::ofstream(dir + "/huge.jsonl") << R"({"model": "llama-2-7b", "batch": 1e400})"
                                     << "\n";
  r = cli_bounded("estimate --input " + dir + "/huge.jsonl");
  EXPECT_EQ(r.status, 2) << r.out;
  const auto j = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')));
  EXPECT_EQ(j["error"]["code"], "out_of_range") << r.out;  // was "internal"
  std::ofstream(dir + "/range.json") << R"({"model": "llama-2-7b", "batch": 1e300})";
  r = cli_bounded("estimate --input " + dir + "/range.json");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("batch"), std::string::npos) << r.out;
}

TEST(CliHostile, TrailingNulAndDuplicateKeysAreBadInput) {
  const std::string dir = scratch_dir("strict");
  {
    std::ofstream out(dir + "/nul.json", std::ios::binary);
    out << R"({"model": "llama-2-7b"})" << std::string(1, '\0');
  }
  Result r = cli_bounded("estimate --input " + dir + "/nul.json");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("NUL byte"), std::string::npos) << r.out;
  std::ofstream(dir + "/dup.json") << R"({"model": "llama-2-7b", "batch": 1, "batch": 8})";
  r = cli_bounded("estimate --input " + dir + "/dup.json");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("batch: the key appears twice"), std::string::npos) << r.out;
}

TEST(CliHostile, FlagsOverLinesOfTheWrongShapeNameTheShape) {
  // A flag that sets a scenario key (--gpu, --tp) over a line that is not an object, or whose
  // "parallel" is not one, was answered "internal" (nlohmann's type_error from setting a key into
  // an array or a number); the line's own shape is the error, as without the flag.
  const std::string dir = scratch_dir("shapes");
  std::ofstream(dir + "/shapes.jsonl") << "[1, 2]\n"
                                       << R"({"model": "llama-2-7b", "gpu": "h100"})"
                                       << "\n"
                                       << R"({"model": "llama-2-7b", "parallel": 5})"
                                       << "\n";
  Result r = cli_bounded("estimate --input " + dir + "/shapes.jsonl -f jsonl --gpu h100 --tp 1");
  EXPECT_EQ(r.status, 2) << r.out;
  std::istringstream lines(r.out);
  std::string first, second, third;
  std::getline(lines, first);
  std::getline(lines, second);
  std::getline(lines, third);
  EXPECT_NE(first.find("a scenario must be a JSON object, not array"), std::string::npos) << first;
  EXPECT_NE(second.find("\"memory\""), std::string::npos) << second;  // the good line answered
  EXPECT_NE(third.find("parallel: must be an object"), std::string::npos) << third;
  EXPECT_EQ(r.out.find("internal"), std::string::npos) << r.out;
  std::ofstream(dir + "/one.json") << R"({"model": "llama-2-7b", "parallel": 5})";
  r = cli_bounded("estimate --input " + dir + "/one.json --tp 2");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("parallel: must be an object"), std::string::npos) << r.out;
}

TEST(CliHostile, ControlBytesInPathsAreRefused) {
  const std::string dir = scratch_dir("ctl");
  std::ofstream(dir + "/config.json") << R"({"model_type": "llama"})";
  // $'...' is bash; popen runs sh, so the byte is written by printf.
  for (const char* byte : {"\\001", "\\033", "\\177"}) {
    Result r =
        cli_bounded(std::string("inspect \"$(printf '") + dir + "/con" + byte + "fig.json')\"");
    EXPECT_EQ(r.status, 2) << byte << ": " << r.out;
    EXPECT_NE(r.out.find("control byte"), std::string::npos) << byte << ": " << r.out;
    r = cli_bounded(std::string("estimate --model \"$(printf '") + dir + "/con" + byte +
                    "fig.json')\"");
    EXPECT_EQ(r.status, 2) << byte << ": " << r.out;
    // Every other path flag: --input, --data-dir, --costs, calibrate's cases and --output.
    const std::string bad = "\"$(printf '" + dir + "/x" + byte + "y')\"";
    for (const std::string& args :
         {"estimate --input " + bad, "--data-dir " + bad + " estimate --model llama-2-7b",
          "recommend --model llama-2-7b --costs " + bad, "calibrate " + bad,
          "calibrate " + dir + "/config.json -o " + bad}) {
      r = cli_bounded(args);
      EXPECT_EQ(r.status, 2) << args << ": " << r.out;
      EXPECT_NE(r.out.find("control byte"), std::string::npos) << args << ": " << r.out;
    }
  }
}

TEST(CliHostile, SafetensorsWithoutConfigSaysWhatIsMissing) {
  const std::string dir = scratch_dir("noconfig");
  // 8-byte header length, then the JSON header, then 64 zero bytes of F16 data (32 values).
  const std::string header =
      R"({"model.embed_tokens.weight": {"dtype": "F16", "shape": [8, 4], "data_offsets": [0, 64]}})";
  std::string file(8, '\0');
  for (int i = 0; i < 8; ++i) file[i] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  file += header + std::string(64, '\0');
  std::ofstream(dir + "/model.safetensors", std::ios::binary) << file;
  const Result r = cli_bounded("estimate --model " + dir + "/model.safetensors --gpu h100");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("has no config.json beside it"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("parallel.tp"), std::string::npos) << r.out;
  EXPECT_EQ(cli_bounded("inspect " + dir + "/model.safetensors").status, 0);
}

}  // namespace
