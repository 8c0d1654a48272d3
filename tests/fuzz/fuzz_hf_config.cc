// Fuzzes the config.json importer (JSON text in, Model out).
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return gpusizer::fuzz::run(data, size, [](std::string_view b) {
    gpusizer::fuzz::report(gpusizer::import_hf_config_text(b, "config.json"));
  });
}
