#include "importers/gguf.h"

#include <algorithm>
#include <cstring>

#include "gpusizer/error.h"
#include "importers/json_guard.h"

namespace gpusizer {
namespace {

constexpr uint64_t kMaxString = uint64_t{1} << 20;  // keys, values and tensor names
constexpr uint32_t kMaxDims = 4;                    // GGML_MAX_DIMS (ggml.h)
constexpr uint64_t kMaxStoredArray = 1024;          // longer arrays are counted, not kept
constexpr uint64_t kMaxElements = uint64_t{1} << 56;

// gguf_metadata_value_type (ggml/docs/gguf.md "File Structure").
enum : uint32_t {
  kU8 = 0,
  kI8 = 1,
  kU16 = 2,
  kI16 = 3,
  kU32 = 4,
  kI32 = 5,
  kF32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kU64 = 10,
  kI64 = 11,
  kF64 = 12,
};

// Bytes of a fixed-size metadata value type, 0 for string/array/unknown.
uint64_t scalar_size(uint32_t type) {
  switch (type) {
    case kU8:
    case kI8:
    case kBool:
      return 1;
    case kU16:
    case kI16:
      return 2;
    case kU32:
    case kI32:
    case kF32:
      return 4;
    case kU64:
    case kI64:
    case kF64:
      return 8;
    default:
      return 0;
  }
}

template <class To, class From>
To bit_cast_to(From v) {
  To out;
  static_assert(sizeof(To) == sizeof(From));
  std::memcpy(&out, &v, sizeof(To));
  return out;
}

nlohmann::json read_scalar(ByteReader& r, uint32_t type) {
  switch (type) {
    case kU8:
      return r.u8();
    case kI8:
      return static_cast<int8_t>(r.u8());
    case kU16:
      return r.u16();
    case kI16:
      return static_cast<int16_t>(r.u16());
    case kU32:
      return r.u32();
    case kI32:
      return static_cast<int32_t>(r.u32());
    case kF32:
      return bit_cast_to<float>(r.u32());
    case kBool: {
      const uint8_t b = r.u8();
      if (b > 1) r.fail("bool value " + std::to_string(b) + " is neither 0 nor 1");
      return b == 1;
    }
    case kString:
      return sanitize_utf8(r.str(kMaxString));
    case kU64:
      return r.u64();
    case kI64:
      return static_cast<int64_t>(r.u64());
    case kF64:
      return bit_cast_to<double>(r.u64());
    default:
      r.fail("unknown metadata value type " + std::to_string(type));
  }
}

}  // namespace

GgmlType ggml_type(uint32_t id) {
  // ggml/src/ggml.c type_traits[] (blck_size, type_size); sizes of the block_* structs in
  // ggml/src/ggml-common.h, e.g. block_q4_K = 2*half + 12 scales + 128 qs = 144 bytes / 256.
  switch (id) {
    case 0:
      return {"F32", 1, 4};
    case 1:
      return {"F16", 1, 2};
    case 2:
      return {"Q4_0", 32, 18};
    case 3:
      return {"Q4_1", 32, 20};
    case 6:
      return {"Q5_0", 32, 22};
    case 7:
      return {"Q5_1", 32, 24};
    case 8:
      return {"Q8_0", 32, 34};
    case 9:
      return {"Q8_1", 32, 36};
    case 10:
      return {"Q2_K", 256, 84};
    case 11:
      return {"Q3_K", 256, 110};
    case 12:
      return {"Q4_K", 256, 144};
    case 13:
      return {"Q5_K", 256, 176};
    case 14:
      return {"Q6_K", 256, 210};
    case 15:
      return {"Q8_K", 256, 292};
    case 16:
      return {"IQ2_XXS", 256, 66};
    case 17:
      return {"IQ2_XS", 256, 74};
    case 18:
      return {"IQ3_XXS", 256, 98};
    case 19:
      return {"IQ1_S", 256, 50};
    case 20:
      return {"IQ4_NL", 32, 18};
    case 21:
      return {"IQ3_S", 256, 110};
    case 22:
      return {"IQ2_S", 256, 82};
    case 23:
      return {"IQ4_XS", 256, 136};
    case 24:
      return {"I8", 1, 1};
    case 25:
      return {"I16", 1, 2};
    case 26:
      return {"I32", 1, 4};
    case 27:
      return {"I64", 1, 8};
    case 28:
      return {"F64", 1, 8};
    case 29:
      return {"IQ1_M", 256, 56};
    case 30:
      return {"BF16", 1, 2};
    case 34:
      return {"TQ1_0", 256, 54};
    case 35:
      return {"TQ2_0", 256, 66};
    case 39:
      return {"MXFP4", 32, 17};  // block_mxfp4: e8m0 scale + 16 bytes of e2m1 pairs
    case 40:
      return {"NVFP4", 64, 36};  // block_nvfp4: 4 e4m3 scales + 32 bytes of e2m1 pairs
    default:
      return {};
  }
}

namespace {

// One metadata array: its length always, its items when short enough to keep (string items and
// long arrays are skipped, bounded by the bytes left).
void read_metadata_array(ByteReader& r, GgufHeader& h, const std::string& key) {
  const uint32_t item_type = r.u32();
  const uint64_t n = r.u64();
  if (item_type == kArray) r.fail("nested arrays in metadata '" + key + "' are not supported");
  const uint64_t item_min = item_type == kString ? 8 : scalar_size(item_type);
  if (item_min == 0) r.fail("unknown array item type " + std::to_string(item_type));
  if (n > r.remaining() / item_min)
    r.fail("array '" + key + "' of " + std::to_string(n) + " items does not fit the file");
  h.array_lengths[key] = n;
  if (item_type == kString) {
    for (uint64_t k = 0; k < n; ++k) r.skip(std::min(r.u64(), r.remaining() + 1));
  } else if (n <= kMaxStoredArray) {
    nlohmann::json arr = nlohmann::json::array();
    for (uint64_t k = 0; k < n; ++k) arr.push_back(read_scalar(r, item_type));
    h.metadata[key] = std::move(arr);
  } else {
    r.skip(n * item_min);
  }
}

void read_metadata(ByteReader& r, GgufHeader& h, uint64_t kv_count, const std::string& where) {
  for (uint64_t i = 0; i < kv_count; ++i) {
    const std::string key = sanitize_utf8(r.str(kMaxString));
    const uint32_t type = r.u32();
    if (type == kArray)
      read_metadata_array(r, h, key);
    else
      h.metadata[key] = read_scalar(r, type);
  }
  if (auto it = h.metadata.find("general.alignment"); it != h.metadata.end()) {
    if (!it->is_number_unsigned() || it->get<uint64_t>() == 0 || it->get<uint64_t>() > 65536 ||
        (it->get<uint64_t>() & (it->get<uint64_t>() - 1)) != 0)
      throw InputError(where + ": general.alignment", "must be a power of two up to 65536",
                       "bad_file");
    h.alignment = it->get<uint64_t>();
  }
}

// A tensor's info record and where its data starts (relative to the data section).
struct TensorInfo {
  TensorEntry entry;
  uint64_t offset = 0;
};

TensorInfo read_tensor_info(ByteReader& r, uint64_t alignment) {
  TensorInfo p;
  p.entry.name = sanitize_utf8(r.str(kMaxString));
  const uint32_t n_dims = r.u32();
  if (n_dims == 0 || n_dims > kMaxDims)
    r.fail("tensor '" + p.entry.name + "' has " + std::to_string(n_dims) + " dims (1 to 4)");
  uint64_t numel = 1;
  for (uint32_t d = 0; d < n_dims; ++d) {
    const uint64_t v = r.u64();
    if (v > kMaxElements || (v > 0 && numel > kMaxElements / v))
      r.fail("tensor '" + p.entry.name + "' shape overflows");
    numel *= v;
    p.entry.shape.push_back(static_cast<int64_t>(v));
  }
  const uint32_t type_id = r.u32();
  const GgmlType t = ggml_type(type_id);
  if (!t.name)
    r.fail("tensor '" + p.entry.name + "' has unknown ggml type " + std::to_string(type_id));
  if (p.entry.shape[0] % t.block_size != 0)
    r.fail("tensor '" + p.entry.name + "' row of " + std::to_string(p.entry.shape[0]) +
           " is not a multiple of the " + t.name + " block size");
  p.entry.dtype = t.name;
  p.entry.numel = static_cast<int64_t>(numel);
  // numel < 2^56 and block_bytes/block_size <= 4.25: no overflow.
  p.entry.bytes =
      numel / static_cast<uint64_t>(t.block_size) * static_cast<uint64_t>(t.block_bytes);
  p.offset = r.u64();
  if (p.offset % alignment != 0)
    r.fail("tensor '" + p.entry.name + "' offset is not aligned to " + std::to_string(alignment));
  return p;
}

}  // namespace

GgufHeader read_gguf_header(const ByteSource& source, const std::string& where) {
  ByteReader r(source, where);
  GgufHeader h;
  const std::string magic = r.bytes(4);
  if (magic != "GGUF") r.fail("not a GGUF file (magic is not \"GGUF\")");
  h.version = r.u32();
  if (h.version == 1) r.fail("GGUF version 1 (32-bit counts) is not supported; re-convert it");
  if (h.version != 2 && h.version != 3)
    r.fail("unsupported GGUF version " + std::to_string(h.version) +
           (h.version > 0xFFFF ? " (a big-endian file?)" : ""));
  const uint64_t tensor_count = r.u64();
  const uint64_t kv_count = r.u64();
  // Each key/value takes at least 13 bytes (8 length + 1 key byte + 4 type) and each tensor
  // info at least 25 (8 + 1 + 4 n_dims + 4 type + 8 offset): counts beyond that are lies.
  if (kv_count > r.remaining() / 13)
    r.fail("metadata count " + std::to_string(kv_count) + " does not fit the file");
  if (tensor_count > r.remaining() / 25)
    r.fail("tensor count " + std::to_string(tensor_count) + " does not fit the file");
  read_metadata(r, h, kv_count, where);

  std::vector<TensorInfo> infos;
  infos.reserve(static_cast<size_t>(tensor_count));
  for (uint64_t i = 0; i < tensor_count; ++i) infos.push_back(read_tensor_info(r, h.alignment));
  const uint64_t end = r.pos();
  h.data_offset = (end + h.alignment - 1) / h.alignment * h.alignment;
  const uint64_t data_size = h.data_offset <= r.size() ? r.size() - h.data_offset : 0;
  h.tensors.reserve(infos.size());
  for (auto& p : infos) {
    if (p.offset > data_size || p.entry.bytes > data_size - p.offset)
      throw InputError(where + ": " + p.entry.name,
                       "tensor data (offset " + std::to_string(p.offset) + ", " +
                           std::to_string(p.entry.bytes) + " bytes) lies past the end of the file",
                       "bad_file");
    h.tensors.push_back(std::move(p.entry));
  }
  return h;
}

}  // namespace gpusizer
