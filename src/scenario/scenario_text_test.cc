// ScenarioText reads a plain object of scenario keys by its members, with no tree for the object,
// and any other text as parse_json_input reads it: the same values, the same errors, and the same
// answer as the tree gives (append_estimate_json, either form).
#include "gpusizer/json/scenario_text.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gpusizer/error.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/json_input.h"

namespace gpusizer {
namespace {

using nlohmann::json;

// Whether `value` lies in the ScenarioText's own bytes: read by its members, not into a tree.
bool held_inside(const ScenarioText& text, const json* value) {
  const auto* begin = reinterpret_cast<const char*>(&text);
  const auto* at = reinterpret_cast<const char*>(value);
  return at >= begin && at < begin + sizeof(ScenarioText);
}

TEST(ScenarioText, APlainLineIsReadByItsMembers) {
  ScenarioText text(
      R"({"model": "qwen3-32b", "task": "full", "gpu": "h100", "gpu_count": 8, "training": {"zero_stage": 3}})",
      "line 1");
  ASSERT_TRUE(text.is_object());
  const json* model = text.member("model");
  ASSERT_TRUE(model);
  EXPECT_TRUE(held_inside(text, model));
  EXPECT_EQ(*model, "qwen3-32b");
  EXPECT_TRUE(text.member("gpu_count")->is_number_unsigned());
  EXPECT_EQ(text.member("gpu_count")->get<uint64_t>(), 8u);
  EXPECT_EQ((*text.member("training"))["zero_stage"], 3);
  EXPECT_EQ(text.member("batch"), nullptr);   // a scenario key the line does not give
  EXPECT_EQ(text.member("colour"), nullptr);  // not a scenario key
  // The tree made from the members is the parser's: the five keys in its order.
  const json& tree = text.tree();
  EXPECT_EQ(
      tree.dump(),
      R"({"gpu":"h100","gpu_count":8,"model":"qwen3-32b","task":"full","training":{"zero_stage":3}})");
  EXPECT_FALSE(held_inside(text, text.member("model")));  // now in the tree
  EXPECT_EQ(*text.member("model"), "qwen3-32b");
}

TEST(ScenarioText, OtherTextsAreTheParsersTree) {
  // An unknown key (its note names it), a repeated key, text outside the plain subset (an
  // escape), an array, a null: the parser's tree, or its error.
  ScenarioText unknown(R"({"model": "llama-2-7b", "colour": "red"})", "line 2");
  EXPECT_FALSE(held_inside(unknown, unknown.member("model")));
  EXPECT_EQ(unknown.member("colour")->get<std::string>(), "red");
  ScenarioText escaped(R"({"model": "llama\u002d2-7b"})", "line 3");
  EXPECT_EQ(*escaped.member("model"), "llama-2-7b");
  ScenarioText array("[1, 2]", "line 4");
  EXPECT_FALSE(array.is_object());
  EXPECT_EQ(array.member("model"), nullptr);
  EXPECT_EQ(array.tree(), json::array({1, 2}));
  try {
    ScenarioText repeated(R"({"gpu": "h100", "batch": 2, "gpu": "a100"})", "line 5");
    FAIL() << "a repeated key is an error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "line 5: gpu");
    EXPECT_STREQ(e.what(), "line 5: gpu: the key appears twice in one object");
  }
  EXPECT_THROW(ScenarioText("{\"gpu\": \"h100\"} x", "line 6"), InputError);
}

TEST(ScenarioText, AModelValueEditedInPlace) {
  ScenarioText text(R"({"model": "llama/config.json", "gpu": "h100"})", "");
  *text.member("model") = "/srv/models/llama/config.json";
  EXPECT_EQ(text.tree()["model"], "/srv/models/llama/config.json");
}

// A string member's std::string is kept for the thread's next line (recycle_string_value): the
// next line's strings take the last ones given back, with their room, and hold only their own
// text. Each case runs on a thread of its own, whose spares are only its lines'.
TEST(ScenarioText, AStringMembersStorageServesTheThreadsNextLine) {
  std::thread([] {
    {
      const ScenarioText first(R"({"model": "mixtral-8x7b-v0.1", "gpu": "h100"})", "line 1");
      // 17 bytes, past the 15 a std::string holds in itself: room for exactly those 17.
      EXPECT_EQ(first.member("model")->get_ref<const std::string&>().capacity(), 17u);
    }
    // Given back in the line's order, model then gpu: the next line's first string takes gpu's
    // (15 bytes of room), its second model's (17).
    const ScenarioText second(R"({"task": "qlora", "model": "llama-2-7b"})", "line 2");
    const std::string& model = second.member("model")->get_ref<const std::string&>();
    EXPECT_EQ(model, "llama-2-7b");
    EXPECT_EQ(model.size(), 10u);
    EXPECT_EQ(model.capacity(), 17u);  // the first line's room, none of its bytes
    EXPECT_EQ(second.member("task")->get_ref<const std::string&>().capacity(), 15u);
    EXPECT_EQ(*second.member("task"), "qlora");
    EXPECT_EQ(second.member("gpu"), nullptr);
  }).join();
  std::thread([] {
    // A string past 256 bytes is freed, not kept: the next string is a new one (15 bytes).
    { const ScenarioText first("{\"model\": \"" + std::string(300, 'a') + "\"}", "line 1"); }
    const ScenarioText second(R"({"model": "llama-2-7b"})", "line 2");
    EXPECT_EQ(second.member("model")->get_ref<const std::string&>().capacity(), 15u);
  }).join();
}

// The text's answer, or its error's message.
std::string answer_of(const std::string& line) {
  try {
    const ScenarioText text(line, "line");
    std::string out;
    append_estimate_json(out, text);
    return out;
  } catch (const InputError& e) {
    return std::string("error: ") + e.what();
  }
}

// The tree's answer (the path every line took before), or its error's message.
std::string tree_answer_of(const std::string& line) {
  try {
    const json tree = parse_json_input(line, "line");
    std::string out;
    append_estimate_json(out, tree);
    return out;
  } catch (const InputError& e) {
    return std::string("error: ") + e.what();
  }
}

// Each line's answer on a new thread (no spare strings from an earlier line), in order.
std::vector<std::string> answers_on_a_new_thread(const std::vector<std::string>& lines) {
  std::vector<std::string> answers;
  std::thread([&] {
    for (const std::string& line : lines) answers.push_back(answer_of(line));
  }).join();
  return answers;
}

// A line answers the same after a very different line as alone: nothing of one line's answer
// (its strings' storage reused, the answer's own) is left in the next.
TEST(ScenarioText, ALineAnswersAsAloneAfterAnother) {
  const std::string serving =
      R"({"model": "mixtral-8x7b-v0.1", "engine": "vllm", "gpu": "h100", "gpu_count": 2})";
  const std::string training_changes =
      R"({"model": "llama-3.1-70b", "task": "qlora", "gpu": "a100-80g"})";
  const std::string full_training =
      R"({"model": "qwen3-32b", "task": "full", "gpu": "h100", "gpu_count": 8, "training": {"zero_stage": 3}})";
  const std::vector<std::string> alone = {answers_on_a_new_thread({serving})[0],
                                          answers_on_a_new_thread({training_changes})[0],
                                          answers_on_a_new_thread({full_training})[0]};
  EXPECT_NE(alone[1].find("\"changes\""), std::string::npos);  // it does not fit: it has changes
  const std::vector<std::string> batch = answers_on_a_new_thread(
      {serving, training_changes, serving, full_training, training_changes, serving});
  EXPECT_EQ(batch[0], alone[0]);
  EXPECT_EQ(batch[1], alone[1]);
  EXPECT_EQ(batch[2], alone[0]);
  EXPECT_EQ(batch[3], alone[2]);
  EXPECT_EQ(batch[4], alone[1]);
  EXPECT_EQ(batch[5], alone[0]);
}

// Byte edits of scenario lines: never a crash, and the same answer or error as the tree's.
TEST(ScenarioText, MutatedLinesAnswerAsTheirTrees) {
  const std::vector<std::string> lines = {
      R"({"model": "llama-2-7b", "gpu": "rtx-4090-24gb", "batch": 4})",
      R"({"model": "llama-3.1-70b", "task": "qlora", "gpu": "a100-80g"})",
      R"({"model": "qwen3-32b", "task": "full", "gpu": "h100", "gpu_count": 8, "training": {"zero_stage": 3}})",
      R"({"model": {"params": 7e9}, "gpu": "l4", "seq_len": 2048, "changes": false, "basis": null})",
  };
  const std::string alphabet = "{}[]\":,-+.eE0123456789 tfnaul\\\n\x01\xc3";
  std::mt19937 rng(30);
  int answered = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string line = lines[rng() % lines.size()];
    for (int edits = static_cast<int>(rng() % 3); edits > 0; --edits) {
      const size_t at = rng() % (line.size() + 1);
      const char c = alphabet[rng() % alphabet.size()];
      if (rng() % 2 && at < line.size())
        line[at] = c;
      else
        line.insert(line.begin() + static_cast<std::ptrdiff_t>(at), c);
    }
    const std::string ours = answer_of(line);
    ASSERT_EQ(ours, tree_answer_of(line)) << line;
    if (ours.starts_with("{")) ++answered;
  }
  EXPECT_GT(answered, 500);  // the edits leave many lines answerable: the members are exercised
}

}  // namespace
}  // namespace gpusizer
