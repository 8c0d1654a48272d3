// Bad input, field by field: every scenario field of the contract with a wrong type, a missing
// required value, zero, a negative, NaN and infinities, an absurdly large value and an unknown
// name, plus nonsense combinations. Each must end in one gpusizer::InputError whose field() names
// the field: never another exception, a crash or a hang. A sample goes through the CLI (exit code
// 2, the field on stderr) and the HTTP handler (400 with the error object) too.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <typeinfo>
#include <vector>

#include "gpusizer/error.h"
#include "gpusizer/json/api.h"
#include "server/server.h"

namespace gpusizer {
namespace {

using nlohmann::json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Case {
  std::string what;  ///< for failure messages
  json scenario;
  std::string field;  ///< the field the error must name
};

// Scenarios that are valid as they stand; each case changes one field of one of them.
json base_for(const std::string& field) {
  if (field == "image_size" || field == "dataset_items" || field == "epochs")
    return {{"model", "yolov8m"}, {"task", "cv-train"}, {"gpu", "rtx-4090-24gb"}};
  if (field.rfind("training.", 0) == 0)
    return {{"model", "llama-2-7b"}, {"task", "lora"}, {"gpu", "a100-sxm4-80gb"}};
  if (field == "parallel.ep")
    return {{"model", "mixtral-8x7b-v0.1"}, {"engine", "vllm"}, {"gpu", "h100-sxm5-80gb"}};
  return {{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}, {"engine", "vllm"}};
}

json with(json scenario, const std::string& field, const json& value) {
  std::string pointer = "/" + field;
  std::replace(pointer.begin(), pointer.end(), '.', '/');
  scenario[json::json_pointer(pointer)] = value;
  return scenario;
}

// What an error for `field` may say: the field itself or a part of it ("training.lora_targets[0]",
// "model.params").
bool names(const std::string& got, const std::string& field) {
  return got == field || got.rfind(field + ".", 0) == 0 || got.rfind(field + "[", 0) == 0;
}

enum class Kind { kInt, kNumber, kBool, kName, kObject };

struct Field {
  std::string name;
  Kind kind;
  bool zero_is_valid = false;
};

// Every field of the contract's scenario (docs/contract.md) and the kind of value it takes.
const std::vector<Field>& fields() {
  static const std::vector<Field> all = {
      {"model", Kind::kName},
      {"task", Kind::kName},
      {"weights", Kind::kName},
      {"kv_cache", Kind::kName},
      {"batch", Kind::kInt},
      {"seq_len", Kind::kInt},
      {"prompt_len", Kind::kInt, true},
      {"output_len", Kind::kInt, true},
      {"engine", Kind::kName},
      {"gpu_memory_utilization", Kind::kNumber},
      {"training", Kind::kObject},
      {"training.optimizer", Kind::kName},
      {"training.mixed_precision", Kind::kName},
      {"training.gradient_checkpointing", Kind::kName},
      {"training.flash_attention", Kind::kBool},
      {"training.lora_rank", Kind::kInt},
      {"training.lora_targets", Kind::kName},
      {"training.zero_stage", Kind::kInt, true},
      {"training.grad_accum", Kind::kInt},
      {"training.global_batch", Kind::kInt},
      {"training.tokens", Kind::kNumber},
      {"parallel", Kind::kObject},
      {"parallel.tp", Kind::kInt},
      {"parallel.pp", Kind::kInt},
      {"parallel.dp", Kind::kInt},
      {"parallel.ep", Kind::kInt},
      {"parallel.sequence_parallel", Kind::kBool},
      {"parallel.pp_interleave", Kind::kInt},
      {"gpu", Kind::kName},
      {"gpu_count", Kind::kInt},
      {"gpus_per_node", Kind::kInt},
      {"image_size", Kind::kInt},
      {"dataset_items", Kind::kInt},
      {"epochs", Kind::kInt},
      {"offline_requests", Kind::kInt},
  };
  return all;
}

std::vector<Case> table() {
  std::vector<Case> cases;
  auto add = [&](const Field& f, const std::string& what, const json& value) {
    cases.push_back({f.name + " " + what, with(base_for(f.name), f.name, value), f.name});
  };
  for (const Field& f : fields()) {
    switch (f.kind) {
      case Kind::kInt:
      case Kind::kNumber:
        add(f, "string", "8");
        add(f, "bool", true);
        add(f, "list", json::array({1}));
        add(f, "object", json::object());
        if (!f.zero_is_valid) add(f, "zero", 0);
        add(f, "negative", -1);
        add(f, "negative fraction", -0.5);
        add(f, "NaN", kNaN);
        add(f, "+infinity", kInf);
        add(f, "-infinity", -kInf);
        add(f, "absurdly large", 1e300);
        add(f, "2^64", json(std::numeric_limits<uint64_t>::max()));
        if (f.kind == Kind::kInt) add(f, "fraction", 2.5);
        break;
      case Kind::kBool:
        add(f, "string", "yes");
        add(f, "number", 1);
        add(f, "NaN", kNaN);
        add(f, "list", json::array());
        break;
      case Kind::kName:
        add(f, "number", 7);
        add(f, "NaN", kNaN);
        if (f.name != "training.gradient_checkpointing") add(f, "bool", false);  // false: off
        if (f.name != "training.lora_targets") add(f, "object", json::object({{"a", 1}}));
        add(f, "unknown name", "no-such-thing");
        add(f, "empty name", "");
        add(f, "absurdly long name", std::string(100000, 'x'));
        add(f, "control characters", std::string("a\x01\n\x7f", 4));
        break;
      case Kind::kObject:
        add(f, "string", "tp=2");
        add(f, "number", 3);
        add(f, "list", json::array({1, 2}));
        break;
    }
  }
  // Required: model.
  cases.push_back({"model missing", json::object({{"gpu", "a100-sxm4-80gb"}}), "model"});
  cases.push_back({"model null", json::object({{"model", nullptr}}), "model"});
  cases.push_back({"model empty object", json::object({{"model", json::object()}}), "model"});
  cases.push_back({"model hf_config not an object", {{"model", {{"hf_config", "x"}}}}, "model"});
  cases.push_back({"model params zero", {{"model", {{"params", 0}}}}, "model"});
  cases.push_back({"model params NaN", {{"model", {{"params", kNaN}}}}, "model"});
  cases.push_back({"model params negative", {{"model", {{"params", -7e9}}}}, "model"});
  cases.push_back({"model params huge", {{"model", {{"params", 1e300}}}}, "model"});
  cases.push_back({"model hf_config empty", {{"model", {{"hf_config", json::object()}}}}, "model"});
  cases.push_back({"training.lora_targets empty list",
                   with(base_for("training.x"), "training.lora_targets", json::array()),
                   "training.lora_targets"});
  cases.push_back({"training.modules_to_save unknown",
                   with(base_for("training.x"), "training.modules_to_save", {"lm_head", "x"}),
                   "training.modules_to_save"});
  cases.push_back({"training.offload unknown",
                   with(base_for("training.x"), "training.offload", "disk"), "training.offload"});
  cases.push_back({"training.zero_stage 4", with(base_for("training.x"), "training.zero_stage", 4),
                   "training.zero_stage"});
  cases.push_back({"gpu_memory_utilization over 1",
                   with(base_for("x"), "gpu_memory_utilization", 1.5), "gpu_memory_utilization"});
  cases.push_back(
      {"kv_cache with a weights-only format", with(base_for("x"), "kv_cache", "nf4"), "kv_cache"});

  // The vision fields are checked on every task, not only cv-train.
  for (const char* f : {"image_size", "dataset_items", "epochs"}) {
    cases.push_back(
        {std::string(f) + " wrong type on an LLM task", with(base_for("x"), f, "640"), f});
    cases.push_back({std::string(f) + " negative on an LLM task", with(base_for("x"), f, -1), f});
  }

  // Nonsense combinations.
  const json llama = {{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}};
  cases.push_back({"qlora with fp32 weights", with(with(llama, "task", "qlora"), "weights", "fp32"),
                   "weights"});
  cases.push_back({"qlora with bf16 weights", with(with(llama, "task", "qlora"), "weights", "bf16"),
                   "weights"});
  cases.push_back(
      {"tp larger than the heads", with(llama, "parallel", {{"tp", 64}}), "parallel.tp"});
  cases.push_back(
      {"pp larger than the layers", with(llama, "parallel", {{"pp", 64}}), "parallel.pp"});
  cases.push_back({"ep on a dense model", with(llama, "parallel", {{"ep", 2}}), "parallel.ep"});
  cases.push_back({"ep not dividing the experts",
                   {{"model", "mixtral-8x7b-v0.1"}, {"parallel", {{"ep", 3}}}},
                   "parallel.ep"});
  cases.push_back({"gpu_count not a multiple of tp*pp",
                   with(with(llama, "parallel", {{"tp", 2}, {"pp", 2}}), "gpu_count", 6),
                   "gpu_count"});
  cases.push_back({"gpu_count below tp*pp",
                   with(with(llama, "parallel", {{"tp", 4}}), "gpu_count", 2), "gpu_count"});
  cases.push_back({"gpu_count disagreeing with tp*pp*dp",
                   with(with(llama, "parallel", {{"tp", 2}, {"dp", 2}}), "gpu_count", 8),
                   "gpu_count"});
  cases.push_back({"inference engine for training",
                   with(with(llama, "task", "full"), "engine", "vllm"), "engine"});
  cases.push_back({"training engine for inference", with(llama, "engine", "megatron"), "engine"});
  cases.push_back(
      {"llama.cpp for lora", with(with(llama, "task", "lora"), "engine", "llama.cpp"), "engine"});
  cases.push_back({"cv-train with an LLM", with(llama, "task", "cv-train"), "task"});
  cases.push_back({"inference with a vision model", {{"model", "yolov8m"}}, "task"});
  cases.push_back({"lora target not in the model",
                   with(with(llama, "task", "lora"), "training.lora_targets", {"w1"}),
                   "training.lora_targets"});
  return cases;
}

TEST(BadInput, EveryFieldNamesItselfInOneInputError) {
  const auto cases = table();
  EXPECT_GT(cases.size(), 300u);
  std::printf("bad input: %zu cases\n", cases.size());
  for (const Case& c : cases) {
    try {
      (void)estimate_json(c.scenario);
      ADD_FAILURE() << c.what << ": accepted "
                    << c.scenario.dump(-1, ' ', false, json::error_handler_t::replace);
    } catch (const InputError& e) {
      EXPECT_TRUE(names(e.field(), c.field))
          << c.what << ": field '" << e.field() << "', expected '" << c.field << "' (" << e.what()
          << ")";
      EXPECT_FALSE(std::string(e.what()).empty());
      EXPECT_FALSE(e.code().empty());
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.what << ": " << typeid(e).name() << " escaped: " << e.what();
    }
  }
}

TEST(BadInput, UnknownNamesStillSuggestTheClosest) {
  for (const auto& [field, value, near] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"task", "qlor", "qlora"},
           {"engine", "vlm", "vllm"},
           {"training.optimizer", "adamw8bit", "adamw-8bit"},
           {"gpu", "hh100-sxm5", "h100-sxm5-80gb"},
       }) {
    try {
      (void)estimate_json(with(base_for(field), field, value));
      ADD_FAILURE() << field << " accepted " << value;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), field);
      EXPECT_NE(std::string(e.what()).find("did you mean"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(near), std::string::npos) << e.what();
    }
  }
}

