// The HTTP transport: libmicrohttpd's epoll event loop on a pool of threads, in front of the
// socket-free RequestHandler (server.cc). A connection costs a socket and a small buffer while it
// sends its request, so slow or idle clients cannot hold the threads that answer good requests.
//
// Deadlines. libmicrohttpd closes a connection that is silent for idle_timeout_s
// (MHD_OPTION_CONNECTION_TIMEOUT), but a client that sends one byte a second is never silent. So
// every connection is registered here (MHD_OPTION_NOTIFY_CONNECTION) with the deadline of the
// phase it is in: headers (header_timeout_s from the connection's start or its last answer), body
// (read_timeout_s once the headers are in), answer (write_timeout_s once computed). A reaper
// thread shuts down the socket of a connection past its deadline; libmicrohttpd then sees the
// end of the stream and closes it. Computing an answer has no deadline (it is bounded by the
// request limits).
#include <arpa/inet.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>

#include "gpusizer/catalog.h"
#include "gpusizer/error.h"
#include "gpusizer/json/json_text.h"
#include "gpusizer/model_store.h"
#include "gpusizer/regular_file.h"
#include "gpusizer/server.h"
#include "server/server.h"

namespace gpusizer {
namespace {

using Clock = std::chrono::steady_clock;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

int64_t seconds_ns(int s) {
  return static_cast<int64_t>(s) * 1'000'000'000;
}

/// One request on a connection, from its headers to its answer.
struct Request {
  server::HttpRequest request;
  server::HttpAnswer answer;
  bool answered = false;    ///< the answer is known (refused early, or too large)
  bool over_limit = false;  ///< the body passed max_body_bytes
  bool discard = false;     ///< declared over the limit: read and drop the body, then 413
  bool owned = false;       ///< allocated for this request alone (no Connection to hold it)
  int64_t start_ns = 0;
  std::string route;

  /// Ready for the next request on the same connection. The strings keep their capacity, so a
  /// keep-alive connection's later requests allocate little (issue 18). The headers and query
  /// arguments are overwritten in place by the transport, not cleared here.
  void reset() {
    request.body.clear();
    answer.body.clear();
    answer.status = 200;
    answer.content_type.clear();
    answer.headers.clear();
    answered = over_limit = discard = false;
    start_ns = 0;
  }

  /// Once answered: what grew past a usual request's size (a large answer or body, many
  /// headers) is let go rather than held by a connection that may stay idle for long.
  void trim() {
    constexpr size_t kKeepBytes = 64 * 1024;
    constexpr size_t kKeepPairs = 64;
    for (std::string* text : {&request.body, &answer.body})
      if (text->capacity() > kKeepBytes) std::string().swap(*text);
    for (auto* pairs : {&request.headers, &request.query})
      if (pairs->size() > kKeepPairs)
        std::vector<std::pair<std::string, std::string>>().swap(*pairs);
  }
};

/// One open connection, between libmicrohttpd's STARTED and CLOSED notifications. It holds the
/// request being answered: libmicrohttpd answers a connection's requests one after another
/// (the NOTIFY_COMPLETED of one comes before the first call for the next), so one Request is
/// reused for each of them.
struct Connection {
  int fd = -1;
  std::atomic<int64_t> deadline_ns{0};  ///< 0: none (an answer is being computed)
  Request request;
};

/// Bodies declared over the limit but under this are read and dropped before the 413.
constexpr unsigned long long kDiscardBytes = 64ull << 20;

void set_status_error(server::HttpAnswer& answer, int status) {
  answer.status = status;
  answer.body = server::status_error_body(status);
  answer.content_type = "application/json";
}

std::string json_escape(std::string_view text) {
  return json_text(nlohmann::json(std::string(text)));
}

}  // namespace

struct HttpServer::Impl {
  ServerOptions options;
  server::RequestHandler handler;
  MHD_Daemon* daemon = nullptr;
  int listen_fd = -1;
  int port = -1;

  std::mutex connections_mutex;
  std::set<Connection*> connections;

  std::mutex stop_mutex;
  std::condition_variable stop_cv;
  bool stopping = false;
  bool running = false;
  std::thread reaper;

  std::mutex log_mutex;

  Impl(ServerOptions opts, const Catalog& cat) : options(opts), handler(std::move(opts), cat) {}

  ~Impl() {
    if (listen_fd >= 0 && !daemon) ::close(listen_fd);
  }

  // --- connections and deadlines ------------------------------------------------------------

