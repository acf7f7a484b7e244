#include "hmtt/metric/lackey_source.h"

#include <cerrno>
#include <cstring>

namespace hmtt::metric {

Result<std::unique_ptr<LackeySource>> LackeySource::open(const std::string& path, bool with_ifetch) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return make_error(path + ": cannot open: " + std::strerror(errno));
  return std::unique_ptr<LackeySource>(new LackeySource(f, path, with_ifetch));
}

LackeySource::~LackeySource() {
  if (f_) std::fclose(f_);
}

Result<std::size_t> LackeySource::read(std::span<Reference> out) {
  if (failed_) return make_error(error_);
  std::size_t n = 0;
  char buf[256];
  while (n < out.size() && std::fgets(buf, sizeof buf, f_)) {
    ++line_;
    const std::size_t len = std::strlen(buf);
    if (len == sizeof buf - 1 && buf[len - 1] != '\n') {
      failed_ = true;
      error_ = path_ + ":" + std::to_string(line_) + ": line longer than 254 characters";
      return make_error(error_);
    }
    if (buf[0] == '=' || buf[0] == '-' || buf[0] == '\n' || buf[0] == '\0') continue;
    Kind kind;
    const char* p = buf;
    if (p[0] == 'I' && p[1] == ' ') {
      kind = Kind::IFetch;
    } else if (p[0] == ' ' && (p[1] == 'L' || p[1] == 'S' || p[1] == 'M')) {
      kind = p[1] == 'L' ? Kind::Read : p[1] == 'S' ? Kind::Write : Kind::Modify;
    } else {
      failed_ = true;
      error_ = path_ + ":" + std::to_string(line_) + ": not a lackey trace line (expected 'I', ' L', ' S' or ' M')";
      return make_error(error_);
    }
    p += 2;
    while (*p == ' ') ++p;
    char* end = nullptr;
    errno = 0;
    const unsigned long long addr = std::strtoull(p, &end, 16);
    if (end == p || *end != ',' || errno != 0) {
      failed_ = true;
      error_ = path_ + ":" + std::to_string(line_) + ": bad address field";
      return make_error(error_);
    }
    p = end + 1;
    const unsigned long size = std::strtoul(p, &end, 10);
    if (end == p || (*end != '\n' && *end != '\0' && *end != '\r') || size > UINT32_MAX) {
      failed_ = true;
      error_ = path_ + ":" + std::to_string(line_) + ": bad size field";
      return make_error(error_);
    }
    if (kind == Kind::IFetch && !ifetch_) continue;
    out[n++] = Reference{count_++, addr, static_cast<std::uint32_t>(size), kind, Origin::Cpu, 0};
  }
  if (n == 0 && std::ferror(f_)) return make_error(path_ + ": read failed");
  return n;
}

}  // namespace hmtt::metric
