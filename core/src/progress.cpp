#include "hmtt/progress.h"

#include <unistd.h>

#include <cstdio>

namespace hmtt {

ProgressLine::ProgressLine(std::string label, std::uint64_t total, bool enabled)
    : label_(std::move(label)),
      total_(total),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

ProgressLine::ProgressLine(std::string label, std::uint64_t total)
    : ProgressLine(std::move(label), total, stderr_is_terminal()) {}

ProgressLine::~ProgressLine() { finish(); }

bool ProgressLine::stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

void ProgressLine::update(std::uint64_t done, const std::string& detail) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  drawn_ = true;
  double secs = std::chrono::duration<double>(now - start_).count();
  if (total_ > 0) {
    double frac = static_cast<double>(done) / static_cast<double>(total_);
    if (frac > 1.0) frac = 1.0;
    int width = 30;
    int fill = static_cast<int>(frac * width);
    std::string bar(static_cast<std::size_t>(fill), '#');
    bar.resize(static_cast<std::size_t>(width), '.');
    std::fprintf(stderr, "\r\033[K%s [%s] %5.1f%% %s %.0fs", label_.c_str(), bar.c_str(), frac * 100.0,
                 detail.c_str(), secs);
  } else {
    std::fprintf(stderr, "\r\033[K%s %s %.0fs", label_.c_str(), detail.c_str(), secs);
  }
  std::fflush(stderr);
}

void ProgressLine::finish() {
  if (enabled_ && drawn_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
  drawn_ = false;
}

}  // namespace hmtt
