#pragma once
// The server's counters, served at GET /metrics in the Prometheus text exposition format
// (prometheus.io/docs/instrumenting/exposition_formats, version 0.0.4): requests by route and
// status, a latency histogram by route, and the requests in flight.
#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace gpusizer::server {

class Metrics {
 public:
  /// Upper bounds of the latency buckets in seconds (the +Inf bucket is implied).
  static constexpr std::array<double, 12> kBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                      0.1,   0.25,   0.5,   1,    2.5,   10};

  /// One answered request: `route` is a route of the table ("/api/v1/estimate") or "other".
  void record(const std::string& route, int status, double seconds);
  void begin_request() { in_flight_.fetch_add(1, std::memory_order_relaxed); }
  void end_request() { in_flight_.fetch_sub(1, std::memory_order_relaxed); }

  /// The exposition text (content type "text/plain; version=0.0.4").
  std::string text() const;

 private:
  struct Latency {
    std::array<long, kBuckets.size()> buckets{};  // non-cumulative counts
    long count = 0;
    double sum = 0;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, long> requests_;  // (route, status) -> count
  std::map<std::string, Latency> latency_;
  std::atomic<long> in_flight_{0};
};

/// The route label of a request path: the path itself for a route of the table, "/" for the
/// page's files, "other" for the rest (labels stay few whatever clients send). The view is of a
/// string that lives as long as the process.
std::string_view route_label(std::string_view method, std::string_view path);

}  // namespace gpusizer::server
