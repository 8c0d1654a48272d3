// safetensors header reading: exact bytes and counts of synthetic files, and every malformed
// header refused with an InputError (never a crash, hang or huge allocation).
#include "importers/safetensors.h"

#include <gtest/gtest.h>

#include "gpusizer/error.h"
#include "gpusizer/importers.h"
#include "importers/test_files.h"

namespace gpusizer {
namespace {

using testing::safetensors_file;
using testing::safetensors_raw;

TEST(Safetensors, ExactBytesAndCounts) {
  const std::string f = safetensors_file({{"model.embed_tokens.weight", "BF16", {10, 4}},
                                          {"model.layers.0.mlp.up_proj.weight", "BF16", {8, 4}},
                                          {"model.norm.weight", "F32", {4}},
                                          {"lm_head.weight", "BF16", {10, 4}}});
  const WeightsFile w = read_safetensors_bytes(f, "t.safetensors");
  EXPECT_EQ(w.tensors, 4);
  EXPECT_EQ(w.elements, 40 + 32 + 4 + 40);
  EXPECT_EQ(w.total_bytes, 80 + 64 + 16 + 80);
  EXPECT_EQ(w.bytes_by_dtype.at("BF16"), 224);
  EXPECT_EQ(w.bytes_by_dtype.at("F32"), 16);
  EXPECT_EQ(w.embedding_bytes, 80);
  EXPECT_EQ(w.lm_head_bytes, 80);
  EXPECT_EQ(w.weights_format, "bf16");
}

TEST(Safetensors, GptqUnpacksQweightAndSkipsScales) {
  // AutoGPTQ QuantLinear: qweight I32 [in/8, out], qzeros I32 [in/g, out/8], scales F16
  // [in/g, out], g_idx I32 [in].
  const std::string f = safetensors_file({{"model.layers.0.mlp.up_proj.qweight", "I32", {16, 64}},
                                          {"model.layers.0.mlp.up_proj.qzeros", "I32", {1, 8}},
                                          {"model.layers.0.mlp.up_proj.scales", "F16", {1, 64}},
                                          {"model.layers.0.mlp.up_proj.g_idx", "I32", {128}},
                                          {"model.embed_tokens.weight", "F16", {10, 128}}});
  const WeightsFile w = read_safetensors_bytes(f, "q");
  EXPECT_EQ(w.elements, 128 * 64 + 1280);
  EXPECT_EQ(w.total_bytes, 16 * 64 * 4 + 32 + 128 + 512 + 2560);
  EXPECT_EQ(w.weights_format, "gptq-int4");
}

TEST(Safetensors, Mxfp4BlocksCountTwoValuesPerByte) {
  const std::string f =
      safetensors_file({{"model.layers.0.mlp.experts.gate_up_proj_blocks", "U8", {2, 8, 3, 16}},
                        {"model.layers.0.mlp.experts.gate_up_proj_scales", "U8", {2, 8, 3}}});
  const WeightsFile w = read_safetensors_bytes(f, "m");
  EXPECT_EQ(w.elements, 2 * 8 * 3 * 16 * 2);
  EXPECT_EQ(w.weights_format, "mxfp4");
}

void expect_bad(const std::string& bytes, const std::string& what) {
  SCOPED_TRACE(what);
  try {
    read_safetensors_bytes(bytes, "f.safetensors");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.code(), "bad_file");
  }
}

TEST(Safetensors, MalformedHeadersAreInputErrors) {
  expect_bad("", "empty");
  expect_bad(std::string("\x05\0\0", 3), "truncated length");
  expect_bad(safetensors_raw("{}", 1000), "length past the end");
  expect_bad(safetensors_raw("{}", uint64_t{1} << 62), "length over the cap");
  expect_bad(safetensors_raw("[]", 2), "not an object");
  expect_bad(safetensors_raw("{\"a\":", 5), "bad json");
  expect_bad(safetensors_raw("{\"a\": 1}", 8), "entry not an object");
  const auto one = [](const std::string& entry, uint64_t data) {
    const std::string h = "{\"t\":" + entry + "}";
    return safetensors_raw(h, h.size(), data);
  };
  expect_bad(one(R"({"dtype":"X9","shape":[2],"data_offsets":[0,2]})", 2), "unknown dtype");
  expect_bad(one(R"({"dtype":"U8","shape":[2],"data_offsets":[0,4]})", 2), "offsets past data");
  expect_bad(one(R"({"dtype":"U8","shape":[2],"data_offsets":[0,1]})", 2), "span != shape");
  expect_bad(one(R"({"dtype":"U8","shape":[2],"data_offsets":[2,0]})", 2), "begin > end");
  expect_bad(one(R"({"dtype":"U8","shape":[-2],"data_offsets":[0,2]})", 2), "negative dim");
  expect_bad(one(R"({"dtype":"U8","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,1]})", 1),
             "rank 9");
  expect_bad(one(R"({"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,0]})", 0),
             "overflowing dims");
  expect_bad(one(R"({"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,0]})", 0),
             "max u64 dim");
  expect_bad(one(R"({"dtype":"U8","shape":2,"data_offsets":[0,2]})", 2), "shape not array");
  expect_bad(one(R"({"dtype":"U8","shape":[2],"data_offsets":[0]})", 2), "one offset");
  expect_bad(safetensors_raw(std::string(5000, '['), 5000), "deep nesting");
}

TEST(Safetensors, IndexShardNamesMustStayInTheFolder) {
  EXPECT_EQ(safetensors_index_shards(R"({"weight_map":{"a":"x.safetensors","b":"x.safetensors",
            "c":"y.safetensors"}})",
                                     "i")
                .size(),
            2u);
  EXPECT_THROW(safetensors_index_shards(R"({"weight_map":{"a":"../x"}})", "i"), InputError);
  EXPECT_THROW(safetensors_index_shards(R"({"weight_map":{"a":"/etc/x"}})", "i"), InputError);
  EXPECT_THROW(safetensors_index_shards(R"({"weight_map":[]})", "i"), InputError);
  EXPECT_THROW(safetensors_index_shards(R"({"weight_map":{}})", "i"), InputError);
}

}  // namespace
}  // namespace gpusizer
