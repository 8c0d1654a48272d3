// The HTTP server: routes, request checks and error mapping. Thin: parse, check, call the JSON
// facade (gpusizer/api.h), answer.
#include "gpusizer/server.h"

#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>

#include "embed/embedded.h"
#include "gpusizer/api.h"
#include "gpusizer/error.h"
#include "gpusizer/json_text.h"
#include "gpusizer/model_store.h"
#include "server/server.h"

// The advisor provides recommend_json; until it is linked in, this weak reference stays null and
// POST /api/v1/recommend answers 501 not_implemented.
namespace gpusizer {
nlohmann::json recommend_json(const nlohmann::json& request, const Catalog& catalog)
    __attribute__((weak));
}  // namespace gpusizer

namespace gpusizer::server {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string dump_json(const json& value) {
  // Replace invalid UTF-8 (user strings echoed in messages) instead of throwing.
  return json_text(value);
}

void send_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(dump_json(body), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& code,
                const std::string& message) {
  send_json(res, status, error_json(code, message));
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool is_loopback_host(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]" ||
         host.rfind("127.", 0) == 0;
}

/// The host name of a Host header, without the port: "localhost:8080" -> "localhost".
std::string host_name(const std::string& header) {
  if (!header.empty() && header[0] == '[') {
    auto close = header.find(']');
    return close == std::string::npos ? header : header.substr(0, close + 1);
  }
  return lower(header.substr(0, header.find(':')));
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
<code>GET /api/v1/models</code>; its description is at
<a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>
</body></html>
)";

}  // namespace

