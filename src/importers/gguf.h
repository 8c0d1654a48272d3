#pragma once
// GGUF headers, versions 2 and 3 (ggml/docs/gguf.md in ggml-org/ggml): magic "GGUF", version,
// tensor count and metadata count (u64), metadata key/values, tensor infos, then tensor data
// aligned to general.alignment (default 32). Only the header is read.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "importers/byte_reader.h"
#include "importers/tensor_table.h"

namespace gpusizer {

/// Block size (values per block) and bytes per block of a ggml type.
struct GgmlType {
  const char* name = nullptr;  ///< nullptr: unknown or removed type
  int64_t block_size = 0;
  int64_t block_bytes = 0;
};

/// The traits of ggml type `id` (ggml/src/ggml.c type_traits; block structs in ggml-common.h).
GgmlType ggml_type(uint32_t id);

struct GgufHeader {
  uint32_t version = 0;
  uint64_t alignment = 32;
  uint64_t data_offset = 0;                            ///< where tensor data starts (aligned)
  nlohmann::json metadata = nlohmann::json::object();  ///< scalars; arrays up to 1024 numbers
  std::map<std::string, uint64_t> array_lengths;       ///< every array's length, by key
  std::vector<TensorEntry> tensors;
};

/// Reads and checks a GGUF header; `where` names the file in errors.
GgufHeader read_gguf_header(const ByteSource& source, const std::string& where);

}  // namespace gpusizer
