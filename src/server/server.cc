// The HTTP server's request handling, without sockets: routes, request checks and error mapping.
// Thin: parse, check, call the JSON facade (gpusizer/json/api.h), answer. The transport is
// http_server.cc.
#include "server/server.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <mutex>
#include <optional>

#include "embed/embedded.h"
#include "gpusizer/error.h"
#include "gpusizer/json/api.h"
#include "gpusizer/json/json_input.h"
#include "gpusizer/json/json_text.h"
#include "gpusizer/json/lang.h"
#include "gpusizer/lang.h"
#include "gpusizer/model_store.h"
#include "gpusizer/names.h"
#include "gpusizer/regular_file.h"

namespace gpusizer::server {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string dump_json(const json& value) {
  // Replace invalid UTF-8 (user strings echoed in messages) instead of throwing.
  return json_text(value);
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Header names compare case-insensitively (RFC 9110 sec. 5.1), in ASCII: the "C" locale's
// tolower, without a lower-case copy of each name per lookup.
bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    const char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) return false;
  }
  return true;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

const char* status_code_name(int status) {
  switch (status) {
    case 400:
      return "bad_request";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 408:
      return "timeout";
    case 413:
      return "body_too_large";
    case 414:
      return "uri_too_long";
    case 415:
      return "unsupported_media_type";
    case 431:
      return "headers_too_large";
    case 501:
      return "not_implemented";
    default:
      return status >= 500 ? "internal" : "bad_request";
  }
}

std::string status_text(int status) {
  switch (status) {
    case 404:
      return "no such route";
    case 405:
      return "method not allowed";
    case 408:
      return "request timed out";
    case 413:
      return "request body too large";
    case 414:
      return "request URI too long";
    case 431:
      return "request headers too large";
    default:
      return "HTTP status " + std::to_string(status);
  }
}

const char* kSecurityHeaders[][2] = {
    {"X-Content-Type-Options", "nosniff"},
    {"Referrer-Policy", "no-referrer"},
    {"X-Frame-Options", "DENY"},
};

const char* kPageCsp =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self'; font-src 'self' data:; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const char* kNoBundlePage = R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gpusizer</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem">
<h1>gpusizer</h1>
<p>The web bundle was not built into this binary. Run <code>scripts/build_web.sh</code> (needs
Node.js and npm) and build again to get the page.</p>
<p>The HTTP API works without it: <code>POST /api/v1/estimate</code>,
<code>POST /api/v1/recommend</code>, <code>GET /api/v1/gpus</code>,
<code>GET /api/v1/models</code>, <code>GET /healthz</code>, <code>GET /metrics</code>; its
description is at
<a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>
</body></html>
)";

}  // namespace

const std::vector<Route>& routes() {
  static const std::vector<Route> all = {
      {"POST", "/api/v1/estimate"},
      {"POST", "/api/v1/recommend"},
      {"GET", "/api/v1/gpus"},
      {"GET", "/api/v1/models"},
      {"GET", "/api/v1/openapi.json"},
      {"GET", "/healthz"},
      {"GET", "/metrics"},
      {"GET", "/"},
  };
  return all;
}

bool json_too_deep(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return true;
    } else if (c == '}' || c == ']') {
      if (depth > 0) --depth;
    }
  }
  return false;
}

bool looks_like_path(std::string_view model) {
  if (model.find('/') != std::string_view::npos || model.find('\\') != std::string_view::npos)
    return true;
  if (!model.empty() && (model[0] == '.' || model[0] == '~')) return true;
  auto ends_with_nocase = [model](std::string_view suffix) {
    return model.size() >= suffix.size() &&
           same_name(model.substr(model.size() - suffix.size()), suffix);
  };
  return ends_with_nocase(".json") || ends_with_nocase(".gguf") || ends_with_nocase(".safetensors");
}

namespace {

// A catalog name, or a re-upload's id the estimator reads as its base model (after any local
// store, parse_scenario).
bool in_catalog(const Catalog& catalog, const std::string& name) {
  try {
    catalog.model(name);
    return true;
  } catch (const InputError&) {
    return catalog.reupload_base(name).has_value();
  }
}

// "ORG/NAME" is a Hugging Face id the catalog lacks, not a path: the server never downloads, so
// say what works instead, with the nearest catalog models.
[[noreturn]] void refuse_hf_id(const std::string& name, const Catalog& catalog) {
  std::vector<std::string> names;
  for (const Model& m : catalog.models()) {
    names.push_back(m.id);
    if (!m.hf_id.empty()) names.push_back(m.hf_id);
  }
  std::string msg = "'" + name +
                    "' is not in the catalog and this server does not download from Hugging "
                    "Face: paste its config.json or give a size such as 24B";
  const auto near = closest_names(name, names);
  for (size_t i = 0; i < near.size(); ++i) msg += (i ? ", " : "; did you mean ") + near[i];
  if (!near.empty()) msg += "?";
  throw InputError("model", msg, "unknown_name");
}

}  // namespace

