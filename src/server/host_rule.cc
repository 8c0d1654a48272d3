#include "server/host_rule.h"

#include <algorithm>
#include <cctype>

namespace gpusizer::server {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// RFC 3986 sec. 3.2.2: reg-name = *( unreserved / pct-encoded / sub-delims ); IPv4 is a subset.
// '%' is left out (no percent-encoded names), so is every byte that is not ASCII.
bool reg_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("-._~!$&'()*+,;=").find(c) != std::string_view::npos;
}

}  // namespace

std::optional<HostHeader> parse_host_header(std::string_view value) {
  // Optional whitespace around a field value is not part of it (RFC 9110 sec. 5.5).
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  if (value.empty() || value.size() > 255) return std::nullopt;
  HostHeader out;
  std::string_view rest;
  if (value.front() == '[') {
    const size_t close = value.find(']');
    if (close == std::string_view::npos || close < 2) return std::nullopt;
    for (char c : value.substr(1, close - 1))
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.')
        return std::nullopt;
    out.host = lower(value.substr(0, close + 1));
    rest = value.substr(close + 1);
  } else {
    const size_t colon = value.find(':');
    const std::string_view name = value.substr(0, colon);
    if (name.empty() || !std::all_of(name.begin(), name.end(), reg_name_char)) return std::nullopt;
    out.host = lower(name);
    rest = colon == std::string_view::npos ? std::string_view() : value.substr(colon);
  }
  if (!rest.empty()) {
    if (rest.front() != ':') return std::nullopt;
    rest.remove_prefix(1);
    if (rest.empty() || rest.size() > 5) return std::nullopt;
    int port = 0;
    for (char c : rest) {
      if (c < '0' || c > '9') return std::nullopt;
      port = port * 10 + (c - '0');
    }
    if (port > 65535) return std::nullopt;
    out.port = port;
  }
  return out;
}

bool is_loopback_bind(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

HostRule::HostRule(const std::string& bind_host, std::vector<std::string> allow_hosts) {
  if (is_loopback_bind(bind_host)) {
    for (const char* name : {"127.0.0.1", "localhost", "[::1]"}) allowed_.push_back({name, {}});
    // A server bound to another 127.x address answers to that address too.
    if (bind_host.rfind("127.", 0) == 0 && bind_host != "127.0.0.1")
      allowed_.push_back({bind_host, {}});
  } else {
    any_ = allow_hosts.empty();
  }
  for (const auto& entry : allow_hosts)
    if (auto h = parse_host_header(entry)) allowed_.push_back(*h);
  // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict for "literal" + string&&.
  for (const HostHeader& a : allowed_) {
    if (!names_.empty()) names_ += ", ";
    names_ += a.host;
    if (a.port) names_.append(":").append(std::to_string(*a.port));
  }
}

std::string HostRule::check(const std::vector<std::string_view>& values, int& status) const {
  status = 400;
  if (values.empty()) return "the request has no Host header";
  if (values.size() > 1) return "the request has several Host headers";
  const auto host = parse_host_header(values.front());
  if (!host) return "the Host header is malformed";
  status = 403;
  if (any_) return {};
  for (const HostHeader& a : allowed_) {
    if (a.host != host->host) continue;
    // An allowed entry with a port needs exactly that port; otherwise a port must be ours.
    const int want = a.port ? *a.port : port_;
    if (!host->port || *host->port == want) return {};
  }
  return "this server answers requests for " + names_ + " only";
}

}  // namespace gpusizer::server
