// Fuzzes the safetensors header reader.
#include "fuzz_common.h"
#include "gpusizer/json/importers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return gpusizer::fuzz::run(data, size, [](std::string_view b) {
    gpusizer::ImportedModel im;
    im.weights = gpusizer::read_safetensors_bytes(b, "fuzz.safetensors");
    (void)gpusizer::imported_to_json(im, gpusizer::Catalog::builtin()).dump();
  });
}