void check_model_path(json& request, const std::string& allow_dir, const Catalog& catalog) {
  if (!request.is_object()) return;
  auto it = request.find("model");
  if (it != request.end()) check_model_value(*it, allow_dir, catalog);
}

void check_model_value(json& model, const std::string& allow_dir, const Catalog& catalog) {
  if (!model.is_string()) return;
  const std::string name = model.get<std::string>();
  if (name.empty()) return;  // the estimator says "must not be empty"
  // Before any file call: the C library opens a name only up to its first NUL, so
  // "/dir/config.json\0.json" would pass the checks below and open "/dir/config.json". No catalog
  // name holds a control byte, so these are refused whatever the directory rule.
  check_path_text(name, "model");

  // A catalog name that does not look like a path is answered from the catalog without asking
  // the file system: the estimator looks a name up in the catalog before it tries a file
  // (parse_scenario), so a file of that name would never be read, and the stat this skips was a
  // system call on every request (issue 18).
  const bool path_like = looks_like_path(name);
  if (!path_like && in_catalog(catalog, name)) return;  // a catalog id
  std::error_code ec;
  const bool exists_here = fs::exists(fs::path(name), ec);
  if (!exists_here) {
    // A Hugging Face id the catalog knows ("meta-llama/Llama-2-7b-hf").
    if (path_like && in_catalog(catalog, name)) return;
    if (!path_like) return;  // an unknown name: the estimator says "did you mean"
    // A model in a local store the server was allowed to read (--model-stores): the estimator
    // finds it there.
    if (find_local_model(name, catalog.model_stores())) return;
    if (allow_dir.empty() && looks_like_hf_id(name)) refuse_hf_id(name, catalog);
  }
  if (allow_dir.empty())
    throw InputError(
        "model",
        "file paths are not allowed by this server; send a catalog id, "
        "{\"hf_config\": {...}} or {\"params\": N} (or start it with --allow-paths DIR)",
        "path_not_allowed");

  const fs::path base = fs::canonical(fs::path(allow_dir), ec);
  if (ec)
    throw InputError("model", "the server's allowed directory is missing", "path_not_allowed");
  fs::path wanted(name);
  if (wanted.is_relative()) wanted = base / wanted;
  auto inside = [&base](const fs::path& p) {
    return std::mismatch(base.begin(), base.end(), p.begin(), p.end()).first == base.end();
  };
  const std::string refusal = "only files inside the server's allowed directory may be read";
  // Lexical check first (resolving symlinks of the part that exists), so that the answer does not
  // reveal whether a file outside the directory exists.
  const fs::path weak = fs::weakly_canonical(wanted, ec);
  if (ec || !inside(weak)) throw InputError("model", refusal, "path_not_allowed");
  const fs::path real = fs::canonical(wanted, ec);
  if (ec) throw InputError("model", "no such file in the allowed directory", "bad_file");
  if (!inside(real)) throw InputError("model", refusal, "path_not_allowed");
  model = real.string();
}

bool looks_like_hf_id(std::string_view name) {
  const size_t slash = name.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 >= name.size() ||
      name.find('/', slash + 1) != std::string_view::npos)
    return false;
  if (name[0] == '.' || name[0] == '~' || name.find("..") != std::string_view::npos) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '/' && c != '-' && c != '_' &&
        c != '.')
      return false;
  const std::string lowered = lower(name);
  return !ends_with(lowered, ".json") && !ends_with(lowered, ".gguf") &&
         !ends_with(lowered, ".safetensors");
}

std::string content_type_for(std::string_view path) {
  const std::string name = lower(path);
  if (ends_with(name, ".html")) return "text/html; charset=utf-8";
  if (ends_with(name, ".js") || ends_with(name, ".mjs")) return "text/javascript; charset=utf-8";
  if (ends_with(name, ".css")) return "text/css; charset=utf-8";
  if (ends_with(name, ".json")) return "application/json";
  if (ends_with(name, ".svg")) return "image/svg+xml";
  if (ends_with(name, ".png")) return "image/png";
  if (ends_with(name, ".ico")) return "image/x-icon";
  if (ends_with(name, ".woff2")) return "font/woff2";
  if (ends_with(name, ".txt")) return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

std::optional<std::string_view> HttpRequest::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (same_name(key, name)) return value;
  return std::nullopt;
}

