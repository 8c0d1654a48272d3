#pragma once
// Shared body of the fuzz targets: a parse either succeeds, and then its report must render, or
// fails with InputError. Any other exception, crash or sanitizer report is a bug.
#include <cstdint>
#include <string_view>

#include "gpusizer/error.h"
#include "gpusizer/importers.h"
#include "gpusizer/json/importers.h"

namespace gpusizer::fuzz {

template <class Parse>
int run(const uint8_t* data, size_t size, Parse parse) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    parse(bytes);
  } catch (const InputError&) {
  }
  return 0;
}

inline void report(const ImportedModel& im) {
  (void)imported_to_json(im, gpusizer::Catalog::builtin()).dump();
  (void)imported_to_text(im, gpusizer::Catalog::builtin());
}

}  // namespace gpusizer::fuzz