// A name is echoed in its error whole up to 80 bytes: a NUL byte does not end the message there
// (what() is a C string), and a name of a megabyte is not sent back whole. An unknown key with a
// NUL is named whole in its warning.
TEST(BadInput, HostileNamesAreShownWholeAndShort) {
  const json base = {{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}};
  try {
    (void)estimate_json(with(base, "model", std::string("lla\0ma", 6)));
    ADD_FAILURE() << "accepted a model name with a NUL";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "model");
    EXPECT_NE(std::string(e.what()).find("'lla\\0ma'"), std::string::npos) << e.what();
  }
  try {
    (void)estimate_json(with(base, "gpu", std::string(1'000'000, 'x')));
    ADD_FAILURE() << "accepted a GPU name of a megabyte";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "gpu");
    const std::string what = e.what();
    EXPECT_LT(what.size(), 200u);
    EXPECT_NE(what.find(std::string(80, 'x') + "... (1000000 bytes)'"), std::string::npos) << what;
  }
  json keyed = base;
  keyed[std::string("bat\0ch", 6)] = 4;
  const json answer = estimate_json(keyed);
  ASSERT_TRUE(answer.contains("warnings"));
  const std::string warnings = answer["warnings"].dump();
  EXPECT_NE(warnings.find("'bat\\u0000ch'"), std::string::npos) << warnings;
}

