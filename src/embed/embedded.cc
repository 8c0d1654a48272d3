// Look-ups in the embedded data files; the tables themselves are generated (cmake/embed.cmake).
#include "embed/embedded.h"

namespace gpusizer::embedded {

std::string_view find(std::string_view name) {
  for (const File& file : data_files())
    if (file.path == name) return file.data;
  return {};
}

}  // namespace gpusizer::embedded