  static void on_connection(void* cls, MHD_Connection* c, void** socket_context,
                            MHD_ConnectionNotificationCode code) {
    auto* self = static_cast<Impl*>(cls);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      auto* conn = new Connection;
      const MHD_ConnectionInfo* info =
          MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
      conn->fd = info ? info->connect_fd : -1;
      conn->deadline_ns = now_ns() + seconds_ns(self->options.header_timeout_s);
      *socket_context = conn;
      std::lock_guard<std::mutex> lock(self->connections_mutex);
      self->connections.insert(conn);
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
      auto* conn = static_cast<Connection*>(*socket_context);
      if (!conn) return;
      {
        // libmicrohttpd closes the socket after this notification returns; once the entry is
        // gone the reaper cannot touch the (possibly reused) descriptor.
        std::lock_guard<std::mutex> lock(self->connections_mutex);
        self->connections.erase(conn);
      }
      delete conn;
      *socket_context = nullptr;
    }
  }

  static Connection* connection_of(MHD_Connection* c) {
    const MHD_ConnectionInfo* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? static_cast<Connection*>(info->socket_context) : nullptr;
  }

  static void set_deadline(MHD_Connection* c, int64_t deadline) {
    if (Connection* conn = connection_of(c)) conn->deadline_ns = deadline;
  }

  void reap_loop() {
    std::unique_lock<std::mutex> lock(stop_mutex);
    while (!stopping) {
      stop_cv.wait_for(lock, std::chrono::milliseconds(200));
      const int64_t now = now_ns();
      std::lock_guard<std::mutex> held(connections_mutex);
      for (Connection* conn : connections) {
        const int64_t deadline = conn->deadline_ns.load();
        if (deadline > 0 && now > deadline && conn->fd >= 0) {
          ::shutdown(conn->fd, SHUT_RDWR);
          conn->deadline_ns = 0;  // once
        }
      }
    }
  }

  // --- requests ------------------------------------------------------------------------------

  /// Where MHD_get_connection_values writes a request's headers or query arguments: over the
  /// pairs the previous request on the connection left (their strings keep their capacity).
  struct PairSink {
    std::vector<std::pair<std::string, std::string>>& pairs;
    size_t count = 0;
  };

  static MHD_Result collect_pair(void* cls, MHD_ValueKind, const char* key, const char* value) {
    auto* sink = static_cast<PairSink*>(cls);
    if (sink->count == sink->pairs.size()) sink->pairs.emplace_back();
    auto& [name, text] = sink->pairs[sink->count++];
    name.assign(key ? key : "");
    text.assign(value ? value : "");
    return MHD_YES;
  }

  static void collect(MHD_Connection* c, MHD_ValueKind kind,
                      std::vector<std::pair<std::string, std::string>>& pairs) {
    PairSink sink{pairs};
    MHD_get_connection_values(c, kind, &Impl::collect_pair, &sink);
    pairs.resize(sink.count);
  }

