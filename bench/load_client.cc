// Load generator for POST /api/v1/estimate over loopback: N keep-alive connections, bounded by
// time and request count; prints requests/s and latency percentiles. Without --port it starts a
// server in this process on a free 127.0.0.1 port. Only ever connects to 127.0.0.1.
//
//   gpusizer_load [--port P] [--connections N] [--seconds S] [--max-requests R] [--body JSON]
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpusizer/server.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  int port = 0;
  int connections = 4;
  double seconds = 5;
  long max_requests = 500000;
  std::string body =
      R"({"model": "llama-2-7b", "gpu": "a100-sxm4-80gb", "batch": 8, "seq_len": 4096})";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!value) {
      std::fprintf(stderr, "%s needs a value\n", flag.c_str());
      std::exit(2);
    }
    if (flag == "--port")
      a.port = std::atoi(value);
    else if (flag == "--connections")
      a.connections = std::clamp(std::atoi(value), 1, 256);
    else if (flag == "--seconds")
      a.seconds = std::clamp(std::atof(value), 0.1, 60.0);
    else if (flag == "--max-requests")
      a.max_requests = std::clamp(std::atol(value), 1L, 10000000L);
    else if (flag == "--body")
      a.body = value;
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
    ++i;
  }
  return a;
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto index = static_cast<size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(index, sorted.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  std::unique_ptr<gpusizer::HttpServer> server;
  int port = args.port;
  if (port == 0) {
    gpusizer::ServerOptions options;
    options.port = 0;
    options.threads = std::max(args.connections, 8);
    server = std::make_unique<gpusizer::HttpServer>(options);
    if (!server->start()) {
      std::fprintf(stderr, "cannot start a server\n");
      return 1;
    }
    port = server->port();
  }

  // One warm-up request, which also checks that the body is accepted.
  {
    httplib::Client probe("127.0.0.1", port);
    auto res = probe.Post("/api/v1/estimate", args.body, "application/json");
    if (!res || res->status != 200) {
      std::fprintf(stderr, "warm-up request failed: %s\n",
                   res ? res->body.c_str() : httplib::to_string(res.error()).c_str());
      return 1;
    }
  }

  std::atomic<long> issued{0};
  std::atomic<long> errors{0};
  std::vector<std::vector<double>> latencies(static_cast<size_t>(args.connections));
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(args.seconds));
  std::vector<std::thread> threads;
  for (int c = 0; c < args.connections; ++c) {
    threads.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", port);
      client.set_keep_alive(true);
      client.set_tcp_nodelay(true);
      auto& mine = latencies[static_cast<size_t>(c)];
      mine.reserve(1 << 16);
      while (Clock::now() < deadline && issued.fetch_add(1) < args.max_requests) {
        const auto t0 = Clock::now();
        auto res = client.Post("/api/v1/estimate", args.body, "application/json");
        const auto t1 = Clock::now();
        if (!res || res->status != 200) ++errors;
        mine.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      }
    });
  }
  for (auto& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  if (server) server->stop();

  std::vector<double> all;
  for (const auto& v : latencies) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  const double rps = static_cast<double>(all.size()) / elapsed;
  std::printf(
      "| connections | requests | errors | seconds | requests/s | p50 ms | p99 ms | max ms |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::printf("| %d | %zu | %ld | %.2f | %.0f | %.3f | %.3f | %.3f |\n", args.connections,
              all.size(), errors.load(), elapsed, rps, percentile(all, 0.50), percentile(all, 0.99),
              all.empty() ? 0.0 : all.back());
  return errors.load() == 0 ? 0 : 1;
}