// Values at the edge of what is allowed: each gives an answer whose numbers are all finite.
TEST(BadInput, EdgeValuesThatAreValidGiveFiniteAnswers) {
  const json llama = {{"model", "llama-2-7b"}, {"gpu", "a100-sxm4-80gb"}};
  const std::vector<json> edges = {
      with(llama, "prompt_len", 0),
      with(llama, "output_len", 0),
      with(with(llama, "prompt_len", 0), "output_len", 1),
      with(with(llama, "seq_len", 1), "output_len", 0),
      with(llama, "seq_len", 1),
      with(with(llama, "batch", 10'000'000), "seq_len", 100'000'000),
      with(with(with(llama, "batch", 10'000'000), "seq_len", 100'000'000), "task", "full"),
      with(with(llama, "engine", "vllm"), "gpu_memory_utilization", 0.05),
      with(with(llama, "engine", "vllm"), "gpu_memory_utilization", 1),
      {{"model", {{"params", 1e14}}}, {"gpu", "h100"}, {"task", "pretrain"}},
      {{"model", {{"params", 1e6}}}, {"gpu", "h100"}},
      with(with(llama, "task", "full"), "training", {{"tokens", 1e16}, {"global_batch", 1}}),
      {{"model", "yolov8m"},
       {"task", "cv-train"},
       {"gpu", "h100"},
       {"image_size", 16384},
       {"dataset_items", 1'000'000'000'000},
       {"epochs", 100000}},
  };
  for (const json& s : edges) {
    json out;
    try {
      out = estimate_json(s);
    } catch (const InputError& e) {
      continue;  // refusing an edge is fine as long as it says why
    } catch (const std::exception& e) {
      ADD_FAILURE() << s.dump() << ": " << e.what();
      continue;
    }
    // Every number in the answer is finite (JSON cannot carry NaN: dump would write null).
    std::vector<const json*> todo = {&out};
    while (!todo.empty()) {
      const json* v = todo.back();
      todo.pop_back();
      if (v->is_structured()) {
        for (const auto& child : *v) todo.push_back(&child);
      } else if (v->is_number_float()) {
        EXPECT_TRUE(std::isfinite(v->get<double>())) << s.dump();
      }
    }
    const auto& m = out["memory"];
    EXPECT_GE(m["total_bytes"].get<int64_t>(), m["reserved_bytes"].get<int64_t>()) << s.dump();
    EXPECT_GE(m["reserved_bytes"].get<int64_t>(), m["allocated_bytes"].get<int64_t>()) << s.dump();
    EXPECT_GE(m["allocated_bytes"].get<int64_t>(), 0) << s.dump();
  }
}

