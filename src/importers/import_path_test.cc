// import_model_path over real files in a temporary folder: config.json, a sharded safetensors
// model with its index, a single safetensors without config.json, a split GGUF; and the inspect
// report of the result.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "gpusizer/error.h"
#include "gpusizer/importers.h"
#include "gpusizer/json/importers.h"
#include "importers/test_files.h"

namespace gpusizer {
namespace {

namespace fs = std::filesystem;
using testing::StTensor;

class ImportPath : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpusizer_import_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

// A tiny Llama: d=8, 2 layers, 2 heads, 1 KV head, FFN 16, vocab 32 (untied).
const char* kTinyConfig = R"({"model_type":"llama","hidden_size":8,"num_hidden_layers":2,
  "num_attention_heads":2,"num_key_value_heads":1,"intermediate_size":16,"vocab_size":32})";

std::vector<StTensor> tiny_layer(int i) {
  const std::string p = "model.layers." + std::to_string(i) + ".";
  return {{p + "input_layernorm.weight", "BF16", {8}},
          {p + "self_attn.q_proj.weight", "BF16", {8, 8}},
          {p + "self_attn.k_proj.weight", "BF16", {4, 8}},
          {p + "self_attn.v_proj.weight", "BF16", {4, 8}},
          {p + "self_attn.o_proj.weight", "BF16", {8, 8}},
          {p + "post_attention_layernorm.weight", "BF16", {8}},
          {p + "mlp.gate_proj.weight", "BF16", {16, 8}},
          {p + "mlp.up_proj.weight", "BF16", {16, 8}},
          {p + "mlp.down_proj.weight", "BF16", {8, 16}}};
}

TEST_F(ImportPath, ShardedFolderWithConfig) {
  auto shard1 = tiny_layer(0);
  shard1.push_back({"model.embed_tokens.weight", "BF16", {32, 8}});
  auto shard2 = tiny_layer(1);
  shard2.push_back({"model.norm.weight", "BF16", {8}});
  shard2.push_back({"lm_head.weight", "BF16", {32, 8}});
  write("model-00001-of-00002.safetensors", testing::safetensors_file(shard1));
  write("model-00002-of-00002.safetensors", testing::safetensors_file(shard2));
  nlohmann::json index = {{"metadata", {{"total_size", 0}}},
                          {"weight_map", nlohmann::json::object()}};
  for (const auto& t : shard1) index["weight_map"][t.name] = "model-00001-of-00002.safetensors";
  for (const auto& t : shard2) index["weight_map"][t.name] = "model-00002-of-00002.safetensors";
  write("model.safetensors.index.json", index.dump());
  write("config.json", kTinyConfig);

  const ImportedModel im = import_model_path(dir_.string());
  ASSERT_TRUE(im.weights);
  EXPECT_EQ(im.weights->files, 2);
  const int64_t counted = count_params(im.model).total;
  EXPECT_EQ(im.weights->elements, counted);
  EXPECT_EQ(im.weights->total_bytes, 2.0 * static_cast<double>(counted));
  EXPECT_EQ(im.weights_format, "bf16");
  const nlohmann::json j = imported_to_json(im, gpusizer::Catalog::builtin());
  EXPECT_EQ(j["params"]["total"], counted);
  EXPECT_EQ(j["comparison"]["param_difference"], 0);
  EXPECT_EQ(j["comparison"]["analytic_bytes"], 2 * counted);
  EXPECT_NE(imported_to_text(im, gpusizer::Catalog::builtin()).find("bf16"), std::string::npos);

  // The same through the index file and through config.json alone.
  EXPECT_EQ(import_model_path(path("model.safetensors.index.json")).weights->files, 2);
  EXPECT_FALSE(import_model_path(path("config.json")).weights);
}

TEST_F(ImportPath, SafetensorsWithoutConfigGivesCounts) {
  auto t = tiny_layer(0);
  t.push_back({"model.embed_tokens.weight", "F16", {32, 8}});
  write("model.safetensors", testing::safetensors_file(t));
  const ImportedModel im = import_model_path(path("model.safetensors"), /*shapes_only=*/true);
  EXPECT_EQ(im.model.vocab_size, 32);
  EXPECT_EQ(im.model.hidden_size, 8);
  EXPECT_EQ(im.model.num_layers, 1);
  EXPECT_EQ(count_params(im.model).total, im.weights->elements);
  EXPECT_FALSE(im.warnings.empty());
}

TEST_F(ImportPath, SafetensorsWithoutConfigTellsWhatIsMissingForAnEstimate) {
  // The estimate used to fail with "parallel.tp: ... exceeds the model's 0 attention heads".
  auto t = tiny_layer(0);
  t.push_back({"model.embed_tokens.weight", "F16", {32, 8}});
  write("model.safetensors", testing::safetensors_file(t));
  try {
    import_model_path(path("model.safetensors"));
    FAIL() << "imported without config.json";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("has no config.json beside it"), std::string::npos) << what;
    EXPECT_NE(what.find("attention heads, KV heads and head_dim"), std::string::npos) << what;
    EXPECT_EQ(what.find("parallel.tp"), std::string::npos) << what;
  }
}

TEST_F(ImportPath, SplitGgufReadsEveryPart) {
  const std::string whole = testing::tiny_llama_gguf();
  write("tiny-00001-of-00002.gguf", whole);
  testing::GgufWriter second;
  second.u32("split.no", 1);
  second.tensor("blk.9.extra.weight", {256}, testing::kF32, 1024);
  write("tiny-00002-of-00002.gguf", second.bytes());
  const ImportedModel one = import_gguf_bytes(whole, "w");
  const ImportedModel im = import_model_path(path("tiny-00001-of-00002.gguf"));
  ASSERT_TRUE(im.weights);
  EXPECT_EQ(im.weights->files, 2);
  EXPECT_EQ(im.weights->tensors, one.weights->tensors + 1);
  EXPECT_EQ(im.weights->total_bytes, one.weights->total_bytes + 1024);
}

TEST_F(ImportPath, MissingAndUnknownPathsAreInputErrors) {
  EXPECT_THROW(import_model_path(path("nope.gguf")), InputError);
  write("notes.txt", "hello");
  EXPECT_THROW(import_model_path(path("notes.txt")), InputError);
  EXPECT_THROW(import_model_path(dir_.string()), InputError);  // no model files
  write("bad.safetensors", "12345678");
  EXPECT_THROW(import_model_path(path("bad.safetensors")), InputError);
}

}  // namespace
}  // namespace gpusizer
