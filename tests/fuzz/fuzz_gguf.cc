// Fuzzes the GGUF header reader and the Model built from its metadata.
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return gpusizer::fuzz::run(data, size, [](std::string_view b) {
    gpusizer::fuzz::report(gpusizer::import_gguf_bytes(b, "fuzz.gguf"));
  });
}
