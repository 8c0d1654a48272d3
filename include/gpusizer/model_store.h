#pragma once
// Local model stores, read offline: the Hugging Face cache, ModelScope's cache and Ollama's store.
// A model name that is not a catalog id is looked up there before it is refused; the importers
// then read the files found exactly (docs/model-stores.md).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusizer/importers.h"
#include "gpusizer/store_access.h"

namespace gpusizer {

/// "hf-cache", "modelscope", "ollama": the value of the scenario's model_origin.
std::string_view store_id(ModelStore store);

/// Reads a list such as "hf,modelscope,ollama" (also "hf-cache", "all", "none"); `field` names the
/// flag in the InputError for an unknown store.
std::vector<ModelStore> parse_store_list(std::string_view list, const std::string& field);

/// The process environment (getenv).
EnvLookup process_env();

/// A model found in a store.
struct LocalModel {
  ModelStore store = ModelStore::kHfCache;
  std::string name;   ///< as the store names it: "ORG/NAME", "NAME:TAG"
  std::string path;   ///< what the importer reads: a snapshot folder or a GGUF blob
  std::string entry;  ///< the store's own record: refs/main, the model folder or the manifest
};

/// Looks `name` up in the allowed stores, in the order Hugging Face, ModelScope, Ollama ("NAME:TAG"
/// only in Ollama; no tag means "latest"). Names with characters a store cannot hold (".."
/// components, absolute paths, spaces) are not looked up. Returns nullopt when no store holds the
/// model; throws InputError("bad_file") naming the file when a store's entry for it is broken.
std::optional<LocalModel> find_local_model(std::string_view name, const StoreAccess& access);

/// Reads the files of a model found in a store (exact counts from safetensors or GGUF headers).
ImportedModel import_local_model(const LocalModel& local);

/// One model a store holds, for `gpusizer models --local`.
struct LocalListing {
  LocalModel model;
  double bytes = 0;   ///< bytes on disk of the model's files (Ollama: its layers)
  std::string error;  ///< why the entry cannot be read; empty when it can
};

/// Everything the allowed stores hold, sorted by store then name; at most 10,000 entries a store.
std::vector<LocalListing> list_local_models(const StoreAccess& access);

/// The model layer's blob digest ("sha256:<64 hex>") of an Ollama manifest, and the bytes of all
/// its layers. Throws InputError(`where`, ..., "bad_file") for a malformed manifest.
struct OllamaManifest {
  std::string model_digest;
  double layer_bytes = 0;
};
OllamaManifest parse_ollama_manifest(std::string_view text, const std::string& where);

}  // namespace gpusizer
