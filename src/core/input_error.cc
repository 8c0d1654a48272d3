#include "gpusizer/error.h"

namespace gpusizer {

std::string InputError::whole_text(std::string text) {
  for (size_t at = text.find('\0'); at != std::string::npos; at = text.find('\0', at + 2))
    text.replace(at, 1, "\\0");
  return text;
}

}  // namespace gpusizer