const std::vector<Route>& routes() {
  static const std::vector<Route> all = {
      {"POST", "/api/v1/estimate"}, {"POST", "/api/v1/recommend"},   {"GET", "/api/v1/gpus"},
      {"GET", "/api/v1/models"},    {"GET", "/api/v1/openapi.json"}, {"GET", "/"},
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
  const std::string name = lower(model);
  return ends_with(name, ".json") || ends_with(name, ".gguf") || ends_with(name, ".safetensors");
}

void check_model_path(json& request, const std::string& allow_dir, const Catalog& catalog) {
  if (!request.is_object()) return;
  auto it = request.find("model");
  if (it == request.end() || !it->is_string()) return;
  const std::string name = it->get<std::string>();
  if (name.empty() || name.size() > 4096 || name.find('\0') != std::string::npos) return;

  std::error_code ec;
  const bool exists_here = fs::exists(fs::path(name), ec);
  if (!exists_here) {
    try {
      catalog.model(name);
      return;  // a catalog id or Hugging Face id ("meta-llama/Llama-2-7b-hf")
    } catch (const InputError&) {
    }
    if (!looks_like_path(name)) return;  // an unknown name: the estimator says "did you mean"
    // A model in a local store the server was allowed to read (--model-stores): the estimator
    // finds it there.
    if (find_local_model(name, model_store_access())) return;
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
  *it = real.string();
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

std::optional<std::string> HttpRequest::header(std::string_view name) const {
  const std::string wanted = lower(name);
  for (const auto& [key, value] : headers)
    if (lower(key) == wanted) return value;
  return std::nullopt;
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

void set_error(HttpAnswer& answer, int status, const std::string& code,
               const std::string& message) {
  set_json(answer, status, error_json(code, message));
}

// The methods httplib routes; any other method gets its 400 before a handler runs.
bool routable_method(const std::string& method) {
  for (const char* m : {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"})
    if (method == m) return true;
  return false;
}

}  // namespace

RequestHandler::RequestHandler(ServerOptions options, const Catalog& catalog)
    : options_(std::move(options)), catalog_(catalog) {}

bool RequestHandler::pre_route(const HttpRequest& req, HttpAnswer& answer) const {
  for (const auto& header : kSecurityHeaders) answer.headers.emplace_back(header[0], header[1]);
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
  // A server on loopback answers only requests addressed to loopback: a web page elsewhere
  // cannot reach it through DNS rebinding.
  if (is_loopback_host(options_.host)) {
    if (auto host = req.header("Host"); host && !is_loopback_host(host_name(*host))) {
      set_error(answer, 403, "bad_host", "this server answers requests for localhost only");
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

json RequestHandler::parse_request(const HttpRequest& req) const {
  if (req.body.size() > options_.max_body_bytes)
    throw InputError("", "request body too large", "body_too_large");
  if (json_too_deep(req.body, options_.max_json_depth))
    throw InputError(
        "", "JSON nested deeper than " + std::to_string(options_.max_json_depth) + " levels",
        "too_deep");
  json request = json::parse(req.body);  // parse_error -> 400 bad_json
  if (!request.is_object()) throw InputError("", "the request must be a JSON object", "bad_input");
  check_model_path(request, options_.allow_paths_dir, catalog_);
  return request;
}

void RequestHandler::dispatch(const HttpRequest& req, HttpAnswer& answer) {
  const std::string& method = req.method;
  const std::string& path = req.path;
  const bool get = method == "GET" || method == "HEAD";
  if (method == "POST" && path == "/api/v1/estimate") {
    const json request = parse_request(req);
    set_json(answer, 200, estimate_json(request, catalog_));
    return;
  }
  if (method == "POST" && path == "/api/v1/recommend") {
    const json request = parse_request(req);
    if (&recommend_json == nullptr) {  // NOLINT: weak symbol, see the top of this file
      set_error(answer, 501, "not_implemented", "the advisor is not available in this build");
      return;
    }
    set_json(answer, 200, recommend_json(request, catalog_));
    return;
  }
  // The POST routes answer other methods with 405 rather than a bare 404.
  if ((get || method == "PUT" || method == "DELETE") &&
      (path == "/api/v1/estimate" || path == "/api/v1/recommend")) {
    answer.headers.emplace_back("Allow", "POST");
    set_error(answer, 405, "method_not_allowed", "use POST with a JSON body");
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
  // The page and its assets, from the files compiled in (httplib's route is the regex "/(.*)",
  // whose '.' matches no line break).
  if (get && !path.empty() && path[0] == '/' && path.find_first_of("\r\n") == std::string::npos) {
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
    set_error(answer, 404, "not_found", "no such page: /" + file);
    return;
  }
  // No route: httplib answers 404 (400 for a method it does not know), with the error object.
  answer.status = routable_method(method) ? 404 : 400;
  answer.body = status_error_body(answer.status);
  answer.content_type = "application/json";
}

void RequestHandler::route(const HttpRequest& req, HttpAnswer& answer) {
  try {
    dispatch(req, answer);
  } catch (const InputError& e) {
    set_error(answer, 400, e.code(), e.what());
  } catch (const json::parse_error& e) {
    set_error(answer, 400, "bad_json", e.what());
  } catch (const json::exception& e) {
    // Wrong JSON types in the request surface as nlohmann type/range errors.
    set_error(answer, 400, "bad_input", e.what());
  } catch (const std::bad_alloc&) {
    set_error(answer, 500, "internal", "out of memory");
  } catch (const std::exception& e) {
    set_error(answer, 500, "internal", e.what());
  } catch (...) {
    set_error(answer, 500, "internal", "unknown error");
  }
}

HttpAnswer RequestHandler::handle(const HttpRequest& req) {
  HttpAnswer answer;
  if (!pre_route(req, answer)) route(req, answer);
  return answer;
}

}  // namespace gpusizer::server

namespace gpusizer {

using nlohmann::json;
using server::send_error;

struct HttpServer::Impl {
  ServerOptions options;
  server::RequestHandler handler;
  httplib::Server http;
  std::thread thread;
  int port = -1;
  bool bound = false;
  socket_t listen_socket = -1;

  Impl(ServerOptions opts, const Catalog& cat) : options(opts), handler(std::move(opts), cat) {}

  static server::HttpRequest to_request(const httplib::Request& req) {
    server::HttpRequest out{req.method, req.path, {}, req.body};
    out.headers.assign(req.headers.begin(), req.headers.end());
    return out;
  }

  static void apply(const server::HttpAnswer& answer, httplib::Response& res) {
    res.status = answer.status;
    for (const auto& [key, value] : answer.headers) res.set_header(key, value);
    if (!answer.content_type.empty()) res.set_content(answer.body, answer.content_type);
  }

  void add_routes() {
    // Every route goes to the handler, which holds the route table; these registrations only
    // decide which requests httplib passes on (and read the body of those that have one).
    auto to_handler = [this](const httplib::Request& req, httplib::Response& res) {
      server::HttpAnswer answer;
      handler.route(to_request(req), answer);
      apply(answer, res);
    };
    http.Post("/api/v1/estimate", to_handler);
    http.Post("/api/v1/recommend", to_handler);
    for (const char* path : {"/api/v1/estimate", "/api/v1/recommend"}) {
      http.Put(path, to_handler);
      http.Delete(path, to_handler);
    }
    http.Get(R"(/(.*))", to_handler);
  }

  void configure() {
    const size_t threads = static_cast<size_t>(std::max(1, options.threads));
    http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    http.set_payload_max_length(options.max_body_bytes);
    http.set_read_timeout(options.read_timeout_s, 0);
    http.set_write_timeout(options.write_timeout_s, 0);
    http.set_keep_alive_timeout(2);
    http.set_keep_alive_max_count(1000);
    http.set_tcp_nodelay(true);  // headers and body go out in separate writes
    // httplib listens with a backlog of 5; a burst of new connections then waits 1 s for a SYN
    // retry. Remember the socket so that bind() can listen again with the system's backlog.
    http.set_socket_options([this](socket_t sock) {
      httplib::default_socket_options(sock);
      listen_socket = sock;
    });

    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      server::HttpAnswer answer;
      if (handler.pre_route(to_request(req), answer)) {
        apply(answer, res);
        return httplib::Server::HandlerResponse::Handled;
      }
      // Only the headers: httplib keeps the status unset so that an unrouted request gets 404.
      for (const auto& [key, value] : answer.headers) res.set_header(key, value);
      return httplib::Server::HandlerResponse::Unhandled;
    });
    // Statuses raised by httplib itself (404, 413, 400 on malformed HTTP) get the error object.
    http.set_error_handler(
        httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
          if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
          res.set_content(server::status_error_body(res.status), "application/json");
          return httplib::Server::HandlerResponse::Handled;
        }));
    http.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
          send_error(res, 500, "internal", "internal error");
        });
    if (options.log_requests) {
      http.set_logger([](const httplib::Request& req, const httplib::Response& res) {
        std::fprintf(stderr, "%s %s %d %zu\n", req.method.c_str(), req.path.c_str(), res.status,
                     res.body.size());
      });
    }
    add_routes();
  }
};

HttpServer::HttpServer(ServerOptions options)
    : HttpServer(std::move(options), Catalog::builtin()) {}

HttpServer::HttpServer(ServerOptions options, const Catalog& catalog)
    : impl_(std::make_unique<Impl>(std::move(options), catalog)) {
  impl_->configure();
}

HttpServer::~HttpServer() {
  stop();
}

int HttpServer::bind() {
  if (impl_->bound) return impl_->port;
  if (impl_->options.port == 0) {
    impl_->port = impl_->http.bind_to_any_port(impl_->options.host);
  } else {
    impl_->port = impl_->http.bind_to_port(impl_->options.host, impl_->options.port)
                      ? impl_->options.port
                      : -1;
  }
  impl_->bound = impl_->port > 0;
  if (impl_->bound && impl_->listen_socket >= 0) ::listen(impl_->listen_socket, SOMAXCONN);
  return impl_->port;
}

bool HttpServer::start() {
  if (!impl_->bound && bind() < 0) return false;
  auto ended = std::make_shared<std::atomic<bool>>(false);
  impl_->thread = std::thread([this, ended] {
    impl_->http.listen_after_bind();
    *ended = true;
  });
  // Wait until the accept loop runs, so that stop() right after start() is not lost.
  while (!impl_->http.is_running() && !*ended)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return !*ended;
}

bool HttpServer::listen() {
  if (!impl_->bound && bind() < 0) return false;
  return impl_->http.listen_after_bind();
}

void HttpServer::stop() {
  if (impl_->bound) impl_->http.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

int HttpServer::port() const {
  return impl_->port;
}

int run_server(const ServerOptions& options) {
  // Block SIGINT/SIGTERM in every thread; one thread waits for them and stops the server.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // Model names may be looked up only in the stores the operator named (docs/model-stores.md).
  set_model_store_access({parse_store_list(options.model_stores, "--model-stores"), process_env()});
  std::optional<Catalog> own_catalog;
  if (!options.data_dir.empty()) own_catalog = Catalog::load(options.data_dir);
  HttpServer server(options, own_catalog ? *own_catalog : Catalog::builtin());
  if (server.bind() < 0) {
    std::cerr << "gpusizer serve: cannot listen on " << options.host << ":" << options.port << "\n";
    return 1;
  }
  const bool v6 = options.host.find(':') != std::string::npos;
  std::cout << "gpusizer serving on http://" << (v6 ? "[" : "") << options.host << (v6 ? "]" : "")
            << ":" << server.port() << "/ (Ctrl-C to stop)" << std::endl;

  std::atomic<bool> done{false};
  std::thread waiter([&] {
    timespec tick{0, 200 * 1000 * 1000};
    while (!done) {
      if (sigtimedwait(&signals, nullptr, &tick) > 0) {
        server.stop();
        return;
      }
    }
  });
  const bool ok = server.listen();
  done = true;
  waiter.join();
  return ok ? 0 : 1;
}

}  // namespace gpusizer
