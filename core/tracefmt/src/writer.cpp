#include "hmtt/tracefmt/writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "parsers.h"
#include "text.h"

namespace hmtt::tracefmt {
namespace {

using namespace detail;

// Longest line any formatter writes: "0x" + 16 hex + kinds + 3 x 20 decimal digits.
constexpr std::size_t kMaxLine = 160;

// Where written bytes go: a file descriptor or a string.
class ByteOutput {
 public:
  ByteOutput(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  explicit ByteOutput(std::string* s) : str_(s) {}
  ~ByteOutput() {
    if (fd_ >= 0) ::close(fd_);
  }
  ByteOutput(const ByteOutput&) = delete;
  ByteOutput& operator=(const ByteOutput&) = delete;

  Status put(const char* data, std::size_t n) {
    if (str_ != nullptr) {
      str_->append(data, n);
      return Status::success();
    }
    while (n > 0) {
      ssize_t w = ::write(fd_, data, n);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return make_error(name_ + ": write error: " + std::strerror(errno));
      data += w;
      n -= static_cast<std::size_t>(w);
    }
    return Status::success();
  }
  Status close() {
    if (fd_ >= 0) {
      int fd = fd_;
      fd_ = -1;
      if (::close(fd) != 0) return make_error(name_ + ": close error: " + std::strerror(errno));
    }
    return Status::success();
  }

 private:
  int fd_ = -1;
  std::string* str_ = nullptr;
  std::string name_;
};

// A TraceWriter for one text format: Formatter::line() renders one reference
// into a fixed buffer that is flushed when nearly full.
template <class Formatter>
class TextWriter final : public TraceWriter {
 public:
  TextWriter(std::unique_ptr<ByteOutput> out, std::size_t buf_bytes)
      : out_(std::move(out)), buf_(std::make_unique_for_overwrite<char[]>(buf_bytes)), buf_bytes_(buf_bytes) {
    p_ = buf_.get();
    p_ = fmt_.header(p_);
  }

  Format format() const override { return Formatter::kFormat; }
  const WriterCounts& counts() const override { return counts_; }

  Status write(std::span<const Reference> refs) override {
    if (failed_) return make_error("trace writer: write after an error");
    char* const limit = buf_.get() + buf_bytes_ - kMaxLine;
    for (const Reference& r : refs) {
      if (p_ > limit) HMTT_TRY(flush());
      bool normalised = false;
      char* e = fmt_.line(p_, r, normalised);
      if (e == nullptr) {
        failed_ = true;
        return make_error(fmt_.why(counts_.references, r));
      }
      p_ = e;
      ++counts_.references;
      ++counts_.by_kind[static_cast<int>(r.kind)];
      if (normalised) ++counts_.kind_normalised;
    }
    return Status::success();
  }

  Status finish() override {
    HMTT_TRY(flush());
    return out_->close();
  }

 private:
  Status flush() {
    auto n = static_cast<std::size_t>(p_ - buf_.get());
    p_ = buf_.get();
    counts_.bytes += n;
    Status st = out_->put(buf_.get(), n);
    if (!st) failed_ = true;
    return st;
  }

