#pragma once
// The byte layout fuzz_http reads a request from, shared with the regression test:
//   METHOD\nPATH\nName: value\n...\n\nBODY
#include <string>
#include <string_view>

#include "server/server.h"

namespace gpusizer::fuzz {

inline std::string_view next_line(std::string_view& rest) {
  const size_t end = rest.find('\n');
  const std::string_view line = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  return line;
}

inline server::HttpRequest http_request_from_bytes(std::string_view rest) {
  server::HttpRequest req;
  req.method = std::string(next_line(rest));
  req.path = std::string(next_line(rest));
  while (!rest.empty()) {
    const std::string_view line = next_line(rest);
    if (line.empty()) break;
    const size_t colon = line.find(':');
    std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    req.headers.emplace_back(std::string(line.substr(0, colon)), std::string(value));
  }
  req.body = std::string(rest);
  return req;
}

}  // namespace gpusizer::fuzz
