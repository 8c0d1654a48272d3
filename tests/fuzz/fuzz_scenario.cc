// Fuzzes the scenario JSON: bytes -> JSON -> estimate_json -> output JSON. Text that is not JSON is
// skipped (the parser is nlohmann's, not ours); for JSON, the estimate either answers or throws
// InputError. Any other exception, crash, hang or sanitizer report is a bug. Every JSON text the
// CLI and the server write (json_text) must equal nlohmann's dump() of the same value, also for
// the raw bytes taken as one string (invalid UTF-8 included). The plain-subset reader the CLI and
// the server try first (scenario/plain_json.h) must build exactly nlohmann's tree whenever it
// accepts a text, and accept none that nlohmann refuses. A ScenarioText read from the bytes (the
// CLI's and the server's lines, read by their members where plain) answers as the parsed tree does.
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "gpusizer/error.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/json_input.h"
#include "gpusizer/json/json_text.h"
#include "gpusizer/json/scenario_text.h"
#include "scenario/plain_json.h"

namespace {

void check_text(const nlohmann::json& value) {
  for (int indent : {-1, 2})
    if (gpusizer::json_text(value, indent) !=
        value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace))
      std::abort();
}

// The answer to `text` (or its error) from a ScenarioText and from parse_json_input's tree.
void check_scenario_text(std::string_view text) {
  std::string ours, theirs;
  try {
    const gpusizer::ScenarioText scenario(text, "fuzz");
    gpusizer::append_estimate_json(ours, scenario);
  } catch (const gpusizer::InputError& e) {
    ours = std::string("error: ") + e.what();
  }
  try {
    gpusizer::append_estimate_json(theirs, gpusizer::parse_json_input(text, "fuzz"));
  } catch (const gpusizer::InputError& e) {
    theirs = std::string("error: ") + e.what();
  }
  if (ours != theirs) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  check_text(nlohmann::json(std::string(reinterpret_cast<const char*>(data), size)));
  const nlohmann::json scenario = nlohmann::json::parse(data, data + size, nullptr, false);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const auto plain = gpusizer::parse_plain_json(text))
    if (scenario.is_discarded() || *plain != scenario || plain->dump() != scenario.dump())
      std::abort();
  if (scenario.is_discarded()) return 0;
  check_text(scenario);
  // A "model" string naming a file on this machine would make the estimate read it: the importers
  // have their own fuzz targets, and reading /dev or /proc here would make runs depend on the host.
  if (scenario.is_object() && scenario.contains("model") && scenario["model"].is_string()) {
    const std::string model = scenario["model"].get<std::string>();
    std::error_code ec;
    if (model.find('\0') == std::string::npos && std::filesystem::exists(model, ec)) return 0;
  }
  check_scenario_text(text);
  try {
    const nlohmann::json out = gpusizer::estimate_json(scenario);
    (void)out.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
    check_text(out);
  } catch (const gpusizer::InputError&) {
  }
  return 0;
}