// Memory past what 64-bit byte counts hold would print as a wrapped-around (negative) number:
// it is refused, naming the input that drives it.
TEST(BadInput, MemoryPastWhatBytesCanHoldIsRefused) {
  const json huge = {
      {"model", {{"params", 1e14}}}, {"batch", 10'000'000}, {"seq_len", 100'000'000}};
  try {
    (void)estimate_json(huge);
    ADD_FAILURE() << "accepted " << huge.dump();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "batch") << e.what();
    EXPECT_EQ(e.code(), "out_of_range");
  }
}

// The same sample through the two faces: HTTP 400 naming the field, CLI exit code 2 with the
// field on stderr. (JSON text cannot carry NaN, so those cases stay in the library test.)
std::vector<Case> face_sample() {
  std::vector<Case> sample;
  const auto all = table();
  for (size_t i = 0; i < all.size(); i += 7)
    if (all[i].what.find("NaN") == std::string::npos &&
        all[i].what.find("infinity") == std::string::npos &&
        all[i].what.find("long name") == std::string::npos)
      sample.push_back(all[i]);
  return sample;
}

TEST(BadInput, HttpAnswers400NamingTheField) {
  server::RequestHandler handler({}, Catalog::builtin());
  for (const Case& c : face_sample()) {
    const auto answer =
        handler.handle({"POST",
                        "/api/v1/estimate",
                        {{"Host", "127.0.0.1"}, {"Content-Type", "application/json"}},
                        c.scenario.dump()});
    EXPECT_EQ(answer.status, 400) << c.what << ": " << answer.body;
    const json body = json::parse(answer.body, nullptr, false);
    ASSERT_TRUE(body.is_object() && body.contains("error")) << c.what << ": " << answer.body;
    EXPECT_NE(body["error"]["message"].get<std::string>().find(c.field), std::string::npos)
        << c.what << ": " << answer.body;
  }
}

