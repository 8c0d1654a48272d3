#pragma once
// Which Host headers the server answers (DNS rebinding: a page elsewhere whose name resolves to
// 127.0.0.1 reaches a loopback server, but its requests carry that page's name in Host).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpusizer::server {

/// A Host header split as RFC 9110 sec. 7.2 and RFC 3986 sec. 3.2.2 write it: host [":" port],
/// where host is a reg-name or IPv4 address (no ':') or an IP literal in brackets. nullopt when
/// the value is not of that form (empty, a bad port, text after the ']' or the port, a '@').
struct HostHeader {
  std::string host;  ///< lower case; IPv6 literals keep their brackets: "[::1]"
  std::optional<int> port;
};
std::optional<HostHeader> parse_host_header(std::string_view value);

/// The rule: exactly one Host header; its host compared exactly (no prefix or suffix match) with
/// the allowed names, and its port, when it has one, equal to the bound port.
class HostRule {
 public:
  /// `bind_host`: the address the server listens on. Loopback binds (127.0.0.1, ::1, localhost)
  /// allow 127.0.0.1, localhost and [::1]; `allow_hosts` adds names ("name" or "name:port"). A
  /// non-loopback bind with an empty list allows any well-formed Host.
  HostRule(const std::string& bind_host, std::vector<std::string> allow_hosts);
  void set_port(int port) { port_ = port; }

  /// Empty when `values` (every Host header of the request, in order) passes; otherwise why not.
  /// `status` is set to 400 (not exactly one, malformed) or 403 (a name not allowed).
  std::string check(const std::vector<std::string_view>& values, int& status) const;

 private:
  bool any_ = false;
  int port_ = 0;
  std::vector<HostHeader> allowed_;
  std::string names_;  ///< for the refusal message
};

/// True for the loopback names a server may bind: 127.0.0.1 (and 127.x.y.z), ::1, localhost.
bool is_loopback_bind(const std::string& host);

}  // namespace gpusizer::server
