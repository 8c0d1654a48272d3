// A bounded soak of `gpusizer serve` on loopback: starts the server binary on a free 127.0.0.1
// port, sends valid and malformed requests from several threads for a fixed time, then checks
// that the server is alive, answered every request, never answered 5xx to malformed input, and
// stopped cleanly on SIGTERM. Prints requests served and the server's RSS before and after.
//
//   gpusizer_soak GPUSIZER_BINARY [seconds] [threads]
// Env: GPUSIZER_SOAK_SECONDS (default 20), GPUSIZER_SOAK_THREADS (default 4),
// GPUSIZER_SOAK_MAX_RSS_GROWTH_MB (default 256), GPUSIZER_SOAK_SLOW_CLIENTS (default 100) and
// GPUSIZER_SOAK_SLOW_SECONDS (default 5): the slow- and idle-client phase after the mixed run.
// Exit code 0: pass; 1: fail; 2: usage/setup.
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Request {
  const char* name;
  const char* method;
  std::string path;
  std::string body;
  bool malformed;
};

std::vector<Request> requests() {
  std::string deep(200, '[');
  std::string big = R"({"model": "llama-2-7b", "pad": ")" + std::string(1100000, 'x') + "\"}";
  return {
      {"estimate", "POST", "/api/v1/estimate",
       R"({"model": "llama-2-7b", "gpu": "a100-sxm4-80gb", "batch": 4})", false},
      {"estimate vllm moe", "POST", "/api/v1/estimate",
       R"({"model": "qwen3-30b-a3b", "gpu": "h100-sxm5-80gb", "engine": "vllm", "seq_len": 8192})",
       false},
      {"estimate training", "POST", "/api/v1/estimate",
       R"({"model": "llama-2-7b", "task": "qlora", "gpu": "rtx-4090-24gb", "training": {"gradient_checkpointing": true}})",
       false},
      {"gpus", "GET", "/api/v1/gpus", "", false},
      {"models", "GET", "/api/v1/models", "", false},
      {"page", "GET", "/", "", false},
      {"truncated json", "POST", "/api/v1/estimate", R"({"model": "llama-2-7b", "batch": )", true},
      {"not an object", "POST", "/api/v1/estimate", "[1, 2, 3]", true},
      {"wrong type", "POST", "/api/v1/estimate", R"({"model": "llama-2-7b", "batch": "four"})",
       true},
      {"unknown model", "POST", "/api/v1/estimate", R"({"model": "llama-9-9b"})", true},
      {"nonsense combination", "POST", "/api/v1/estimate",
       R"({"model": "llama-2-7b", "task": "qlora", "weights": "fp32"})", true},
      {"huge number", "POST", "/api/v1/estimate", R"({"model": "llama-2-7b", "batch": 1e400})",
       true},
      {"NaN literal", "POST", "/api/v1/estimate", R"({"model": "llama-2-7b", "batch": NaN})", true},
      {"invalid utf-8", "POST", "/api/v1/estimate", "{\"model\": \"\xff\xfe\xc3\x28\"}", true},
      {"deep nesting", "POST", "/api/v1/estimate", deep, true},
      {"path model", "POST", "/api/v1/estimate", R"({"model": "/etc/passwd"})", true},
      {"empty body", "POST", "/api/v1/estimate", "", true},
      {"body over the limit", "POST", "/api/v1/estimate", big, true},
      {"unknown route", "GET", "/api/v1/nothing", "", true},
      {"wrong method", "GET", "/api/v1/estimate", "", true},
      {"wrong method put", "PUT", "/api/v1/estimate", "{}", true},
  };
}

