#pragma once
// safetensors headers (https://github.com/huggingface/safetensors, README "Format"): an 8-byte
// little-endian u64 N, then N bytes of JSON {name: {dtype, shape, data_offsets}, "__metadata__"},
// then the tensor data. Only the header is read.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "importers/byte_reader.h"
#include "importers/tensor_table.h"

namespace gpusizer {

/// Largest header accepted (the reference implementation's MAX_HEADER_SIZE is 100,000,000).
constexpr uint64_t kSafetensorsMaxHeader = 100'000'000;

/// Bits per element of a safetensors dtype, or 0 when the dtype is unknown.
int safetensors_dtype_bits(std::string_view dtype);

/// Reads and checks the header of one safetensors file; `where` names it in errors.
std::vector<TensorEntry> read_safetensors_header(const ByteSource& source,
                                                 const std::string& where);

/// Shard file names of a model.safetensors.index.json text, in first-seen order; checks that the
/// weight_map is an object of plain file names (no directories).
std::vector<std::string> safetensors_index_shards(std::string_view index_text,
                                                  const std::string& where);

}  // namespace gpusizer
