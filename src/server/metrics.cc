#include "server/metrics.h"

#include <fmt/format.h>

#include "server/server.h"

namespace gpusizer::server {

void Metrics::record(const std::string& route, int status, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{route, status}];
  Latency& l = latency_[route];
  size_t i = 0;
  while (i < kBuckets.size() && seconds > kBuckets[i]) ++i;
  if (i < kBuckets.size()) ++l.buckets[i];
  ++l.count;
  l.sum += seconds;
}

std::string Metrics::text() const {
  std::string out;
  std::lock_guard<std::mutex> lock(mutex_);
  out += "# HELP gpusizer_http_requests_total HTTP requests answered, by route and status.\n";
  out += "# TYPE gpusizer_http_requests_total counter\n";
  for (const auto& [key, count] : requests_)
    out += fmt::format("gpusizer_http_requests_total{{route=\"{}\",status=\"{}\"}} {}\n", key.first,
                       key.second, count);
  out +=
      "# HELP gpusizer_http_request_duration_seconds Time from the request's headers to its "
      "answer.\n";
  out += "# TYPE gpusizer_http_request_duration_seconds histogram\n";
  for (const auto& [route, l] : latency_) {
    long cumulative = 0;
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += l.buckets[i];
      out += fmt::format(
          "gpusizer_http_request_duration_seconds_bucket{{route=\"{}\",le=\"{}\"}} {}\n", route,
          kBuckets[i], cumulative);
    }
    out += fmt::format(
        "gpusizer_http_request_duration_seconds_bucket{{route=\"{}\",le=\"+Inf\"}} {}\n", route,
        l.count);
    out += fmt::format("gpusizer_http_request_duration_seconds_sum{{route=\"{}\"}} {}\n", route,
                       l.sum);
    out += fmt::format("gpusizer_http_request_duration_seconds_count{{route=\"{}\"}} {}\n", route,
                       l.count);
  }
  out += "# HELP gpusizer_http_requests_in_flight Requests being answered now.\n";
  out += "# TYPE gpusizer_http_requests_in_flight gauge\n";
  out += fmt::format("gpusizer_http_requests_in_flight {}\n",
                     in_flight_.load(std::memory_order_relaxed));
  return out;
}

std::string_view route_label(std::string_view method, std::string_view path) {
  (void)method;
  for (const Route& r : routes())
    if (r.path == path && r.path != "/") return r.path;
  if (path == "/" || path.rfind("/assets/", 0) == 0 || path == "/index.html" ||
      path == "/favicon.ico" || path == "/favicon.svg")
    return "/";
  return "other";
}

}  // namespace gpusizer::server
