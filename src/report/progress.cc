#include "gpusizer/progress.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>

namespace gpusizer {
namespace {

// 1234567 -> "1,234,567".
std::string grouped(size_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string duration(double s) {
  const auto total = static_cast<long long>(std::ceil(s));
  if (total < 60) return fmt::format("{}s", total);
  if (total < 3600) return fmt::format("{}m {:02}s", total / 60, total % 60);
  return fmt::format("{}h {:02}m", total / 3600, (total % 3600) / 60);
}

}  // namespace

std::string format_progress(size_t done, size_t total, double elapsed_s, const std::string& unit) {
  std::string out = fmt::format("{}/{} {}", grouped(done), grouped(total), unit);
  if (elapsed_s <= 0 || done == 0) return out;
  const double rate = static_cast<double>(done) / elapsed_s;
  out += fmt::format("  {}/s", rate >= 10 ? grouped(static_cast<size_t>(std::llround(rate)))
                                          : fmt::format("{:.1f}", rate));
  if (done < total) out += "  " + duration(static_cast<double>(total - done) / rate) + " left";
  return out;
}

ProgressLine::ProgressLine(size_t total, std::string unit, bool show)
    : total_(total), unit_(std::move(unit)), show_(show), start_(Clock::now()), last_(start_) {}

ProgressLine::~ProgressLine() {
  finish();
}

void ProgressLine::update(size_t done) {
  if (!show_) return;
  const auto now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < 1.0 || (drawn_ && now - last_ < std::chrono::milliseconds(200))) return;
  last_ = now;
  drawn_ = true;
  // \r back to the start of the line, \x1b[K erases what a longer previous line left.
  std::fprintf(stderr, "\r%s\x1b[K", format_progress(done, total_, elapsed, unit_).c_str());
  std::fflush(stderr);
}

void ProgressLine::finish() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace gpusizer
