#pragma once
// The tensors of a checkpoint (from safetensors headers or GGUF tensor infos) and what they add
// up to: exact bytes by dtype, logical parameters, embedding and head bytes, the weights format.
#include <cstdint>
#include <string>
#include <vector>

#include "gpusizer/weights_file.h"

namespace gpusizer {

struct TensorEntry {
  std::string name;
  std::string dtype;  ///< safetensors dtype ("BF16") or ggml type name ("Q4_K")
  std::vector<int64_t> shape;
  int64_t numel = 0;   ///< stored elements (packed quantized tensors not unpacked)
  uint64_t bytes = 0;  ///< exact bytes of its data
};

/// True for the token embedding table under the names HF and llama.cpp give it.
bool is_embedding_tensor(const std::string& name);
/// True for the output head (lm_head) under the names HF and llama.cpp give it.
bool is_lm_head_tensor(const std::string& name);

/// Sums safetensors entries into a WeightsFile: logical parameters unpack GPTQ/AWQ int32 words
/// (8 4-bit values), bitsandbytes 4-bit bytes and MXFP4 blocks (2 values a byte), and leave out
/// quantization scales, zeros and indices.
WeightsFile summarize_safetensors(const std::vector<TensorEntry>& tensors, const std::string& path);

/// Sums GGUF entries (dims are logical elements already) into a WeightsFile.
WeightsFile summarize_gguf(const std::vector<TensorEntry>& tensors, const std::string& path);

}  // namespace gpusizer
