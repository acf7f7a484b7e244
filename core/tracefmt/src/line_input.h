// LineInput: the lines of a file (or of bytes in memory) through one buffer of
// fixed size, so that a trace of any length is read in bounded memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "hmtt/result.h"

namespace hmtt::tracefmt::detail {

class LineInput {
 public:
  // Opens `path` for reading; the buffer also bounds the longest line.
  static Result<std::unique_ptr<LineInput>> open(const std::string& path, std::size_t buffer_bytes);
  // Serves `bytes` (which must outlive the input) without copying.
  static std::unique_ptr<LineInput> memory(std::string_view bytes);

  ~LineInput();
  LineInput(const LineInput&) = delete;
  LineInput& operator=(const LineInput&) = delete;

  // The next line, without its "\n" (or "\r\n"). Returns false at the end of
  // the input or on an error; failed() tells which, error() says why.
  bool next(std::string_view& line) {
    for (;;) {
      const auto* nl = static_cast<const char*>(
          pos_ < end_ ? __builtin_memchr(pos_, '\n', static_cast<std::size_t>(end_ - pos_)) : nullptr);
      if (nl != nullptr) {
        line = trim_cr(std::string_view(pos_, static_cast<std::size_t>(nl - pos_)));
        consumed_ += static_cast<std::uint64_t>(nl + 1 - pos_);
        pos_ = nl + 1;
        return true;
      }
      if (eof_) {
        if (pos_ == end_) return false;
        line = trim_cr(std::string_view(pos_, static_cast<std::size_t>(end_ - pos_)));
        consumed_ += static_cast<std::uint64_t>(end_ - pos_);
        pos_ = end_;
        return true;
      }
      if (!refill()) return false;
    }
  }

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  std::uint64_t bytes_read() const { return consumed_; }
  std::uint64_t total_bytes() const { return total_; }

 private:
  LineInput() = default;
  static std::string_view trim_cr(std::string_view s) {
    if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
    return s;
  }
  bool refill();

  int fd_ = -1;
  std::unique_ptr<char[]> buf_;
  std::size_t cap_ = 0;
  const char* pos_ = nullptr;
  const char* end_ = nullptr;
  bool eof_ = false;
  std::uint64_t consumed_ = 0;
  std::uint64_t total_ = 0;
  std::string error_;
};

}  // namespace hmtt::tracefmt::detail
