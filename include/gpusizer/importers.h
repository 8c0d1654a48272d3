#pragma once
// Reading real model files offline: Hugging Face config.json, safetensors headers (sharded too),
// GGUF headers (v2, v3; split files). Every length, count and offset is checked against the file
// size and sane limits; a malformed file is an InputError naming the byte offset or JSON path.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusizer/catalog.h"
#include "gpusizer/model.h"
#include "gpusizer/weights_file.h"

namespace gpusizer {

struct ImportedModel {
  Model model;
  std::optional<WeightsFile> weights;  ///< present when weight files were read
  std::string weights_format;  ///< from quantization_config or the file's dtypes; empty = unknown
  std::vector<std::string> warnings;  ///< fields assumed, unknown model_type, ...
};

/// Parses config.json text (the bytes of the file) and imports it; malformed JSON is "bad_file".
ImportedModel import_hf_config_text(std::string_view text, const std::string& where);

/// Reads a config.json, a model folder, a .safetensors file or index, or a .gguf file. Weights
/// without a config.json beside them give the exact parameter count but not the attention
/// heads, KV heads and head_dim an estimate needs: refused with a message saying so, unless
/// `shapes_only` (inspect, which reports what the shapes show).
ImportedModel import_model_path(const std::string& path, bool shapes_only = false);

/// Reads the header of one safetensors file held in memory; never touches tensor data.
WeightsFile read_safetensors_bytes(std::string_view bytes, const std::string& where);

/// Reads a .safetensors file, or every shard named by a model.safetensors.index.json.
WeightsFile read_safetensors_path(const std::string& path);

/// Imports a GGUF file held in memory: the Model from its metadata, the weights from its tensor
/// infos.
ImportedModel import_gguf_bytes(std::string_view bytes, const std::string& where);

/// Imports a .gguf file; a split file (name-00001-of-0000N.gguf) is read with all its parts.
ImportedModel import_gguf_path(const std::string& path);

/// The imported weights' format id: the importer's exact reading, else (GGUF block types the
/// catalog has no row for, such as IQ*) the catalog's GGUF format closest in bits per weight;
/// empty when unknown. The one rule, used by the scenario and the inspect report.
std::string imported_weights_format(const ImportedModel& imported, const Catalog& catalog);

/// The imported model as a readable text table.
std::string imported_to_text(const ImportedModel& imported, const Catalog& catalog);

}  // namespace gpusizer