long rss_kb(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

int connect_loopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// `count` slow clients (one header byte every 100 ms, never finishing) and `count` idle
// keep-alive connections, for `seconds`; meanwhile one good estimate at a time on a fresh
// connection. Prints the good requests' latency; returns false when one got no answer in 5 s.
bool slow_client_phase(int port, int count, double seconds, const std::string& body) {
  std::vector<int> slow, idle;
  for (int i = 0; i < count; ++i) {
    const int s = connect_loopback(port);
    if (s >= 0) {
      (void)!write(s, "POST /api/v1/estimate HTTP/1.1\r\nHo", 34);
      slow.push_back(s);
    }
    const int d = connect_loopback(port);
    if (d >= 0) {
      const std::string req =
          "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n\r\n";
      (void)!write(d, req.data(), req.size());
      idle.push_back(d);
    }
  }
  std::vector<double> ms;
  long unanswered = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  auto last_drip = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < until && ms.size() < 100000) {
    if (std::chrono::steady_clock::now() - last_drip > std::chrono::milliseconds(100)) {
      for (int s : slow) (void)!write(s, "x", 1);
      last_drip = std::chrono::steady_clock::now();
    }
    httplib::Client good("127.0.0.1", port);
    good.set_read_timeout(5, 0);
    good.set_connection_timeout(5, 0);
    const auto t0 = std::chrono::steady_clock::now();
    auto res = good.Post("/api/v1/estimate", body, "application/json");
    const double took =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!res || res->status != 200)
      ++unanswered;
    else
      ms.push_back(took);
  }
  for (int s : slow) close(s);
  for (int d : idle) close(d);
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) {
    return ms.empty() ? 0.0
                      : ms[std::min(ms.size() - 1,
                                    static_cast<size_t>(q * static_cast<double>(ms.size())))];
  };
  std::printf(
      "soak: %zu slow + %zu idle clients for %.0f s: %zu good requests answered, %ld not; "
      "latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
      slow.size(), idle.size(), seconds, ms.size(), unanswered, at(0.5), at(0.99),
      ms.empty() ? 0.0 : ms.back());
  return unanswered == 0 && !ms.empty();
}

