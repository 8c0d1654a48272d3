// GGUF header reading: exact bytes of a synthetic Q4_K_M-like file, the Model from its metadata,
// and malformed headers refused with an InputError.
#include "importers/gguf.h"

#include <gtest/gtest.h>

#include "gpusizer/catalog.h"
#include "gpusizer/error.h"
#include "gpusizer/importers.h"
#include "importers/test_files.h"

namespace gpusizer {
namespace {

using testing::GgufWriter;

TEST(Gguf, TypeTraitsMatchGgml) {
  // ggml-common.h: block_q4_0 18 B / 32, block_q8_0 34 B / 32, block_q4_K 144 B / 256,
  // block_q6_K 210 B / 256, block_mxfp4 17 B / 32.
  EXPECT_EQ(ggml_type(2).block_bytes, 18);
  EXPECT_EQ(ggml_type(8).block_bytes, 34);
  EXPECT_EQ(ggml_type(12).block_bytes, 144);
  EXPECT_EQ(ggml_type(14).block_bytes, 210);
  EXPECT_EQ(ggml_type(39).block_bytes, 17);
  EXPECT_EQ(ggml_type(4).name, nullptr);  // removed Q4_2
  EXPECT_EQ(ggml_type(1000).name, nullptr);
}

TEST(Gguf, TinyLlamaExactBytesAndModel) {
  const std::string f = testing::tiny_llama_gguf();
  const ImportedModel im = import_gguf_bytes(f, "tiny.gguf");
  ASSERT_TRUE(im.weights);
  const WeightsFile& w = *im.weights;
  EXPECT_EQ(w.tensors, 2 + 2 * 9 + 1);
  const double q4k = (256000 + 2 * (65536 + 32768 + 65536 + 131072 * 2)) / 256.0 * 144;
  const double q6k = (256000 + 2 * (32768 + 131072)) / 256.0 * 210;
  EXPECT_EQ(w.bytes_by_dtype.at("Q4_K"), q4k);
  EXPECT_EQ(w.bytes_by_dtype.at("Q6_K"), q6k);
  EXPECT_EQ(w.bytes_by_dtype.at("F32"), 5 * 1024);
  EXPECT_EQ(w.total_bytes, q4k + q6k + 5 * 1024);
  EXPECT_EQ(w.embedding_bytes, 256000 / 256 * 144);
  EXPECT_EQ(w.weights_format, "q4_k_m");
  const Model& m = im.model;
  EXPECT_EQ(m.family, "llama");
  EXPECT_EQ(m.vocab_size, 1000);
  EXPECT_EQ(m.num_layers, 2);
  EXPECT_EQ(m.num_kv_heads, 2);
  EXPECT_EQ(m.head_dim, 64);
  EXPECT_EQ(m.norms_per_layer, 2);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_EQ(count_params(m).total, w.elements);  // the metadata model counts what is stored
}

void expect_bad(const std::string& bytes, const std::string& what) {
  SCOPED_TRACE(what);
  try {
    import_gguf_bytes(bytes, "f.gguf");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.code(), "bad_file");
  }
}

std::string header(uint32_t version, uint64_t tensors, uint64_t kvs) {
  std::string s = "GGUF";
  auto le = [&](uint64_t v, int n) {
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  };
  le(version, 4);
  le(tensors, 8);
  le(kvs, 8);
  return s;
}

TEST(Gguf, MalformedHeadersAreInputErrors) {
  const std::string good = testing::tiny_llama_gguf();
  expect_bad("", "empty");
  expect_bad("GGUX" + good.substr(4), "bad magic");
  expect_bad(header(1, 0, 0), "version 1");
  expect_bad(header(0x03000000, 0, 0), "big endian");
  for (size_t cut : {size_t{10}, size_t{30}, size_t{200}, good.size() / 2})
    expect_bad(good.substr(0, cut), "truncated at " + std::to_string(cut));
  expect_bad(header(3, uint64_t{1} << 60, 0), "huge tensor count");
  expect_bad(header(3, 0, ~uint64_t{0}), "huge kv count");
  // A string length far beyond the file.
  std::string s = header(3, 0, 1);
  s += std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8);
  expect_bad(s + std::string(64, 'a'), "huge string");
  // An array claiming 2^60 u32 items.
  s = header(3, 0, 1);
  auto le = [&](uint64_t v, int n) {
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  };
  le(1, 8), s += "k", le(9, 4), le(4, 4), le(uint64_t{1} << 60, 8);
  expect_bad(s + std::string(64, '\0'), "huge array");
  // Tensor infos: 5 dims, unknown type, overflowing dims, misaligned and past-the-end offsets.
  auto with_tensor = [](const std::vector<uint64_t>& dims, uint32_t type, uint64_t offset) {
    std::string t = header(3, 1, 1);
    auto put = [&](uint64_t v, int n) {
      for (int i = 0; i < n; ++i) t.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
    };
    put(20, 8), t += "general.architecture", put(8, 4), put(5, 8), t += "llama";
    put(1, 8), t += "w", put(dims.size(), 4);
    for (uint64_t d : dims) put(d, 8);
    put(type, 4), put(offset, 8);
    t.resize((t.size() + 31) / 32 * 32 + 64, '\0');
    return t;
  };
  expect_bad(with_tensor({1, 1, 1, 1, 1}, 0, 0), "5 dims");
  expect_bad(with_tensor({}, 0, 0), "0 dims");
  expect_bad(with_tensor({4}, 77, 0), "unknown type");
  expect_bad(with_tensor({uint64_t{1} << 40, uint64_t{1} << 40}, 0, 0), "overflowing dims");
  expect_bad(with_tensor({4}, 0, 3), "misaligned offset");
  expect_bad(with_tensor({4}, 0, 1 << 20), "offset past the end");
  expect_bad(with_tensor({100}, 12, 0), "row not a multiple of the block");
  expect_bad(with_tensor({1024}, 0, 0), "data past the end");
}

