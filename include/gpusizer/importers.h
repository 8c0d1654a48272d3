#pragma once
// Reading real model files offline: Hugging Face config.json, safetensors headers (sharded too),
// GGUF headers (v2, v3; split files). Every length, count and offset is checked against the file
// size and sane limits; a malformed file is an InputError naming the byte offset or JSON path.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpusizer/model.h"
#include "gpusizer/weights_file.h"

namespace gpusizer {

struct ImportedModel {
  Model model;
  std::optional<WeightsFile> weights;  ///< present when weight files were read
  std::string weights_format;  ///< from quantization_config or the file's dtypes; empty = unknown
  std::vector<std::string> warnings;  ///< fields assumed, unknown model_type, ...
};

/// Builds a Model from a Hugging Face config.json object; `where` prefixes JSON paths in errors.
ImportedModel import_hf_config(const nlohmann::json& config, const std::string& where);

/// Reads a config.json, a model folder, a .safetensors file or index, or a .gguf file.
ImportedModel import_model_path(const std::string& path);

}  // namespace gpusizer
