#include "line_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hmtt::tracefmt::detail {

Result<std::unique_ptr<LineInput>> LineInput::open(const std::string& path, std::size_t buffer_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    int e = S_ISDIR(st.st_mode) ? EISDIR : errno;
    ::close(fd);
    return make_error(path + ": cannot read: " + std::strerror(e));
  }
#ifdef POSIX_FADV_SEQUENTIAL
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  std::unique_ptr<LineInput> in(new LineInput());
  in->fd_ = fd;
  in->cap_ = buffer_bytes < 4096 ? 4096 : buffer_bytes;
  in->buf_ = std::make_unique<char[]>(in->cap_);
  in->pos_ = in->end_ = in->buf_.get();
  in->total_ = S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_size) : 0;
  return in;
}

std::unique_ptr<LineInput> LineInput::memory(std::string_view bytes) {
  std::unique_ptr<LineInput> in(new LineInput());
  in->pos_ = bytes.data();
  in->end_ = bytes.data() + bytes.size();
  in->eof_ = true;
  in->total_ = bytes.size();
  return in;
}

LineInput::~LineInput() {
  if (fd_ >= 0) ::close(fd_);
}

bool LineInput::refill() {
  auto rem = static_cast<std::size_t>(end_ - pos_);
  if (rem == cap_) {
    error_ = "line longer than " + std::to_string(cap_) + " bytes";
    return false;
  }
  char* base = buf_.get();
  if (rem > 0 && pos_ != base) std::memmove(base, pos_, rem);
  pos_ = base;
  end_ = base + rem;
  for (;;) {
    ssize_t n = ::read(fd_, base + rem, cap_ - rem);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error_ = std::string("read error: ") + std::strerror(errno);
      return false;
    }
    if (n == 0) eof_ = true;
    end_ = base + rem + n;
    return true;
  }
}

}  // namespace hmtt::tracefmt::detail