  MHD_Result send(MHD_Connection* c, Request& r) {
    const server::HttpAnswer& a = r.answer;
    // Not copied: the body stays in `r` until libmicrohttpd has sent it. `r` is reset or deleted
    // only in on_completed (or when the connection closes), and libmicrohttpd calls that after
    // the last byte went out; after it, it only destroys the response, which frees nothing of a
    // persistent buffer.
    MHD_Response* response = MHD_create_response_from_buffer(
        a.body.size(), const_cast<char*>(a.body.data()), MHD_RESPMEM_PERSISTENT);
    if (!response) return MHD_NO;
    for (const auto& [key, value] : a.headers)
      MHD_add_response_header(response, key.c_str(), value.c_str());
    if (!a.content_type.empty())
      MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, a.content_type.c_str());
    const MHD_Result queued = MHD_queue_response(c, static_cast<unsigned int>(a.status), response);
    MHD_destroy_response(response);
    const double seconds = static_cast<double>(now_ns() - r.start_ns) / 1e9;
    handler.metrics().record(r.route, a.status, seconds);
    log(r, seconds);
    set_deadline(c, now_ns() + seconds_ns(options.write_timeout_s));
    return queued;
  }

  void log(const Request& r, double seconds) {
    if (!options.log_requests) return;
    const server::HttpAnswer& a = r.answer;
    std::string line;
    if (options.log_format == "json") {
      const auto agent = r.request.header("User-Agent");
      line = "{\"time_unix_ms\":" +
             std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count()) +
             ",\"method\":" + json_escape(r.request.method) +
             ",\"path\":" + json_escape(r.request.path) + ",\"route\":" + json_escape(r.route) +
             ",\"status\":" + std::to_string(a.status) +
             ",\"request_bytes\":" + std::to_string(r.request.body.size()) +
             ",\"response_bytes\":" + std::to_string(a.body.size()) +
             ",\"duration_ms\":" + std::to_string(seconds * 1e3) +
             (agent ? ",\"user_agent\":" + json_escape(*agent) : std::string()) + "}\n";
    } else {
      line = r.request.method + " " + r.request.path + " " + std::to_string(a.status) + " " +
             std::to_string(a.body.size()) + "\n";
    }
    std::lock_guard<std::mutex> lock(log_mutex);
    std::fwrite(line.data(), 1, line.size(), stderr);
  }

  static MHD_Result on_request(void* cls, MHD_Connection* c, const char* url, const char* method,
                               const char*, const char* upload_data, size_t* upload_data_size,
                               void** request_context) {
    auto* self = static_cast<Impl*>(cls);
    auto* r = static_cast<Request*>(*request_context);
    if (!r) {
      // First call: the request line and headers are in; the body is not read yet.
      if (Connection* conn = connection_of(c)) {
        r = &conn->request;
        r->reset();
      } else {
        r = new Request;
        r->owned = true;
      }
      *request_context = r;
      r->start_ns = now_ns();
      r->request.method.assign(method ? method : "");
      r->request.path.assign(url ? url : "");
      r->route.assign(server::route_label(r->request.method, r->request.path));
      collect(c, MHD_HEADER_KIND, r->request.headers);
      collect(c, MHD_GET_ARGUMENT_KIND, r->request.query);
      self->handler.metrics().begin_request();
      if (self->handler.pre_route(r->request, r->answer)) {
        r->answered = true;
        return self->send(c, *r);
      }
      if (const auto length = r->request.header("Content-Length")) {
        const std::string text(*length);
        char* end = nullptr;
        const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
        if (end && *end == '\0' && n > self->options.max_body_bytes) {
          // Up to kDiscardBytes the body is read and dropped, so that a client still writing
          // gets the 413 rather than a reset; past that the answer goes at once and the
          // connection closes. The body deadline bounds both.
          if (n > kDiscardBytes) {
            r->answered = true;
            set_status_error(r->answer, 413);
            return self->send(c, *r);
          }
          r->discard = true;
        }
      }
      set_deadline(c, now_ns() + seconds_ns(self->options.read_timeout_s));
      return MHD_YES;
    }
    if (*upload_data_size > 0) {
      if (r->answered || r->discard) {  // refused: drop what still arrives
        *upload_data_size = 0;
        return MHD_YES;
      }
      if (r->request.body.size() + *upload_data_size > self->options.max_body_bytes) {
        // A chunked body past the limit: drop the connection rather than read on.
        *upload_data_size = 0;
        r->over_limit = true;
        return MHD_NO;
      }
      r->request.body.append(upload_data, *upload_data_size);
      *upload_data_size = 0;
      return MHD_YES;
    }
    if (r->answered) return MHD_YES;
    // The whole body is in: compute the answer (no deadline while computing).
    set_deadline(c, 0);
    r->answered = true;
    if (r->discard)
      set_status_error(r->answer, 413);
    else
      self->handler.route(r->request, r->answer);
    return self->send(c, *r);
  }

  static void on_completed(void* cls, MHD_Connection* c, void** request_context,
                           MHD_RequestTerminationCode) {
    auto* self = static_cast<Impl*>(cls);
    auto* r = static_cast<Request*>(*request_context);
    if (!r) return;
    self->handler.metrics().end_request();
    // libmicrohttpd has sent the answer: it only destroys the response after this, which reads
    // nothing of a persistent buffer, so the body may go.
    if (r->owned)
      delete r;
    else
      r->trim();  // a connection's own Request waits for its next request
    *request_context = nullptr;
    // Kept alive: the next request's headers are due within header_timeout_s.
    set_deadline(c, now_ns() + seconds_ns(self->options.header_timeout_s));
  }

  static void on_mhd_error(void*, const char*, va_list) {
    // libmicrohttpd's own messages (a client that closed early, ...) are not the user's concern.
  }

  // --- life cycle ----------------------------------------------------------------------------

  int bind_socket() {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    std::string host = options.host;
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
      host = host.substr(1, host.size() - 2);
    addrinfo* found = nullptr;
    const std::string service = std::to_string(options.port);
    if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &found) != 0 || !found) return -1;
    int fd = -1;
    for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
      fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) continue;
      const int one = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (a->ai_family == AF_INET6) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
      if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
        ::close(fd);
        fd = -1;
      }
    }
    ::freeaddrinfo(found);
    if (fd < 0) return -1;
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len) != 0) {
      ::close(fd);
      return -1;
    }
    port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                             : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    listen_fd = fd;
    handler.set_port(port);
    return port;
  }

  bool start_daemon() {
    if (daemon) return true;
    if (listen_fd < 0 && bind_socket() < 0) return false;
    const unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC;
    daemon = MHD_start_daemon(
        flags, 0, nullptr, nullptr, &Impl::on_request, this,  //
        MHD_OPTION_LISTEN_SOCKET, listen_fd,                  //
        MHD_OPTION_THREAD_POOL_SIZE, static_cast<unsigned>(std::max(1, options.threads)),
        MHD_OPTION_CONNECTION_TIMEOUT, static_cast<unsigned>(std::max(1, options.idle_timeout_s)),
        MHD_OPTION_CONNECTION_LIMIT, static_cast<unsigned>(std::max(1, options.max_connections)),
        // Request line + headers in one 32 KiB buffer per connection (libmicrohttpd's default);
        // longer gets 431 / 414. The library zeroes the pool's free part after every request
        // (memorypool.c MHD_pool_reset): a larger pool costs each request a larger memset.
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, static_cast<size_t>(32 * 1024),
        MHD_OPTION_NOTIFY_CONNECTION, &Impl::on_connection, this,  //
        MHD_OPTION_NOTIFY_COMPLETED, &Impl::on_completed, this,    //
        MHD_OPTION_EXTERNAL_LOGGER, &Impl::on_mhd_error, this,     //
        MHD_OPTION_END);
    if (!daemon) return false;
    {
      std::lock_guard<std::mutex> lock(stop_mutex);
      stopping = false;
      running = true;
    }
    reaper = std::thread([this] { reap_loop(); });
    return true;
  }

  void stop_daemon() {
    {
      std::lock_guard<std::mutex> lock(stop_mutex);
      stopping = true;
      running = false;
    }
    stop_cv.notify_all();
    if (reaper.joinable()) reaper.join();
    if (daemon) {
      MHD_stop_daemon(daemon);  // also closes the listening socket it was given
      daemon = nullptr;
      listen_fd = -1;
    }
  }
};

