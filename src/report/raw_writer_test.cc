// RawWriter (src/report/raw_writer.h): the text writer's compact JSON, each value followed by a
// comma, stored at a pointer; and a part of a TextWriter's text written by it in room the text
// writer reserved.
#include "report/raw_writer.h"

#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusizer/json/api.h"
#include "gpusizer/json/json_text.h"
#include "report/json_writer.h"

namespace gpusizer {
namespace {

// Every token, nested, with an empty object and an absent optional field; texts by hand.
TEST(RawWriter, TokensAsTheTextWritersWithTheirCommas) {
  char buffer[512];
  RawWriter r(buffer);
  r.begin_object();
  r.key("a");
  r.begin_array();
  r.plain_string("x y");
  r.string("a string of more than sixteen bytes");
  r.integer(-12);
  r.unsigned_integer(70000000000);
  r.null();
  r.end_array();
  r.field("b", true);
  r.field("c", 0.5);
  r.field("d", false);
  r.key("e");
  r.begin_object();
  r.end_object();
  r.field("f", std::optional<int>{});
  r.literal_plain_string("g", "plain");
  const std::array<std::string_view, 3> parts = {"int8 weights", "QLoRA", "x"};
  r.key("h");
  r.joined_plain(parts, " + ");
  r.field("i", std::optional<double>{1562.5});
  r.end_object();
  EXPECT_FALSE(r.failed());
  EXPECT_EQ(std::string(buffer, r.end()),
            R"({"a":["x y","a string of more than sixteen bytes",-12,70000000000,null],)"
            R"("b":true,"c":0.5,"d":false,"e":{},"g":"plain","h":"int8 weights + QLoRA + x",)"
            R"("i":1562.5},)");
}

// A string with a byte to escape, short or long, is not written: the writer says it failed.
TEST(RawWriter, AStringToEscapeFails) {
  for (const std::string_view text : {"a \"b\"", "sixteen bytes and a tab:\t"}) {
    char buffer[128];
    RawWriter r(buffer);
    r.begin_object();
    r.literal_string("k", text);
    EXPECT_TRUE(r.failed()) << text;
  }
}

// Room reserved in an array of the text writer and committed: the array's text is the same as
// the text writer's own tokens; too much room, or the checking writer, gives none.
TEST(RawWriter, ReservedInATextWriter) {
  std::string out;
  {
    TextWriter w(out);
    w.begin_array();
    w.integer(1);
    char* at = w.reserve(64);
    ASSERT_NE(at, nullptr);
    RawWriter r(at);
    r.begin_object();
    r.field("k", 2);
    r.end_object();
    w.commit(r.end());
    w.integer(3);
    EXPECT_EQ(w.reserve(1 << 20), nullptr);
    w.end_array();
  }
  EXPECT_EQ(out, R"([1,{"k":2},3])");
  std::string checked;
  TextWriter c(checked, true);
  EXPECT_EQ(c.reserve(64), nullptr);
}

// A value written whole at the top level goes out as the text writer's own would, without its
// comma.
TEST(RawWriter, TopLevelValueCommitted) {
  std::string out;
  {
    TextWriter w(out);
    RawWriter r(w.reserve(32));
    r.begin_array();
    r.boolean(true);
    r.end_array();
    w.commit(r.end());
  }
  EXPECT_EQ(out, "[true]");
}

// An answer's memory, performance, cost, power and scenario objects are written at once by the
// text writer (write_at_once); a model id with a quote and a tab (an inline config's
// _name_or_path) makes the scenario's copy fail, and the text writer writes it escaped: the
// answer is the tree's text either way, for a serving line that fits (bands, a cloud price and an
// on-prem server) and a training line that does not (its changes).
TEST(RawWriter, AnswersWrittenAtOnceAsTheTree) {
  const nlohmann::json config = {{"_name_or_path", "my \"quoted\"\tmodel"},
                                 {"architectures", {"LlamaForCausalLM"}},
                                 {"hidden_act", "silu"},
                                 {"hidden_size", 4096},
                                 {"intermediate_size", 11008},
                                 {"max_position_embeddings", 4096},
                                 {"model_type", "llama"},
                                 {"num_attention_heads", 32},
                                 {"num_hidden_layers", 32},
                                 {"num_key_value_heads", 32},
                                 {"rms_norm_eps", 1e-05},
                                 {"tie_word_embeddings", false},
                                 {"torch_dtype", "float16"},
                                 {"vocab_size", 32000}};
  const std::vector<nlohmann::json> scenarios = {
      {{"model", "mixtral-8x7b-v0.1"}, {"engine", "vllm"}, {"gpu", "h100"}, {"gpu_count", 2}},
      {{"model", "qwen3-32b"},
       {"task", "full"},
       {"gpu", "h100"},
       {"gpu_count", 8},
       {"training", {{"zero_stage", 3}}}},
      {{"model", {{"hf_config", config}}}, {"gpu", "rtx-4090-24gb"}, {"batch", 4}},
  };
  for (const nlohmann::json& scenario : scenarios) {
    std::string text;
    append_estimate_json(text, scenario);
    EXPECT_EQ(text, json_text(estimate_json(scenario))) << scenario.dump();
  }
  std::string quoted;
  append_estimate_json(quoted, scenarios[2]);
  EXPECT_NE(quoted.find(R"("model":"my \"quoted\"\tmodel")"), std::string::npos) << quoted;
}

// The answer's model and rule of thumb, written at once: a dense model's parameters take the
// text of its active ones, a mixture of experts writes both. Worked by hand: Llama-2-7B is
// 32 layers of 4 x 4096^2 attention, 3 x 4096 x 11008 MLP and two 4096 norms (202,383,360),
// two 32000 x 4096 embeddings and a final norm: 6,738,415,616. Mixtral-8x7B's layer has
// 41,943,040 of attention (4096 x 1024 keys and values), eight experts of 3 x 4096 x 14336, a
// 4096 x 8 router and two norms (1,451,270,144; 394,305,536 with two experts active):
// 46,702,792,704 in all, 12,879,925,248 active. The rule of thumb for Llama-2-7B in fp16: 2 bytes a
// parameter, activations and KV cache 10% of that each (rounded down from .2), 2 GB other.
TEST(RawWriter, TheAnswersModelAndRuleOfThumbAtOnce) {
  const nlohmann::json llama = {{"model", "llama-2-7b"}, {"gpu", "rtx-4090-24gb"}, {"batch", 4}};
  const nlohmann::json mixtral = {
      {"model", "mixtral-8x7b-v0.1"}, {"engine", "vllm"}, {"gpu", "h100"}, {"gpu_count", 2}};
  std::string dense, experts;
  append_estimate_json(dense, llama);
  append_estimate_json(experts, mixtral);
  EXPECT_NE(dense.find(R"j("model":{"active_params":6738415616,"id":"llama-2-7b",)j"
                       R"j("max_context":4096,"params":6738415616},)j"),
            std::string::npos)
      << dense;
  EXPECT_NE(
      dense.find(R"j("rule_of_thumb":{"activations_bytes":1347683123,"basis":"the articles')j"
                 R"j( rule of thumb: params x bytes; activations and KV 10% of the weights; 2)j"
                 R"j( GB other; LoRA trains 1%; Adam 8 B and gradients 2 B per trainable)j"
                 R"j( parameter (decimal GB)","gradients_bytes":0,"kv_cache_bytes":1347683123,)j"
                 R"j("optimizer_bytes":0,"overhead_bytes":2000000000,)j"
                 R"j("total_bytes":18172197478,"weights_bytes":13476831232},)j"),
      std::string::npos)
      << dense;
  EXPECT_NE(experts.find(R"j("model":{"active_params":12879925248,"id":"mixtral-8x7b-v0.1",)j"
                         R"j("max_context":32768,"params":46702792704},)j"),
            std::string::npos)
      << experts;
  EXPECT_EQ(dense, json_text(estimate_json(llama)));
  EXPECT_EQ(experts, json_text(estimate_json(mixtral)));
}

}  // namespace
}  // namespace gpusizer
