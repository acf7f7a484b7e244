// Progress line for long commands: drawn on stderr only when stderr is a
// terminal (quiet in pipes and CI), at most a few times a second.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace hmtt {

class ProgressLine {
 public:
  // total = 0 when the amount of work is not known in advance.
  ProgressLine(std::string label, std::uint64_t total, bool enabled);
  explicit ProgressLine(std::string label, std::uint64_t total = 0);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Reports `done` units so far; `detail` is appended (e.g. "12.3 M refs").
  void update(std::uint64_t done, const std::string& detail = {});
  // Clears the line.
  void finish();

  static bool stderr_is_terminal();

 private:
  std::string label_;
  std::uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace hmtt
