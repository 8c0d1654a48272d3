// Inputs fuzz_scenario and fuzz_http found (tests/fixtures/fuzz_regressions/scenario_* and
// http_*): each must end the way the fuzz target demands, quickly. A scenario ends in an answer or
// an InputError; a request in a status under 500 with a JSON body when it says JSON.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/http_input.h"
#include "gpusizer/error.h"
#include "gpusizer/json/api.h"

namespace gpusizer {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(FuzzRegressions, ScenariosAndRequestsEndCleanly) {
  const fs::path dir = fs::path(GPUSIZER_SOURCE_DIR) / "tests/fixtures/fuzz_regressions";
  server::RequestHandler handler({}, Catalog::builtin());
  int scenarios = 0, requests = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    const bool scenario = name.rfind("scenario_", 0) == 0;
    if (!scenario && name.rfind("http_", 0) != 0) continue;
    ++(scenario ? scenarios : requests);
    SCOPED_TRACE(name);
    const std::string bytes = read_bytes(e.path());
    if (scenario) {
      const nlohmann::json input = nlohmann::json::parse(bytes, nullptr, false);
      ASSERT_FALSE(input.is_discarded()) << "a scenario regression must be JSON";
      try {
        (void)estimate_json(input).dump();
      } catch (const InputError&) {
      } catch (const std::exception& error) {
        ADD_FAILURE() << "escaped: " << error.what();
      }
    } else {
      const auto answer = handler.handle(fuzz::http_request_from_bytes(bytes));
      EXPECT_LT(answer.status, 500) << answer.status << " " << answer.body;
      if (answer.content_type == "application/json") {
        EXPECT_FALSE(nlohmann::json::parse(answer.body, nullptr, false).is_discarded());
      }
    }
  }
  // The folder holds findings of both targets; none read would pass vacuously.
  EXPECT_GT(scenarios, 0);
  EXPECT_GT(requests, 0);
}

}  // namespace
}  // namespace gpusizer
