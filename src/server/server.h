#pragma once
// Internals of the HTTP server that tests reach directly: the route table, the request checks and
// the OpenAPI document. The public face is include/gpusizer/server.h.
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpusizer/catalog.h"
#include "gpusizer/lang.h"
#include "gpusizer/server.h"
#include "server/host_rule.h"
#include "server/metrics.h"

namespace gpusizer::server {

/// One route the server answers; the OpenAPI document must list exactly these.
struct Route {
  std::string method;  ///< "GET" or "POST"
  std::string path;
};

/// Every route of the server, in the order they are registered.
const std::vector<Route>& routes();

/// The OpenAPI 3 document of the API, as served at /api/v1/openapi.json.
const nlohmann::json& openapi_document();

/// True when the JSON text nests objects/arrays deeper than `max_depth` (strings are skipped, so
/// brackets inside them do not count). Linear, no allocation: runs before the parser.
bool json_too_deep(std::string_view text, int max_depth);

/// True when a "model" string names a file rather than a catalog entry: it holds a path
/// separator, starts with '.' or '~', or ends with .json, .gguf or .safetensors.
bool looks_like_path(std::string_view model);

/// Applies the path rule to a request's "model": catalog names pass; paths are refused
/// (InputError code path_not_allowed) unless `allow_dir` is set and the canonical path lies inside
/// it, in which case "model" is rewritten to that canonical path.
void check_model_path(nlohmann::json& request, const std::string& allow_dir,
                      const Catalog& catalog);
/// The same rule for the "model" member's value itself.
void check_model_value(nlohmann::json& model, const std::string& allow_dir, const Catalog& catalog);

/// True when a "model" string has the shape of a Hugging Face id: ORG/NAME, one slash, letters,
/// digits, '-', '_' and '.', not a relative path and no file extension the importers read.
bool looks_like_hf_id(std::string_view name);

/// The content type for a file name, from its extension.
std::string content_type_for(std::string_view path);

/// One HTTP request as the handler sees it (the transport has already split it; the path is
/// decoded and holds no query string).
struct HttpRequest {
  std::string method;
  std::string path;
  std::vector<std::pair<std::string, std::string>> headers;  ///< names compared case-insensitively
  std::string body;
  /// The query string's arguments, decoded, in order (?lang=zh); last and defaulted, so that brace
  /// initialisers of {method, path, headers, body} still hold.
  std::vector<std::pair<std::string, std::string>> query = {};
  /// The first value of header `name` (a view of `headers`), or nullopt.
  std::optional<std::string_view> header(std::string_view name) const;
  /// Every value of header `name`, in order.
  std::vector<std::string_view> header_values(std::string_view name) const;
  /// The first value of query argument `name` (a view of `query`), or nullopt.
  std::optional<std::string_view> query_value(std::string_view name) const;
};

/// The language a request asks for (contract v2, "Language"): `?lang=` first (an unknown value is
/// an InputError naming "lang"), then Accept-Language, else English.
Lang request_language(const HttpRequest& request);

/// The answer to one request: status, body, content type and extra headers.
struct HttpAnswer {
  int status = 200;
  std::string body;
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> headers;
};

/// Everything the server decides about a request, without sockets: the pre-routing checks (security
/// headers, CORS preflight, Host rule), the route table, the JSON checks and the error mapping. The
/// HTTP server calls it for every request; tests and the fuzz target call it directly.
class RequestHandler {
 public:
  /// `catalog` must outlive the handler.
  RequestHandler(ServerOptions options, const Catalog& catalog);

  /// The checks that run before routing, on the request line and headers only (the body is not
  /// read yet): the Host rule first (every method, OPTIONS included), then the CORS preflight.
  /// Adds the headers every answer carries to `answer`; returns true when the request is
  /// finished here (a refused Host, a preflight), with `answer` complete.
  bool pre_route(const HttpRequest& request, HttpAnswer& answer) const;
  /// The route's answer (the pre-routing checks passed). Never throws: every exception becomes an
  /// error object, InputError a 400.
  void route(const HttpRequest& request, HttpAnswer& answer);
  /// pre_route, then route: what the server sends for the request.
  HttpAnswer handle(const HttpRequest& request);

  const ServerOptions& options() const { return options_; }
  /// The port the transport bound (options.port may be 0): a Host port must equal it.
  void set_port(int port) { host_rule_.set_port(port); }
  Metrics& metrics() { return metrics_; }

 private:
  /// The body's media type, size and depth, checked before it is read.
  void check_body(const HttpRequest& request) const;
  nlohmann::json parse_request(const HttpRequest& request) const;
  std::string cached(std::optional<std::string>& slot, nlohmann::json (*make)(const Catalog&));
  void dispatch(const HttpRequest& request, HttpAnswer& answer, Lang lang);

  ServerOptions options_;
  const Catalog& catalog_;
  HostRule host_rule_;
  Metrics metrics_;
  std::mutex cache_mutex_;
  std::optional<std::string> gpus_body_, models_body_;
};

/// The error object the server sends for a status raised outside the routes (the transport's own
/// 400, 404, 408, 413, ...): {"error": {"code": <name of the status>, "message": ...}}.
std::string status_error_body(int status);

}  // namespace gpusizer::server