std::vector<std::string_view> HttpRequest::header_values(std::string_view name) const {
  std::vector<std::string_view> out;
  for (const auto& [key, value] : headers)
    if (same_name(key, name)) out.emplace_back(value);
  return out;
}

std::optional<std::string_view> HttpRequest::query_value(std::string_view name) const {
  for (const auto& [key, value] : query)
    if (key == name) return value;
  return std::nullopt;
}

Lang request_language(const HttpRequest& request) {
  if (const auto lang = request.query_value("lang")) return parse_lang(*lang, "lang");
  if (const auto header = request.header("Accept-Language"))
    return lang_from_accept_language(*header);
  return Lang::kEn;
}

std::string status_error_body(int status) {
  return dump_json(error_json(status_code_name(status), status_text(status)));
}

namespace {

void set_json(HttpAnswer& answer, int status, const json& body) {
  answer.status = status;
  answer.body = dump_json(body);
  answer.content_type = "application/json";
}

void set_error(HttpAnswer& answer, int status, const std::string& code, const std::string& message,
               const std::string& field = "", Lang lang = Lang::kEn) {
  set_json(answer, status, error_json(code, message, field, lang));
}

// Methods the server knows; any other gets 400 (as it did before, under cpp-httplib).
bool routable_method(const std::string& method) {
  for (const char* m : {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"})
    if (method == m) return true;
  return false;
}

// The page and its assets, from the files compiled in; "/" is index.html, or a page saying how to
// build the bundle when none was compiled in.
void serve_page(const std::string& path, HttpAnswer& answer, Lang lang) {
  std::string file = path.substr(1);
  if (file.empty()) file = "index.html";
  for (const auto& asset : embedded::web_files()) {
    if (asset.path == file) {
      answer.body = std::string(asset.data);
      answer.content_type = content_type_for(file);
      answer.headers.emplace_back("Cache-Control",
                                  file == "index.html" ? "no-cache" : "max-age=3600");
      if (file == "index.html") answer.headers.emplace_back("Content-Security-Policy", kPageCsp);
      return;
    }
  }
  if (file == "index.html") {
    answer.body = kNoBundlePage;
    answer.content_type = "text/html; charset=utf-8";
    answer.headers.emplace_back("Content-Security-Policy", kPageCsp);
    return;
  }
  set_error(answer, 404, "not_found", "no such page: /" + file, "", lang);
}

}  // namespace

RequestHandler::RequestHandler(ServerOptions options, const Catalog& catalog)
    : options_(std::move(options)),
      catalog_(catalog),
      host_rule_(options_.host, options_.allow_hosts) {
  host_rule_.set_port(options_.port);
}

bool RequestHandler::pre_route(const HttpRequest& req, HttpAnswer& answer) const {
  for (const auto& header : kSecurityHeaders) answer.headers.emplace_back(header[0], header[1]);
  // The Host rule runs first, for every method: a page elsewhere whose name resolves to this
  // machine (DNS rebinding) gets nothing, not even a CORS preflight.
  int status = 0;
  if (const std::string why = host_rule_.check(req.header_values("Host"), status); !why.empty()) {
    set_error(answer, status, "bad_host", why);
    return true;
  }
  if (options_.cors) {
    answer.headers.emplace_back("Access-Control-Allow-Origin", "*");
    if (req.method == "OPTIONS") {
      answer.headers.emplace_back("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
      answer.headers.emplace_back("Access-Control-Allow-Headers", "Content-Type");
      answer.headers.emplace_back("Access-Control-Max-Age", "600");
      answer.status = 204;
      return true;
    }
  }
  return false;
}

std::string RequestHandler::cached(std::optional<std::string>& slot, json (*make)(const Catalog&)) {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (!slot) slot = dump_json(make(catalog_));
  return *slot;
}

namespace {

// A JSON body needs a JSON media type (RFC 8259 sec. 11: application/json; "+json" suffixes per
// RFC 6839): a text/plain POST, which a page elsewhere can send without a preflight, is refused.
bool json_content_type(const std::optional<std::string_view>& value) {
  if (!value) return false;
  std::string_view type = value->substr(0, value->find(';'));
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
  while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
  if (same_name(type, "application/json")) return true;
  return type.size() > 17 && same_name(type.substr(0, 12), "application/") &&
         same_name(type.substr(type.size() - 5), "+json");
}

}  // namespace

void RequestHandler::check_body(const HttpRequest& req) const {
  if (!json_content_type(req.header("Content-Type")))
    throw InputError("", "send the body as Content-Type: application/json",
                     "unsupported_media_type");
  if (req.body.size() > options_.max_body_bytes)
    throw InputError("", "request body too large", "body_too_large");
  if (json_too_deep(req.body, options_.max_json_depth))
    throw InputError(
        "", "JSON nested deeper than " + std::to_string(options_.max_json_depth) + " levels",
        "too_deep");
}

namespace {

void check_is_object(bool object) {
  if (!object) throw InputError("", "the request must be a JSON object", "bad_input");
}

}  // namespace

json RequestHandler::parse_request(const HttpRequest& req) const {
  check_body(req);
  json request = parse_json_input(req.body, "");  // malformed -> 400 bad_json
  check_is_object(request.is_object());
  check_model_path(request, options_.allow_paths_dir, catalog_);
  return request;
}

void RequestHandler::dispatch(const HttpRequest& req, HttpAnswer& answer, Lang lang) {
  const std::string& method = req.method;
  const std::string& path = req.path;
  const bool get = method == "GET" || method == "HEAD";
  if (method == "POST" && path == "/api/v1/estimate") {
    // parse_request's checks on the body read by its members where it is a plain scenario object
    // (ScenarioText: no tree for the object, issue 18), the same errors.
    check_body(req);
    ScenarioText request(req.body, "");  // malformed -> 400 bad_json
    check_is_object(request.is_object());
    if (json* model = request.member("model"))
      check_model_value(*model, options_.allow_paths_dir, catalog_);
    if (lang == Lang::kEn) {  // English needs no tree: the same bytes, streamed (issue 18)
      answer.status = 200;
      answer.body.clear();
      append_estimate_json(answer.body, request, catalog_);
      answer.content_type = "application/json";
      return;
    }
    json result = estimate_json(request.tree(), catalog_);
    localize(result, lang);
    set_json(answer, 200, result);
    return;
  }
  if (method == "POST" && path == "/api/v1/recommend") {
    const json request = parse_request(req);
    json result = recommend_json(request, catalog_);
    localize(result, lang);
    set_json(answer, 200, result);
    return;
  }
  // The POST routes answer other methods with 405 rather than a bare 404.
  if ((get || method == "PUT" || method == "DELETE") &&
      (path == "/api/v1/estimate" || path == "/api/v1/recommend")) {
    answer.headers.emplace_back("Allow", "POST");
    set_error(answer, 405, "method_not_allowed", "use POST with a JSON body", "", lang);
    return;
  }
  if (get && path == "/api/v1/gpus") {
    answer.body = cached(gpus_body_, [](const Catalog& c) { return gpus_json(c); });
    answer.content_type = "application/json";
    return;
  }
  if (get && path == "/api/v1/models") {
    answer.body = cached(models_body_, [](const Catalog& c) { return models_json(c); });
    answer.content_type = "application/json";
    return;
  }
  if (get && path == "/api/v1/openapi.json") {
    set_json(answer, 200, openapi_document());
    return;
  }
  if (get && path == "/healthz") {
    set_json(answer, 200, {{"status", "ok"}});
    answer.headers.emplace_back("Cache-Control", "no-store");
    return;
  }
  if (get && path == "/metrics") {
    answer.body = metrics_.text();
    answer.content_type = "text/plain; version=0.0.4; charset=utf-8";
    answer.headers.emplace_back("Cache-Control", "no-store");
    return;
  }
  if (get && !path.empty() && path[0] == '/' && path.find_first_of("\r\n") == std::string::npos) {
    serve_page(path, answer, lang);
    return;
  }
  // No route: 404 (400 for a method the server does not know), with the error object.
  answer.status = routable_method(method) ? 404 : 400;
  answer.body = status_error_body(answer.status);
  answer.content_type = "application/json";
}

void RequestHandler::route(const HttpRequest& req, HttpAnswer& answer) {
  Lang lang = Lang::kEn;
  try {
    lang = request_language(req);
    dispatch(req, answer, lang);
  } catch (const InputError& e) {
    set_error(answer, e.code() == "unsupported_media_type" ? 415 : 400, e.code(), e.what(),
              e.field(), lang);
  } catch (const json::parse_error& e) {
    set_error(answer, 400, "bad_json", e.what(), "", lang);
  } catch (const json::exception& e) {
    // Wrong JSON types in the request surface as nlohmann type/range errors.
    set_error(answer, 400, "bad_input", e.what(), "", lang);
  } catch (const std::bad_alloc&) {
    set_error(answer, 500, "internal", "out of memory", "", lang);
  } catch (const std::exception& e) {
    set_error(answer, 500, "internal", e.what(), "", lang);
  } catch (...) {
    set_error(answer, 500, "internal", "unknown error", "", lang);
  }
}

HttpAnswer RequestHandler::handle(const HttpRequest& req) {
  HttpAnswer answer;
  if (!pre_route(req, answer)) route(req, answer);
  return answer;
}

}  // namespace gpusizer::server
