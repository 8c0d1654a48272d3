// Fuzzes the log reader: vLLM/SGLang/llama.cpp start-up logs, llama-bench output (markdown, JSON,
// CSV) and figures files. Each input either gives runs or is an InputError.
#include "fuzz_common.h"
#include "gpusizer/log_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return gpusizer::fuzz::run(data, size, [](std::string_view b) {
    const gpusizer::LogReading r = gpusizer::read_log(b, "log");
    for (const auto& run : r.runs) (void)run.scenario.dump();
  });
}
