// The OpenAPI 3 description of the HTTP API, served at /api/v1/openapi.json. The document is
// src/server/openapi.json, compiled in (embedded::server_files()); a test checks that it lists
// exactly the server's routes and that every documented route answers as described.
#include <stdexcept>

#include "embed/embedded.h"
#include "server/server.h"

namespace gpusizer::server {

const nlohmann::json& openapi_document() {
  static const nlohmann::json doc = [] {
    for (const auto& file : embedded::server_files())
      if (file.path == "openapi.json") return nlohmann::json::parse(file.data);
    throw std::logic_error("openapi.json was not compiled in (cmake/server.cmake)");
  }();
  return doc;
}

}  // namespace gpusizer::server
