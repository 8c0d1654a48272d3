// Inputs the fuzzers found (tests/fixtures/fuzz_regressions): each must end in a result or an
// InputError, quickly. File names say which reader and what went wrong before the fix.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpusizer/error.h"
#include "gpusizer/importers.h"
#include "gpusizer/json/importers.h"

namespace gpusizer {
namespace {

namespace fs = std::filesystem;

TEST(FuzzRegressions, EveryInputEndsCleanly) {
  const fs::path dir = fs::path(GPUSIZER_SOURCE_DIR) / "tests/fixtures/fuzz_regressions";
  int checked = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name == "README.md") continue;
    // The scenario and HTTP findings are checked by tests/fuzz_regressions_test.cc.
    if (name.rfind("scenario_", 0) == 0 || name.rfind("http_", 0) == 0) continue;
    SCOPED_TRACE(name);
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    const std::string bytes = s.str();
    try {
      if (name.rfind("gguf_", 0) == 0)
        (void)imported_to_json(import_gguf_bytes(bytes, name), gpusizer::Catalog::builtin()).dump();
      else if (name.rfind("safetensors_", 0) == 0)
        (void)read_safetensors_bytes(bytes, name);
      else
        (void)imported_to_json(import_hf_config_text(bytes, name), gpusizer::Catalog::builtin())
            .dump();
    } catch (const InputError&) {
    }
    ++checked;
  }
  EXPECT_GE(checked, 1);
}

}  // namespace
}  // namespace gpusizer