  std::unique_ptr<ByteOutput> out_;
  std::unique_ptr<char[]> buf_;
  std::size_t buf_bytes_;
  char* p_ = nullptr;
  Formatter fmt_;
  WriterCounts counts_;
  bool failed_ = false;
};

// Formatters. line() returns the end of the rendered line, or nullptr when the
// format cannot hold the reference (why() then says so).
struct FormatterBase {
  char* header(char* p) { return p; }
  std::string why(std::uint64_t index, const Reference& r) const {
    return "reference " + std::to_string(index) + " (time " + std::to_string(r.time) + ") cannot be written";
  }
};

struct DinFormatter : FormatterBase {
  static constexpr Format kFormat = Format::Din;
  char* line(char* p, const Reference& r, bool& normalised) {
    static constexpr char labels[] = {'0', '1', '2', '1'};
    normalised = r.kind == Kind::Modify;
    *p++ = labels[static_cast<int>(r.kind) & 3];
    *p++ = ' ';
    p = put_hex(p, r.address);
    *p++ = '\n';
    return p;
  }
};

struct XDinFormatter : FormatterBase {
  static constexpr Format kFormat = Format::XDin;
  char* line(char* p, const Reference& r, bool& normalised) {
    static constexpr char types[] = {'r', 'w', 'i', 'w'};
    normalised = r.kind == Kind::Modify;
    *p++ = types[static_cast<int>(r.kind) & 3];
    *p++ = ' ';
    p = put_hex(p, r.address);
    *p++ = ' ';
    p = put_hex(p, r.size);
    *p++ = '\n';
    return p;
  }
};

struct LackeyFormatter : FormatterBase {
  static constexpr Format kFormat = Format::Lackey;
  char* line(char* p, const Reference& r, bool&) {
    static constexpr std::string_view prefix[] = {" L ", " S ", "I  ", " M "};
    p = put_str(p, prefix[static_cast<int>(r.kind) & 3]);
    p = put_hex_padded(p, r.address, 8);
    *p++ = ',';
    p = put_dec(p, r.size);
    *p++ = '\n';
    return p;
  }
};

struct DramSim3Formatter : FormatterBase {
  static constexpr Format kFormat = Format::DramSim3;
  char* line(char* p, const Reference& r, bool& normalised) {
    normalised = r.kind == Kind::Modify || r.kind == Kind::IFetch;
    p = put_str(p, "0x");
    p = put_hex(p, r.address);
    p = put_str(p, is_write(r.kind) ? " WRITE " : " READ ");
    p = put_dec(p, r.time);
    *p++ = '\n';
    return p;
  }
};

template <bool Relative>
struct StlFormatterT : FormatterBase {
  static constexpr Format kFormat = Relative ? Format::Rstl : Format::Stl;
  std::uint64_t prev = 0;
  char* line(char* p, const Reference& r, bool& normalised) {
    normalised = r.kind == Kind::Modify || r.kind == Kind::IFetch;
    std::uint64_t t = r.time;
    if constexpr (Relative) {
      if (r.time < prev) return nullptr;
      t = r.time - prev;
      prev = r.time;
    }
    p = put_dec(p, t);
    p = put_str(p, ":\t");
    if (r.size != 0) {
      *p++ = '(';
      p = put_dec(p, r.size);
      p = put_str(p, ")\t");
    }
    p = put_str(p, is_write(r.kind) ? "write\t0x" : "read\t0x");
    p = put_hex(p, r.address);
    *p++ = '\n';
    return p;
  }
  std::string why(std::uint64_t index, const Reference& r) const {
    return "reference " + std::to_string(index) + ": time " + std::to_string(r.time) +
           " is before the previous reference's " + std::to_string(prev) + "; .rstl delays cannot be negative";
  }
};

struct CsvFormatter : FormatterBase {
  static constexpr Format kFormat = Format::Csv;
  char* header(char* p) {
    p = put_str(p, kCsvHeader);
    *p++ = '\n';
    return p;
  }
  char* line(char* p, const Reference& r, bool&) {
    p = put_dec(p, r.time);
    p = put_str(p, ",0x");
    p = put_hex(p, r.address);
    *p++ = ',';
    p = put_str(p, kind_name(r.kind));
    *p++ = ',';
    p = put_dec(p, r.size);
    *p++ = ',';
    p = put_str(p, origin_name(r.origin));
    *p++ = ',';
    p = put_dec(p, r.source);
    *p++ = '\n';
    return p;
  }
};

std::unique_ptr<TraceWriter> make_writer(std::unique_ptr<ByteOutput> out, Format format, std::size_t buf) {
  switch (format) {
    case Format::Din: return std::make_unique<TextWriter<DinFormatter>>(std::move(out), buf);
    case Format::XDin: return std::make_unique<TextWriter<XDinFormatter>>(std::move(out), buf);
    case Format::Lackey: return std::make_unique<TextWriter<LackeyFormatter>>(std::move(out), buf);
    case Format::DramSim3: return std::make_unique<TextWriter<DramSim3Formatter>>(std::move(out), buf);
    case Format::Stl: return std::make_unique<TextWriter<StlFormatterT<false>>>(std::move(out), buf);
    case Format::Rstl: return std::make_unique<TextWriter<StlFormatterT<true>>>(std::move(out), buf);
    case Format::Csv: return std::make_unique<TextWriter<CsvFormatter>>(std::move(out), buf);
    case Format::Auto:
    case Format::Store: break;
  }
  return nullptr;
}

}  // namespace

Result<std::unique_ptr<TraceWriter>> open_writer(const std::string& path, Format format,
                                                 const WriterOptions& options) {
  if (format == Format::Auto) format = format_from_extension(path);
  if (format == Format::Auto)
    return make_error(path + ": cannot tell the output format from the name (give --format: " + format_names(false) + ")");
  if (format == Format::Store)
    return make_error(path + ": an hmtt store is written by `hmtt import`, not by a trace writer");
  if (path == "-") {  // standard output (a copy of it, which the writer closes)
    const int out = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (out < 0) return make_error(std::string("standard output: cannot use it: ") + std::strerror(errno));
    return make_writer(std::make_unique<ByteOutput>(out, "standard output"), format, 1u << 20);
  }
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (options.overwrite ? O_TRUNC : O_EXCL);
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) {
    if (errno == EEXIST) return make_error(path + ": already exists (use --overwrite to replace it)");
    return make_error(path + ": cannot create: " + std::strerror(errno));
  }
  return make_writer(std::make_unique<ByteOutput>(fd, path), format, 1u << 20);
}

Reference round_trip_of(Format format, Reference r) {
  if (format == Format::Csv || format == Format::Store || format == Format::Auto) return r;
  r.origin = Origin::Unknown;
  r.source = 0;
  switch (format) {
    case Format::Din:
      if (r.kind == Kind::Modify) r.kind = Kind::Write;
      r.size = 4;
      break;
    case Format::XDin:
      if (r.kind == Kind::Modify) r.kind = Kind::Write;
      break;
    case Format::DramSim3:
      r.size = 0;
      [[fallthrough]];
    case Format::Stl:
    case Format::Rstl:
      r.kind = is_write(r.kind) ? Kind::Write : Kind::Read;
      break;
    default:
      break;
  }
  return r;
}

std::unique_ptr<TraceWriter> writer_to_string(std::string* out, Format format) {
  return make_writer(std::make_unique<ByteOutput>(out), format, 4096);
}

}  // namespace hmtt::tracefmt