int run_cli(const std::string& args, std::string& out) {
  FILE* pipe = popen((std::string(GPUSIZER_CLI_PATH) + " " + args + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buf[4096];
  size_t n;
  out.clear();
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(BadInput, CliExitsTwoNamingTheField) {
  const auto sample = face_sample();
  // A few of the sample, one process each: enough to see the face, cheap enough under ASan.
  for (size_t i = 0; i < sample.size(); i += 6) {
    const Case& c = sample[i];
    const std::string path = ::testing::TempDir() + "/bad_input_" + std::to_string(i) + ".json";
    std::ofstream(path) << c.scenario.dump();
    std::string out;
    EXPECT_EQ(run_cli("estimate --format json --input " + path, out), 2) << c.what << ": " << out;
    EXPECT_NE(out.find(c.field), std::string::npos) << c.what << ": " << out;
  }
}

// A JSONL batch whose bad lines (wrong types, NaN spelled out, invalid UTF-8, nonsense
// combinations, a non-object) each answer with an error object in their place, and whose good
// lines still answer, in order.
TEST(BadInput, JsonlBatchAnswersEveryOtherLine) {
  const std::string path = ::testing::TempDir() + "/bad_lines.jsonl";
  const std::vector<std::string> lines = {
      R"({"model": "llama-2-7b"})",
      R"({"model": "llama-2-7b", "batch": "four"})",
      R"({"model": "llama-2-7b", "batch": NaN})",
      std::string("{\"model\": \"llama-\xff\xfe-7b\"}"),
      R"({"model": "qwen2.5-7b", "gpu": "a100-sxm4-80gb"})",
      R"({"model": "llama-2-7b", "task": "qlora", "weights": "fp32"})",
      R"([1, 2, 3])",
      R"({"model": "llama-2-7b", "parallel": {"tp": 64}})",
      R"({"model": 7})",
      std::string("{\"model\": \"\xc3\x28\"}"),
      R"({"model": "mixtral-8x7b-v0.1", "engine": "vllm", "gpu_count": 2})",
  };
  const std::vector<bool> good = {true,  false, false, false, true, false,
                                  false, false, false, false, true};
  {
    std::ofstream out(path, std::ios::binary);
    for (const auto& l : lines) out << l << "\n";
  }
  std::string out;
  EXPECT_EQ(run_cli("estimate --input " + path, out), 2);
  std::vector<json> answers;
  size_t start = 0;
  for (size_t end; (end = out.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string line = out.substr(start, end - start);
    if (line.empty() || line[0] != '{') continue;  // not an answer line (stderr merged)
    answers.push_back(json::parse(line, nullptr, false));
    EXPECT_FALSE(answers.back().is_discarded()) << line;
  }
  ASSERT_EQ(answers.size(), lines.size()) << out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (good[i]) {
      EXPECT_TRUE(answers[i].contains("memory")) << i << ": " << answers[i].dump();
    } else {
      ASSERT_TRUE(answers[i].contains("error")) << i << ": " << answers[i].dump();
      EXPECT_NE(answers[i]["error"]["code"], "internal") << i << ": " << answers[i].dump();
    }
  }
}

}  // namespace
}  // namespace gpusizer