// A tiny Llama-layout file whose matrices are all of one legacy 32-value block type (ggml.h ids
// Q4_1 3, Q5_0 6, Q5_1 7), the head in Q6_K as llama.cpp's quantize leaves it; general.file_type
// (llama.h llama_ftype: MOSTLY_Q4_1 3, MOSTLY_Q5_0 8, MOSTLY_Q5_1 9) when ftype >= 0.
std::string legacy_block_gguf(uint32_t type, int64_t block_bytes, int64_t ftype) {
  GgufWriter w;
  w.str("general.architecture", "llama");
  if (ftype >= 0) w.u32("general.file_type", static_cast<uint32_t>(ftype));
  w.u32("llama.block_count", 1);
  w.u32("llama.embedding_length", 256);
  w.u32("llama.feed_forward_length", 512);
  w.u32("llama.attention.head_count", 4);
  w.u32("llama.attention.head_count_kv", 2);
  w.u32("llama.context_length", 4096);
  w.str_array("tokenizer.ggml.tokens", std::vector<std::string>(1000, "t"));
  auto q = [&](uint64_t n) { return n / 32 * static_cast<uint64_t>(block_bytes); };
  w.tensor("token_embd.weight", {256, 1000}, type, q(256000));
  w.tensor("blk.0.attn_norm.weight", {256}, testing::kF32, 1024);
  w.tensor("blk.0.attn_q.weight", {256, 256}, type, q(65536));
  w.tensor("blk.0.attn_k.weight", {256, 128}, type, q(32768));
  w.tensor("blk.0.attn_v.weight", {256, 128}, type, q(32768));
  w.tensor("blk.0.attn_output.weight", {256, 256}, type, q(65536));
  w.tensor("blk.0.ffn_norm.weight", {256}, testing::kF32, 1024);
  w.tensor("blk.0.ffn_gate.weight", {256, 512}, type, q(131072));
  w.tensor("blk.0.ffn_up.weight", {256, 512}, type, q(131072));
  w.tensor("blk.0.ffn_down.weight", {512, 256}, type, q(131072));
  w.tensor("output_norm.weight", {256}, testing::kF32, 1024);
  w.tensor("output.weight", {256, 1000}, testing::kQ6_K, 256000 / 256 * 210);
  return w.bytes();
}

TEST(Gguf, LegacyBlockTypesMapToTheirOwnFormats) {
  // ggml-common.h: block_q4_1 = fp16 d + fp16 m + 16 nibble bytes = 20 B per 32 weights (5
  // bits), block_q5_0 = fp16 d + 4 fifth-bit bytes + 16 = 22 B (5.5), block_q5_1 = 24 B (6).
  struct Case {
    uint32_t type;
    int64_t block_bytes;
    int64_t ftype;
    const char* format;
  };
  const Catalog& catalog = Catalog::builtin();
  for (const Case& c : {Case{3, 20, 3, "q4_1"}, Case{6, 22, 8, "q5_0"}, Case{7, 24, 9, "q5_1"}}) {
    SCOPED_TRACE(c.format);
    EXPECT_EQ(ggml_type(c.type).block_bytes, c.block_bytes);
    const double bits = static_cast<double>(c.block_bytes) * 8 / 32;
    EXPECT_DOUBLE_EQ(catalog.format(c.format, "weights", "weights").bits_per_value, bits);
    // From general.file_type, and without it from the matrices' own type.
    EXPECT_EQ(import_gguf_bytes(legacy_block_gguf(c.type, c.block_bytes, c.ftype), "f.gguf")
                  .weights->weights_format,
              c.format);
    const ImportedModel im =
        import_gguf_bytes(legacy_block_gguf(c.type, c.block_bytes, -1), "f.gguf");
    EXPECT_EQ(im.weights->weights_format, c.format);
    EXPECT_EQ(
        im.weights->bytes_by_dtype.at(ggml_type(c.type).name),
        static_cast<double>((256000 + 2 * 65536 + 2 * 32768 + 3 * 131072) / 32 * c.block_bytes));
  }
}

TEST(Gguf, AlignmentMustBeAPowerOfTwo) {
  GgufWriter w;
  w.str("general.architecture", "llama");
  w.u32("general.alignment", 3);
  EXPECT_THROW(import_gguf_bytes(w.bytes(), "a.gguf"), InputError);
}

TEST(Gguf, MissingArchitectureMetadataIsAnError) {
  GgufWriter w;
  w.str("general.architecture", "llama");
  EXPECT_THROW(import_gguf_bytes(w.bytes(), "a.gguf"), InputError);  // no block_count etc.
}

}  // namespace
}  // namespace gpusizer
