#pragma once
// The HTTP face: the contract's JSON API (docs/contract.md, "HTTP API") and the web page, served
// by cpp-httplib. Safe by default: loopback only, bounded bodies and nesting, timeouts, no file
// paths from clients unless a directory is allowed, no CORS unless asked.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <thread>

namespace gpusizer {

class Catalog;

struct ServerOptions {
  std::string host = "127.0.0.1";  ///< interface to bind; loopback unless the user asks
  int port = 8080;                 ///< 0: any free port (see HttpServer::port())
  /// Directory whose files a request may name as "model"; empty: no paths at all.
  std::string allow_paths_dir;
  /// Local model stores a request's model name may be looked up in ("hf,modelscope,ollama");
  /// empty: none. run_server applies it to the process (set_model_store_access).
  std::string model_stores;
  bool cors = false;                ///< send Access-Control-Allow-Origin: *
  size_t max_body_bytes = 1 << 20;  ///< larger request bodies get HTTP 413
  int max_json_depth = 64;          ///< deeper JSON gets HTTP 400 too_deep
  /// Worker threads: sized to the machine, but at least 8, because each open keep-alive
  /// connection (a browser keeps up to 6) holds a worker while it waits for its next request.
  int threads = std::max(8, 2 * static_cast<int>(std::thread::hardware_concurrency()));
  int read_timeout_s = 5;
  int write_timeout_s = 5;
  bool log_requests = false;  ///< one line per request on stderr
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
