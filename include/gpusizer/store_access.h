#pragma once
// Which local model stores a lookup may read (the Hugging Face cache, ModelScope's cache, Ollama's
// store), and where it learns their roots. The faces decide it and hand it to the catalog
// (Catalog::allow_model_stores); the readers are in gpusizer/model_store.h.
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpusizer {

enum class ModelStore { kHfCache, kModelScope, kOllama };

/// An environment variable's value, or nullopt when unset or empty. Passed in so that tests can
/// fake HOME, HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME, MODELSCOPE_CACHE and OLLAMA_MODELS.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

/// Which stores a lookup may read, and where it learns their roots.
struct StoreAccess {
  std::vector<ModelStore> stores;  ///< empty: no lookup at all
  EnvLookup env;
};

}  // namespace gpusizer
