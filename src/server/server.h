#pragma once
// Internals of the HTTP server that tests reach directly: the route table, the request checks and
// the OpenAPI document. The public face is include/gpusizer/server.h.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusizer/catalog.h"

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

/// The content type for a file name, from its extension.
std::string content_type_for(std::string_view path);

/// One file of the web page compiled into the binary (generated from web/dist at build time).
struct WebAsset {
  std::string_view path;  ///< relative to web/dist, e.g. "index.html", "assets/app.js"
  std::string_view data;
};

/// The embedded web files; empty when web/dist was not built.
const std::vector<WebAsset>& web_assets();

}  // namespace gpusizer::server
