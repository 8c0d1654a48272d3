#pragma once
// The HTTP face: the contract's JSON API (docs/contract.md, "HTTP API") and the web page, served
// by libmicrohttpd's event loop (slow or idle clients hold a socket, never a worker). Safe by
// default: loopback only, exact Host rule, bounded bodies and nesting, deadlines for headers,
// bodies and idle connections, no file paths from clients unless a directory is allowed, no CORS
// unless asked. docs/security.md lists what it exposes and the limits.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace gpusizer {

class Catalog;

struct ServerOptions {
  std::string host = "127.0.0.1";  ///< interface to bind; loopback unless the user asks
  int port = 8080;                 ///< 0: any free port (see HttpServer::port())
  /// Directory whose files a request may name as "model"; empty: no paths at all.
  std::string allow_paths_dir;
  /// Local model stores a request's model name may be looked up in ("hf,modelscope,ollama");
  /// empty: none. run_server gives it to its catalog (Catalog::allow_model_stores).
  std::string model_stores;
  bool cors = false;                ///< send Access-Control-Allow-Origin: *
  size_t max_body_bytes = 1 << 20;  ///< larger request bodies get HTTP 413
  int max_json_depth = 64;          ///< deeper JSON gets HTTP 400 too_deep
  /// Event-loop threads. Each serves many connections; a slow or idle client costs a socket,
  /// not a thread, so this bounds only how many answers are computed at once.
  int threads = std::max(4, static_cast<int>(std::thread::hardware_concurrency()));
  int header_timeout_s = 10;   ///< request line and headers, from the connection (or last answer)
  int read_timeout_s = 10;     ///< the whole body, once the headers are in
  int write_timeout_s = 10;    ///< the whole answer, once computed
  int idle_timeout_s = 5;      ///< silence on a connection (keep-alive idle limit)
  int max_connections = 1024;  ///< open connections; more are refused at accept
  /// Host names (or name:port) answered besides the loopback names; see docs/security.md.
  std::vector<std::string> allow_hosts;
  bool log_requests = false;        ///< one line per request on stderr
  std::string log_format = "text";  ///< "text" or "json" (one JSON object a line)
  /// Data files to use instead of the built-in catalog (run_server only); empty: built-in.
  std::string data_dir;
};

/// A running server that can be started and stopped in process (tests, embedding).
class HttpServer {
 public:
  /// Builds the routes; `catalog` must outlive the server.
  explicit HttpServer(ServerOptions options);
  HttpServer(ServerOptions options, const Catalog& catalog);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Binds the socket; returns the bound port (the chosen one when options.port is 0), or -1.
  int bind();
  /// Serves on a background thread until stop(); binds first when bind() was not called.
  /// Returns false when the socket could not be bound.
  bool start();
  /// Serves on the calling thread until stop() (from another thread or a signal).
  bool listen();
  /// Stops serving and joins the background thread. Safe to call twice.
  void stop();
  /// The bound port, or -1 before bind().
  int port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Runs the server in the foreground until SIGINT/SIGTERM; prints the address it serves on.
/// Returns a process exit code (0 after a clean stop, 1 when the address cannot be bound).
int run_server(const ServerOptions& options);

}  // namespace gpusizer
