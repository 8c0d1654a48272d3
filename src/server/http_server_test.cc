// The transport against a live server on 127.0.0.1 (loopback only, every loop bounded): the
// defects of the cpp-httplib server it replaced, each as a regression test — slow and idle
// clients that starved the workers, pipelining, the Host rule, the Content-Type rule, the NUL
// byte that got round the path rule, FIFOs, health and metrics, the JSON access log.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "gpusizer/catalog.h"
#include "gpusizer/server.h"

namespace gpusizer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

/// A client socket to 127.0.0.1:port (never anything else).
class Socket {
 public:
  explicit Socket(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    const int one = 1;
    if (connected_) ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  bool connected() const { return connected_; }
  bool send(std::string_view bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }
  /// Reads what arrives within `ms` milliseconds of silence, or until the server closes.
  /// `closed` tells whether it did.
  std::string read_for(int ms, bool* closed = nullptr) {
    std::string out;
    if (closed) *closed = false;
    for (int rounds = 0; rounds < 10000; ++rounds) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, ms) <= 0) break;
      char buf[65536];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        if (closed) *closed = true;
        break;
      }
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }
  /// Reads one whole answer (headers, then Content-Length bytes), waiting at most `ms` in all.
  std::string read_answer(int ms) {
    std::string out;
    const auto until = Clock::now() + std::chrono::milliseconds(ms);
    while (Clock::now() < until) {
      const size_t end = out.find("\r\n\r\n");
      if (end != std::string::npos) {
        const size_t at = out.find("Content-Length: ");
        const size_t length =
            at == std::string::npos || at > end ? 0 : std::stoul(out.substr(at + 16));
        if (out.size() >= end + 4 + length) return out;
      }
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      char buf[65536];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

/// The status of an HTTP answer's first line, or 0.
int status_of(const std::string& answer) {
  if (answer.rfind("HTTP/1.", 0) != 0 || answer.size() < 12) return 0;
  return std::atoi(answer.c_str() + 9);
}

std::string body_of(const std::string& answer) {
  const size_t end = answer.find("\r\n\r\n");
  return end == std::string::npos ? "" : answer.substr(end + 4);
}

std::string get(const std::string& path, const std::string& host) {
  return "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n";
}

std::string post(const std::string& path, const std::string& host, const std::string& body,
                 const std::string& type = "application/json") {
  return "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" +
         (type.empty() ? "" : "Content-Type: " + type + "\r\n") +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

class Live {
 public:
  explicit Live(ServerOptions options = {}) {
    options.port = 0;
    options.threads = 2;
    server_ = std::make_unique<HttpServer>(std::move(options));
    EXPECT_TRUE(server_->start());
  }
  int port() const { return server_->port(); }
  std::string host() const { return "127.0.0.1:" + std::to_string(port()); }
  /// One request on a fresh connection; the whole answer.
  std::string ask(const std::string& request, int ms = 10000) {
    Socket s(port());
    EXPECT_TRUE(s.connected());
    s.send(request);
    return s.read_answer(ms);
  }

 private:
  std::unique_ptr<HttpServer> server_;
};

const char* kScenario = R"({"model": "llama-2-7b", "gpu": "a100-sxm4-80gb", "batch": 4})";

// A server that closes a connection while a client of this binary still writes must not end
// the whole test run with SIGPIPE.
const bool kSigpipeIgnored = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();

// --- slow and idle clients ------------------------------------------------------------------

TEST(HttpTransport, HundredSlowClientsDoNotStarveAGoodRequest) {
  // Under cpp-httplib each of these held one of the 8 workers: with 40, 0 of 2 good requests
  // were answered within 12 s. Here they hold sockets only.
  Live live;
  std::vector<std::unique_ptr<Socket>> slow;
  for (int i = 0; i < 100; ++i) {
    slow.push_back(std::make_unique<Socket>(live.port()));
    ASSERT_TRUE(slow.back()->connected());
    slow.back()->send("POST /api/v1/estimate HTTP/1.1\r\nHo");  // and then nothing for now
  }
  for (int round = 0; round < 3; ++round) {
    for (auto& s : slow) s->send("s");  // one more header byte each
    const std::string answer = live.ask(post("/api/v1/estimate", live.host(), kScenario), 5000);
    EXPECT_EQ(status_of(answer), 200) << answer.substr(0, 200);
  }
}

TEST(HttpTransport, ManyIdleKeepAliveConnectionsDoNotDelayAGoodRequest) {
  // 40 idle keep-alive connections delayed a good request by 10 s under cpp-httplib.
  Live live;
  std::vector<std::unique_ptr<Socket>> idle;
  for (int i = 0; i < 40; ++i) {
    idle.push_back(std::make_unique<Socket>(live.port()));
    idle.back()->send(get("/healthz", live.host()));
    ASSERT_EQ(status_of(idle.back()->read_answer(5000)), 200) << i;
  }
  const std::string answer = live.ask(post("/api/v1/estimate", live.host(), kScenario), 5000);
  EXPECT_EQ(status_of(answer), 200) << answer.substr(0, 200);
}

TEST(HttpTransport, HeaderDeadlineClosesADribblingClient) {
  ServerOptions options;
  options.header_timeout_s = 1;
  Live live(options);
  Socket s(live.port());
  s.send("GET /healthz HTTP/1.1\r\n");
  bool closed = false;
  // One byte every 100 ms keeps the connection from ever being silent; the deadline (1 s, then
  // the reaper's 0.2 s tick) closes it all the same. At most 5 s of trying.
  for (int i = 0; i < 50 && !closed; ++i) {
    s.send("X");
    s.read_for(100, &closed);
  }
  EXPECT_TRUE(closed);
}

TEST(HttpTransport, IdleKeepAliveConnectionsAreClosed) {
  ServerOptions options;
  options.idle_timeout_s = 1;
  Live live(options);
  Socket s(live.port());
  s.send(get("/healthz", live.host()));
  EXPECT_EQ(status_of(s.read_answer(5000)), 200);
  bool closed = false;
  s.read_for(4000, &closed);  // silent: closed after about 1 s
  EXPECT_TRUE(closed);
}

TEST(HttpTransport, PipelinedRequestsAreAllAnswered) {
  // cpp-httplib answered 1 of 101 pipelined requests.
  Live live;
  Socket s(live.port());
  std::string requests;
  for (int i = 0; i < 101; ++i) requests += get("/healthz", live.host());
  ASSERT_TRUE(s.send(requests));
  std::string all;
  size_t answers = 0;
  for (int i = 0; i < 100 && answers < 101; ++i) {
    all += s.read_for(200);
    answers = 0;
    for (size_t at = 0; (at = all.find("HTTP/1.1 200", at)) != std::string::npos; ++at) ++answers;
  }
  EXPECT_EQ(answers, 101u);
}

TEST(HttpTransport, KeepAliveRequestsShareNoState) {
  // A connection reuses one request's buffers for the next (issue 18): each answer must still be
  // the one a fresh connection gets, with its own headers, query and language.
  ServerOptions options;
  options.max_body_bytes = 4096;
  Live live(options);
  const std::string en = post("/api/v1/estimate", live.host(), kScenario);
  const std::string zh = post("/api/v1/estimate?lang=zh", live.host(), kScenario);
  const std::string fresh_en = live.ask(en);
  const std::string fresh_zh = live.ask(zh);
  ASSERT_EQ(status_of(fresh_en), 200) << fresh_en;
  ASSERT_EQ(status_of(fresh_zh), 200) << fresh_zh;
  ASSERT_NE(body_of(fresh_en), body_of(fresh_zh));
  Socket s(live.port());
  auto next = [&s](const std::string& request) {
    EXPECT_TRUE(s.send(request));
    return s.read_answer(10000);
  };
  EXPECT_EQ(body_of(next(zh)), body_of(fresh_zh));
  const std::string english = next(en);
  EXPECT_EQ(body_of(english), body_of(fresh_en));
  const std::string health = next(get("/healthz", live.host()));
  EXPECT_NE(health.find("Cache-Control: no-store"), std::string::npos) << health;
  EXPECT_EQ(status_of(next(post("/api/v1/estimate", live.host(), std::string(8000, 'x')))), 413);
  EXPECT_EQ(status_of(next(post("/api/v1/estimate", live.host(), "{"))), 400);
  const std::string again = next(en);
  EXPECT_EQ(status_of(again), 200) << again;
  EXPECT_EQ(body_of(again), body_of(fresh_en));
  EXPECT_EQ(again.find("Cache-Control"), std::string::npos) << again;
  EXPECT_EQ(body_of(next(zh)), body_of(fresh_zh));
}

TEST(HttpTransport, AHugeDeclaredBodyIsRefusedBeforeItIsRead) {
  // Past 64 MiB declared, the 413 goes at once (a smaller one is read and dropped first, so
  // that a client still writing gets the answer rather than a reset).
  ServerOptions options;
  options.max_body_bytes = 4096;
  Live live(options);
  Socket s(live.port());
  s.send("POST /api/v1/estimate HTTP/1.1\r\nHost: " + live.host() +
         "\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n");
  const std::string answer = s.read_answer(5000);
  EXPECT_EQ(status_of(answer), 413) << answer;
  EXPECT_EQ(json::parse(body_of(answer))["error"]["code"], "body_too_large");
}

TEST(HttpTransport, ABodyOverTheCapIsDroppedThenRefusedAndTheConnectionKept) {
  ServerOptions options;
  options.max_body_bytes = 4096;
  Live live(options);
  Socket s(live.port());
  s.send(post("/api/v1/estimate", live.host(), std::string(100000, 'x')));
  EXPECT_EQ(status_of(s.read_answer(5000)), 413);
  s.send(get("/healthz", live.host()));  // the same connection
  EXPECT_EQ(status_of(s.read_answer(5000)), 200);
}

// --- the Host rule ---------------------------------------------------------------------------

TEST(HttpTransport, HostMustBeExactlyALoopbackNameWithOurPort) {
  Live live;
  const std::string port = std::to_string(live.port());
  for (const std::string& host :
       std::vector<std::string>{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port,
                                "LOCALHOST:" + port, "127.0.0.1"})
    EXPECT_EQ(status_of(live.ask(get("/healthz", host))), 200) << host;
  // Each of these got 200 from the old prefix rule ("starts with 127.").
  for (const std::string& host : std::vector<std::string>{
           std::string("127.evil.example"), "127.0.0.1.nip.io:" + port, "127.0.0.1@evil.example",
           "[::1].evil.example", "evil.example:" + port, "localhost.:" + port, "127.0.0.2:" + port,
           std::string("localhost:1"), "localhost:" + port + "0", std::string("[::1]x")}) {
    const std::string answer = live.ask(get("/healthz", host));
    EXPECT_TRUE(status_of(answer) == 403 || status_of(answer) == 400) << host << ": " << answer;
    EXPECT_NE(body_of(answer).find("bad_host"), std::string::npos) << host << ": " << answer;
  }
}

TEST(HttpTransport, TwoHostHeadersAreRefused) {
  // The old server took the first of two.
  Live live;
  const std::string answer =
      live.ask("GET /healthz HTTP/1.1\r\nHost: " + live.host() + "\r\nHost: evil.example\r\n\r\n");
  EXPECT_EQ(status_of(answer), 400) << answer;
  EXPECT_NE(body_of(answer).find("several Host headers"), std::string::npos) << answer;
}

TEST(HttpTransport, HostRuleRunsBeforeTheCorsPreflight) {
  ServerOptions options;
  options.cors = true;
  Live live(options);
  const std::string preflight =
      "OPTIONS /api/v1/estimate HTTP/1.1\r\nHost: evil.example\r\n"
      "Origin: http://evil.example\r\n"
      "Access-Control-Request-Method: POST\r\n\r\n";
  EXPECT_EQ(status_of(live.ask(preflight)), 403);
  const std::string ours =
      "OPTIONS /api/v1/estimate HTTP/1.1\r\nHost: " + live.host() + "\r\nOrigin: http://x\r\n\r\n";
  EXPECT_EQ(status_of(live.ask(ours)), 204);
}

TEST(HttpTransport, AllowHostAddsNames) {
  ServerOptions options;
  options.allow_hosts = {"gpusizer.internal", "proxy.example:443"};
  Live live(options);
  const std::string port = std::to_string(live.port());
  EXPECT_EQ(status_of(live.ask(get("/healthz", "gpusizer.internal:" + port))), 200);
  EXPECT_EQ(status_of(live.ask(get("/healthz", "proxy.example:443"))), 200);
  EXPECT_EQ(status_of(live.ask(get("/healthz", "proxy.example:" + port))), 403);
  EXPECT_EQ(status_of(live.ask(get("/healthz", "gpusizer.internal.evil"))), 403);
}

// --- content type ----------------------------------------------------------------------------

TEST(HttpTransport, JsonBodiesNeedAJsonContentType) {
  // A text/plain POST is a "simple" request a page elsewhere can send without a preflight.
  Live live;
  for (const std::string& type :
       std::vector<std::string>{"text/plain", "", "application/x-www-form-urlencoded",
                                "multipart/form-data; boundary=x", "application/jsonx"}) {
    const std::string answer = live.ask(post("/api/v1/estimate", live.host(), kScenario, type));
    EXPECT_EQ(status_of(answer), 415) << type << ": " << answer.substr(0, 300);
    EXPECT_NE(body_of(answer).find("unsupported_media_type"), std::string::npos) << type;
  }
  for (const std::string& type : std::vector<std::string>{
           "application/json", "application/json; charset=utf-8", "Application/JSON"})
    EXPECT_EQ(status_of(live.ask(post("/api/v1/estimate", live.host(), kScenario, type))), 200)
        << type;
}

// --- paths -----------------------------------------------------------------------------------

class LivePaths : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("http_paths_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "allowed");
    fs::create_directories(root_ / "outside");
    std::ofstream(root_ / "outside" / "config.json")
        << R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
              "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000})";
    ASSERT_EQ(mkfifo((root_ / "allowed" / "fifo.json").c_str(), 0600), 0);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(LivePaths, ANulByteDoesNotGetRoundThePathRule) {
  // {"model": "/outside/config.json\u0000.json"} answered 200 with the parameter count of a file
  // outside the allowed directory.
  const std::string model = (root_ / "outside" / "config.json").string() + "\\u0000.json";
  const std::string body = "{\"model\": \"" + model + "\", \"gpu\": \"h100\"}";
  for (bool allow : {false, true}) {
    ServerOptions options;
    if (allow) options.allow_paths_dir = (root_ / "allowed").string();
    Live live(options);
    const std::string answer = live.ask(post("/api/v1/estimate", live.host(), body));
    EXPECT_EQ(status_of(answer), 400) << answer.substr(0, 300);
    EXPECT_NE(body_of(answer).find("NUL byte"), std::string::npos) << answer.substr(0, 300);
    // The same answer whether the file before the NUL exists or not: no oracle.
    const std::string missing = "{\"model\": \"/nonexistent/x.json\\u0000.json\"}";
    EXPECT_EQ(json::parse(body_of(
                  live.ask(post("/api/v1/estimate", live.host(), missing))))["error"]["code"],
              json::parse(body_of(answer))["error"]["code"]);
  }
}

TEST_F(LivePaths, AFifoInsideTheAllowedDirectoryDoesNotBlockAWorker) {
  ServerOptions options;
  options.allow_paths_dir = (root_ / "allowed").string();
  Live live(options);
  // Two threads: were the FIFO to block, the second request (and this test) would hang.
  for (int i = 0; i < 3; ++i) {
    const std::string answer =
        live.ask(post("/api/v1/estimate", live.host(), R"({"model": "fifo.json"})"), 5000);
    EXPECT_EQ(status_of(answer), 400) << answer.substr(0, 300);
    EXPECT_NE(body_of(answer).find("FIFO"), std::string::npos) << answer.substr(0, 300);
  }
  EXPECT_EQ(status_of(live.ask(post("/api/v1/estimate", live.host(), kScenario))), 200);
}

// --- health and metrics ----------------------------------------------------------------------

TEST(HttpTransport, HealthzAnswersOk) {
  Live live;
  const std::string answer = live.ask(get("/healthz", live.host()));
  EXPECT_EQ(status_of(answer), 200);
  EXPECT_EQ(json::parse(body_of(answer)), json({{"status", "ok"}}));
}

TEST(HttpTransport, MetricsCountRequestsByRouteAndStatus) {
  Live live;
  live.ask(get("/healthz", live.host()));
  live.ask(get("/healthz", live.host()));
  live.ask(post("/api/v1/estimate", live.host(), "{"));
  live.ask(get("/no/such", live.host()));
  const std::string answer = live.ask(get("/metrics", live.host()));
  ASSERT_EQ(status_of(answer), 200);
  EXPECT_NE(answer.find("Content-Type: text/plain; version=0.0.4"), std::string::npos) << answer;
  const std::string text = body_of(answer);
  // Two /healthz answered 200, one malformed estimate 400, one unknown path 404.
  EXPECT_NE(text.find("gpusizer_http_requests_total{route=\"/healthz\",status=\"200\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("gpusizer_http_requests_total{route=\"/api/v1/estimate\",status=\"400\"} 1\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("gpusizer_http_requests_total{route=\"other\",status=\"404\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find(
          "gpusizer_http_request_duration_seconds_bucket{route=\"/healthz\",le=\"+Inf\"} 2\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("gpusizer_http_request_duration_seconds_count{route=\"/healthz\"} 2\n"),
            std::string::npos);
  // The /metrics request itself is in flight while it is answered (an earlier request's
  // completion may be counted a moment after its client has read it, hence >= 1).
  const size_t at = text.find("\ngpusizer_http_requests_in_flight ");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_GE(std::atoi(text.c_str() + at + 34), 1) << text;
}

// --- the CLI's serve: access log in JSON ----------------------------------------------------

TEST(ServeCommand, LogFormatJsonWritesOneJsonLinePerRequest) {
  const std::string log = ::testing::TempDir() + "/serve_log_" + std::to_string(getpid()) + ".txt";
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    const int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(err, STDERR_FILENO);
    close(out[0]);
    close(out[1]);
    execl(GPUSIZER_CLI_PATH, GPUSIZER_CLI_PATH, "serve", "--host", "127.0.0.1", "--port", "0",
          "--log-format", "json", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  std::string first;
  char c;
  while (first.size() < 512 && read(out[0], &c, 1) == 1 && c != '\n') first += c;
  close(out[0]);
  const int port = std::atoi(first.c_str() + first.rfind(':') + 1);
  ASSERT_GT(port, 0) << first;
  const std::string host = "127.0.0.1:" + std::to_string(port);
  {
    Socket s(port);
    s.send(get("/healthz", host));
    EXPECT_EQ(status_of(s.read_answer(5000)), 200);
    s.send(post("/api/v1/estimate", host, "{", "application/json"));
    EXPECT_EQ(status_of(s.read_answer(5000)), 400);
  }
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::ifstream in(log);
  std::vector<json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["method"], "GET");
  EXPECT_EQ(lines[0]["path"], "/healthz");
  EXPECT_EQ(lines[0]["status"], 200);
  EXPECT_EQ(lines[1]["route"], "/api/v1/estimate");
  EXPECT_EQ(lines[1]["status"], 400);
  EXPECT_EQ(lines[1]["request_bytes"], 1);
  EXPECT_TRUE(lines[1]["duration_ms"].is_number());
}

}  // namespace
}  // namespace gpusizer