// Raw bytes that are not HTTP: the server must answer (400) or close, and keep serving.
void send_garbage(int port, unsigned seed) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string lines[] = {"GARBAGE\r\n\r\n", "GET /\r\n\r\n",
                                 "POST /api/v1/estimate HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
                                 "GET /" + std::string(20000, 'a') + " HTTP/1.1\r\n\r\n",
                                 std::string("\x00\x01\x02\xff\r\n\r\n", 8)};
    const std::string& msg = lines[seed % 5];
    (void)!write(fd, msg.data(), msg.size());
    char buf[512];
    (void)!read(fd, buf, sizeof buf);
  }
  close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpusizer_soak GPUSIZER_BINARY [seconds] [threads]\n");
    return 2;
  }
  // The server may close a raw or slow connection while this side still writes to it.
  signal(SIGPIPE, SIG_IGN);
  auto env_or = [](const char* name, double fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::atof(v) : fallback;
  };
  const double seconds = argc > 2 ? std::atof(argv[2]) : env_or("GPUSIZER_SOAK_SECONDS", 20);
  const int threads =
      argc > 3 ? std::atoi(argv[3]) : static_cast<int>(env_or("GPUSIZER_SOAK_THREADS", 4));
  const long max_growth_kb =
      static_cast<long>(env_or("GPUSIZER_SOAK_MAX_RSS_GROWTH_MB", 256) * 1024);

  // Start the server: loopback, any free port; its first line names the port.
  int out[2];
  if (pipe(out) != 0) return 2;
  const pid_t pid = fork();
  if (pid < 0) return 2;
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    execl(argv[1], argv[1], "serve", "--host", "127.0.0.1", "--port", "0",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  std::string first;
  char c;
  while (first.size() < 512 && read(out[0], &c, 1) == 1 && c != '\n') first += c;
  const size_t colon = first.rfind(':');
  const int port = colon == std::string::npos ? 0 : std::atoi(first.c_str() + colon + 1);
  if (port <= 0) {
    std::fprintf(stderr, "soak: the server did not say its port: '%s'\n", first.c_str());
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    return 2;
  }
  {
    httplib::Client warm("127.0.0.1", port);  // the catalogs' first answers fill their caches
    warm.set_read_timeout(30, 0);
    warm.Get("/api/v1/gpus");
    warm.Get("/api/v1/models");
    warm.Post("/api/v1/estimate", requests()[0].body, "application/json");
  }
  const long rss_before = rss_kb(pid);

  const auto reqs = requests();
  std::atomic<long> served{0}, valid_ok{0}, malformed_4xx{0}, garbage{0};
  std::atomic<long> failures{0};
  std::mutex log_mutex;
  auto fail = [&](const std::string& why) {
    std::lock_guard<std::mutex> lock(log_mutex);
    if (failures++ < 20) std::fprintf(stderr, "soak: %s\n", why.c_str());
  };
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      httplib::Client client("127.0.0.1", port);
      client.set_keep_alive(t % 2 == 0);  // half the threads reuse connections
      client.set_read_timeout(30, 0);
      client.set_connection_timeout(5, 0);
      unsigned i = static_cast<unsigned>(t) * 7919u;
      while (std::chrono::steady_clock::now() < until) {
        ++i;
        if (t == 0 && i % 10 == 0) {
          send_garbage(port, i / 10);
          ++garbage;
          continue;
        }
        const Request& r = reqs[i % reqs.size()];
        const std::string method = r.method;
        httplib::Result res = method == "POST"  ? client.Post(r.path, r.body, "application/json")
                              : method == "PUT" ? client.Put(r.path, r.body, "application/json")
                                                : client.Get(r.path);
        if (!res) {
          // The server may close a connection after answering 413 before reading the body.
          if (std::string(r.name) != "body over the limit")
            fail(std::string(r.name) + ": no answer (" + httplib::to_string(res.error()) + ")");
          continue;
        }
        ++served;
        const int status = res->status;
        if (r.malformed) {
          if (status >= 400 && status < 500)
            ++malformed_4xx;
          else
            fail(std::string(r.name) + ": status " + std::to_string(status) + " " +
                 res->body.substr(0, 200));
        } else if (status == 200) {
          ++valid_ok;
        } else {
          fail(std::string(r.name) + ": status " + std::to_string(status) + " " +
               res->body.substr(0, 200));
        }
      }
    });
  }
  for (auto& w : workers) w.join();

  // Slow and idle clients (GPUSIZER_SOAK_SLOW_CLIENTS, default 100, for
  // GPUSIZER_SOAK_SLOW_SECONDS, default 5) must not starve a good request.
  const int slow_clients = static_cast<int>(env_or("GPUSIZER_SOAK_SLOW_CLIENTS", 100));
  const double slow_seconds = env_or("GPUSIZER_SOAK_SLOW_SECONDS", 5);
  const bool slow_ok =
      slow_clients <= 0 || slow_client_phase(port, slow_clients, slow_seconds, requests()[0].body);
  if (!slow_ok) fail("a good request got no answer while slow clients were connected");

  const bool alive = kill(pid, 0) == 0;
  const long rss_after = rss_kb(pid);
  int status = -1;
  if (alive) {
    kill(pid, SIGTERM);
    waitpid(pid, &status, 0);
  } else {
    waitpid(pid, &status, 0);
  }
  const bool clean_exit = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  const long growth = rss_after - rss_before;
  std::printf(
      "soak: %.0f s, %d threads, %ld requests served (%ld valid 200, %ld malformed 4xx), "
      "%ld raw garbage connections, %.0f requests/s\n",
      seconds, threads, served.load(), valid_ok.load(), malformed_4xx.load(), garbage.load(),
      static_cast<double>(served.load()) / seconds);
  std::printf(
      "soak: server RSS %ld KiB before, %ld KiB after (%+ld KiB); alive %s; clean exit %s; "
      "failures %ld\n",
      rss_before, rss_after, growth, alive ? "yes" : "NO", clean_exit ? "yes" : "NO",
      failures.load());
  const bool ok = alive && clean_exit && failures == 0 && served > 0 && growth <= max_growth_kb;
  std::printf("soak: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
