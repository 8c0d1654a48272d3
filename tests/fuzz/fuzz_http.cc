// Fuzzes the server's request handling without sockets: bytes -> (method, path, headers, body) ->
// RequestHandler::handle, the function the HTTP server calls for every request. Input layout:
//   METHOD\nPATH\nName: value\n...\n\nBODY
// Every answer must be a status below 500 and, when it says JSON, a JSON body; a 500 means an
// exception other than bad input escaped the estimate.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gpusizer/catalog.h"
#include "http_input.h"
#include "server/server.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using gpusizer::server::HttpRequest;
  static gpusizer::server::RequestHandler plain({}, gpusizer::Catalog::builtin());
  static gpusizer::server::RequestHandler with_cors(
      [] {
        gpusizer::ServerOptions o;
        o.cors = true;
        o.max_body_bytes = 4096;
        o.max_json_depth = 8;
        return o;
      }(),
      gpusizer::Catalog::builtin());

  const HttpRequest req = gpusizer::fuzz::http_request_from_bytes(
      std::string_view(reinterpret_cast<const char*>(data), size));

  auto& handler = size % 2 ? with_cors : plain;
  const auto answer = handler.handle(req);
  if (answer.status < 100 || answer.status >= 500) {
    std::fprintf(stderr, "status %d for %s %s: %s\n", answer.status, req.method.c_str(),
                 req.path.c_str(), answer.body.c_str());
    std::abort();
  }
  if (answer.content_type == "application/json" &&
      nlohmann::json::parse(answer.body, nullptr, false).is_discarded()) {
    std::fprintf(stderr, "answer is not JSON: %s\n", answer.body.c_str());
    std::abort();
  }
  return 0;
}
