// Fuzzes the Ollama manifest reader (JSON from a local model store): each input either gives the
// model layer's digest or is an InputError.
#include "fuzz_common.h"
#include "gpusizer/model_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return gpusizer::fuzz::run(
      data, size, [](std::string_view b) { (void)gpusizer::parse_ollama_manifest(b, "manifest"); });
}
