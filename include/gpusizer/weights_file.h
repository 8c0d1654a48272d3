#pragma once
// What reading a model's weight files (safetensors headers, GGUF tensor infos) tells exactly.
#include <cstdint>
#include <map>
#include <string>

namespace gpusizer {

struct WeightsFile {
  std::string format;  ///< "safetensors" or "gguf"
  std::string path;
  int64_t tensors = 0;
  int64_t elements = 0;        ///< logical parameters (packed quantized tensors unpacked)
  double total_bytes = 0;      ///< exact bytes of the tensor data
  double embedding_bytes = 0;  ///< token embedding table
  double lm_head_bytes = 0;    ///< output head (0 when tied)
  std::map<std::string, double> bytes_by_dtype;  ///< "BF16", "I32", "Q4_K", ...
  std::string weights_format;  ///< gpusizer format id inferred from the dtypes ("bf16", "q4_k_m")
  int64_t files = 1;           ///< shards or split parts read
};

}  // namespace gpusizer
