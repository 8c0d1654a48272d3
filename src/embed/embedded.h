#pragma once
// Files compiled into the binary at build time (cmake/embed.cmake writes the tables).
#include <span>
#include <string_view>

namespace gpusizer::embedded {

/// One embedded file.
struct File {
  std::string_view path;  ///< relative to the embedded folder, e.g. "gpus.csv", "assets/app.js"
  std::string_view data;
};

/// The data/ files (the built-in catalog, profiles and validation cases), in CMakeLists.txt order.
std::span<const File> data_files();

/// The built web page (web/dist), sorted by path; empty when web/dist was not built.
std::span<const File> web_files();

/// The server's own files (src/server: openapi.json, the API's description).
std::span<const File> server_files();

/// The data file at `name`, a path under data/ such as "validation/memory_cases.jsonl"; empty
/// when there is none.
std::string_view find(std::string_view name);

}  // namespace gpusizer::embedded
