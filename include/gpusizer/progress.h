#pragma once
// A progress line for long batches on stderr: only when stderr is a terminal (the caller decides),
// redrawn in place at most five times a second, after the first second, and cleared at the end.
#include <chrono>
#include <cstddef>
#include <string>

namespace gpusizer {

/// "1,200/100,000 lines  350/s  4m 42s left": items done of total, the mean rate so far and the
/// time the rest takes at that rate. Pure, for tests.
std::string format_progress(size_t done, size_t total, double elapsed_s, const std::string& unit);

class ProgressLine {
 public:
  /// `show`: whether to draw at all (isatty(STDERR_FILENO) in the command).
  ProgressLine(size_t total, std::string unit, bool show);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  /// `done` items are finished.
  void update(size_t done);
  /// Clears the line (also done by the destructor).
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  size_t total_;
  std::string unit_;
  bool show_;
  bool drawn_ = false;
  Clock::time_point start_, last_;
};

}  // namespace gpusizer