HttpServer::HttpServer(ServerOptions options)
    : HttpServer(std::move(options), Catalog::builtin()) {}

HttpServer::HttpServer(ServerOptions options, const Catalog& catalog)
    : impl_(std::make_unique<Impl>(std::move(options), catalog)) {}

HttpServer::~HttpServer() {
  stop();
}

int HttpServer::bind() {
  if (impl_->listen_fd >= 0) return impl_->port;
  return impl_->bind_socket();
}

bool HttpServer::start() {
  return impl_->start_daemon();
}

bool HttpServer::listen() {
  if (!impl_->start_daemon()) return false;
  std::unique_lock<std::mutex> lock(impl_->stop_mutex);
  impl_->stop_cv.wait(lock, [this] { return impl_->stopping; });
  return true;
}

void HttpServer::stop() {
  impl_->stop_daemon();
}

int HttpServer::port() const {
  return impl_->port;
}

int run_server(const ServerOptions& options) {
  if (options.log_format != "text" && options.log_format != "json")
    throw InputError("--log-format", "must be text or json, not '" + options.log_format + "'");
  if (!options.allow_paths_dir.empty()) check_path_text(options.allow_paths_dir, "--allow-paths");
  if (!options.data_dir.empty()) check_path_text(options.data_dir, "--data-dir");
  for (const auto& host : options.allow_hosts)
    if (!server::parse_host_header(host))
      throw InputError("--allow-host", "'" + host + "' is not a host name or host:port");
  // Block SIGINT/SIGTERM in every thread; one thread waits for them and stops the server.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // A client that closes early must not kill the process with SIGPIPE.
  signal(SIGPIPE, SIG_IGN);

  // Model names may be looked up only in the stores the operator named (docs/stores-and-logs.md).
  StoreAccess stores{parse_store_list(options.model_stores, "--model-stores"), process_env()};
  Catalog catalog = options.data_dir.empty() ? Catalog::builtin() : Catalog::load(options.data_dir);
  catalog.allow_model_stores(std::move(stores));
  HttpServer server(options, catalog);
  // Start serving before saying so and before waiting for a signal: a stop that arrived while
  // the daemon was still starting used to be undone by the start (the process then never exited).
  if (server.bind() < 0 || !server.start()) {
    std::cerr << "gpusizer serve: cannot listen on " << options.host << ":" << options.port << "\n";
    return 1;
  }
  const bool v6 = options.host.find(':') != std::string::npos && options.host.front() != '[';
  std::cout << "gpusizer serving on http://" << (v6 ? "[" : "") << options.host << (v6 ? "]" : "")
            << ":" << server.port() << "/ (Ctrl-C to stop)" << std::endl;
  // SIGINT/SIGTERM are blocked in every thread (the daemon's threads inherit the mask), so this
  // thread alone receives them.
  int received = 0;
  while (sigwait(&signals, &received) != 0) {
  }
  server.stop();
  return 0;
}

}  // namespace gpusizer
