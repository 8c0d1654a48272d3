#include "importers/safetensors.h"

#include <set>

#include "gpusizer/error.h"
#include "importers/json_guard.h"

namespace gpusizer {
namespace {

constexpr size_t kMaxRank = 8;
constexpr uint64_t kMaxElements = uint64_t{1} << 62;  // far above any real tensor

}  // namespace

int safetensors_dtype_bits(std::string_view d) {
  // safetensors/src/tensor.rs, enum Dtype and Dtype::bitsize().
  if (d == "BOOL" || d == "U8" || d == "I8" || d == "F8_E5M2" || d == "F8_E4M3" || d == "F8_E8M0")
    return 8;
  if (d == "F4") return 4;
  if (d == "F6_E2M3" || d == "F6_E3M2") return 6;
  if (d == "I16" || d == "U16" || d == "F16" || d == "BF16") return 16;
  if (d == "I32" || d == "U32" || d == "F32") return 32;
  if (d == "I64" || d == "U64" || d == "F64" || d == "C64") return 64;
  return 0;
}

std::vector<TensorEntry> read_safetensors_header(const ByteSource& source,
                                                 const std::string& where) {
  ByteReader r(source, where);
  const uint64_t n = r.u64();
  if (n > kSafetensorsMaxHeader)
    r.fail("header length " + std::to_string(n) + " exceeds the 100 MB limit");
  if (n > r.remaining())
    r.fail("header length " + std::to_string(n) + " is larger than the rest of the file (" +
           std::to_string(r.remaining()) + " bytes)");
  const std::string text = r.bytes(n);
  const uint64_t data_size = r.remaining();
  const nlohmann::json header = parse_json_guarded(text, where + ": header");
  if (!header.is_object())
    throw InputError(where + ": header", "must be a JSON object", "bad_file");

  std::vector<TensorEntry> out;
  out.reserve(header.size());
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") {
      if (!info.is_object() && !info.is_null())
        throw InputError(where + ": __metadata__", "must be an object", "bad_file");
      continue;
    }
    const std::string field = where + ": " + name;
    auto bad = [&](const std::string& what) { throw InputError(field, what, "bad_file"); };
    if (!info.is_object()) bad("must be an object with dtype, shape and data_offsets");
    const auto dtype = info.find("dtype");
    const auto shape = info.find("shape");
    const auto offsets = info.find("data_offsets");
    if (dtype == info.end() || !dtype->is_string()) bad("dtype must be a string");
    if (shape == info.end() || !shape->is_array()) bad("shape must be an array");
    if (offsets == info.end() || !offsets->is_array() || offsets->size() != 2)
      bad("data_offsets must be [begin, end]");
    TensorEntry t;
    t.name = name;
    t.dtype = dtype->get<std::string>();
    const int bits = safetensors_dtype_bits(t.dtype);
    if (bits == 0) bad("unknown dtype '" + sanitize_utf8(t.dtype) + "'");
    if (shape->size() > kMaxRank) bad("rank " + std::to_string(shape->size()) + " exceeds 8");
    uint64_t numel = 1;
    for (const auto& dim : *shape) {
      if (!dim.is_number_unsigned()) bad("shape entries must be non-negative integers");
      const uint64_t v = dim.get<uint64_t>();
      if (v > kMaxElements || (v > 0 && numel > kMaxElements / v))
        bad("shape overflows (too many elements)");
      numel *= v;
      t.shape.push_back(static_cast<int64_t>(v));
    }
    for (const auto& o : *offsets)
      if (!o.is_number_unsigned()) bad("data_offsets must be non-negative integers");
    const uint64_t begin = (*offsets)[0].get<uint64_t>(), end = (*offsets)[1].get<uint64_t>();
    if (begin > end) bad("data_offsets begin > end");
    if (end > data_size)
      bad("data_offsets end " + std::to_string(end) + " is past the data section (" +
          std::to_string(data_size) + " bytes)");
    if (numel > (kMaxElements >> 6)) bad("shape overflows (too many bytes)");
    const uint64_t nbits = numel * static_cast<uint64_t>(bits);  // < 2^64 after the check above
    if (nbits % 8 != 0) bad("shape and dtype give a partial byte");
    const uint64_t nbytes = nbits / 8;
    if (end - begin != nbytes)
      bad("data_offsets span " + std::to_string(end - begin) + " bytes but shape x dtype is " +
          std::to_string(nbytes));
    t.numel = static_cast<int64_t>(numel);
    t.bytes = nbytes;
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::string> safetensors_index_shards(std::string_view index_text,
                                                  const std::string& where) {
  const nlohmann::json index = parse_json_guarded(index_text, where);
  if (!index.is_object()) throw InputError(where, "must be a JSON object", "bad_file");
  const auto map = index.find("weight_map");
  if (map == index.end() || !map->is_object())
    throw InputError(where + ".weight_map", "must be an object {tensor: file}", "bad_file");
  std::vector<std::string> shards;
  std::set<std::string> seen;
  for (const auto& [tensor, file] : map->items()) {
    if (!file.is_string())
      throw InputError(where + ".weight_map." + tensor, "must be a file name", "bad_file");
    const std::string f = file.get<std::string>();
    // A shard must sit next to the index: refuse paths that leave the folder.
    if (f.empty() || f.find('/') != std::string::npos || f.find('\\') != std::string::npos ||
        f == "." || f == "..")
      throw InputError(where + ".weight_map." + tensor, "must be a plain file name", "bad_file");
    if (seen.insert(f).second) shards.push_back(f);
  }
  if (shards.empty()) throw InputError(where + ".weight_map", "is empty", "bad_file");
  return shards;
}

}  // namespace gpusizer
