#include "hmtt/tracefmt/format.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "parsers.h"

namespace hmtt::tracefmt {

std::string_view format_name(Format f) {
  switch (f) {
    case Format::Auto: return "auto";
    case Format::Din: return "din";
    case Format::XDin: return "xdin";
    case Format::Lackey: return "lackey";
    case Format::DramSim3: return "dramsim3";
    case Format::Stl: return "stl";
    case Format::Rstl: return "rstl";
    case Format::Csv: return "csv";
    case Format::Store: return "hmtt";
  }
  return "?";
}

Result<Format> parse_format(std::string_view name) {
  if (name == "auto") return Format::Auto;
  if (name == "store") return Format::Store;
  for (Format f : kAllFormats)
    if (format_name(f) == name) return f;
  return make_error("unknown trace format '" + std::string(name) + "' (known: " + format_names() + ")");
}

std::string format_names(bool with_store) {
  std::string s;
  for (Format f : kAllFormats) {
    if (f == Format::Store && !with_store) continue;
    if (!s.empty()) s += ", ";
    s += format_name(f);
  }
  return s;
}

Format format_from_extension(std::string_view path) {
  auto slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  auto dot = base.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return Format::Auto;
  std::string ext(base.substr(dot + 1));
  for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (ext == "din") return Format::Din;
  if (ext == "xdin") return Format::XDin;
  if (ext == "lackey") return Format::Lackey;
  if (ext == "stl") return Format::Stl;
  if (ext == "rstl") return Format::Rstl;
  if (ext == "csv") return Format::Csv;
  if (ext == "hmtt") return Format::Store;
  return Format::Auto;  // .trace, .trc, .txt, .log ... could be several formats
}

namespace {

// True if the first records of `head` (up to 32 of them) all parse as `Parser`
// and at least one reference is among them.
template <class Parser>
bool accepts(std::string_view head, bool head_is_whole_file) {
  Parser parser;
  Reference r;
  std::string why;
  int references = 0;
  int records = 0;
  while (!head.empty() && records < 32) {
    auto nl = head.find('\n');
    if (nl == std::string_view::npos && !head_is_whole_file) break;  // a cut line proves nothing
    std::string_view line = head.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    head.remove_prefix(nl == std::string_view::npos ? head.size() : nl + 1);
    switch (parser.parse(line, r, why)) {
      case detail::LineKind::Error: return false;
      case detail::LineKind::Reference: ++references; ++records; break;
      case detail::LineKind::SkippedRecord: ++records; break;
      case detail::LineKind::Ignored: break;
    }
  }
  return references > 0;
}

constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};

Format detect_in(std::string_view head, bool whole) {
  if (head.substr(0, kSqliteMagic.size()) == kSqliteMagic) return Format::Store;
  if (accepts<detail::CsvParser>(head, whole)) return Format::Csv;
  if (accepts<detail::LackeyParser>(head, whole)) return Format::Lackey;
  if (accepts<detail::StlParser>(head, whole)) return Format::Stl;
  if (accepts<detail::DramSim3Parser>(head, whole)) return Format::DramSim3;
  if (accepts<detail::XDinParser>(head, whole)) return Format::XDin;
  if (accepts<detail::DinParser>(head, whole)) return Format::Din;
  return Format::Auto;
}

}  // namespace

Format format_from_content(std::string_view head) { return detect_in(head, true); }

Result<Format> detect_format(const std::string& path) {
  Format f = format_from_extension(path);
  if (f != Format::Auto) return f;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(path + ": cannot open: " + std::strerror(errno));
  std::string head(64 * 1024, '\0');
  std::size_t got = 0;
  while (got < head.size()) {
    ssize_t n = ::read(fd, head.data() + got, head.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return make_error(path + ": cannot read: " + std::strerror(e));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  bool whole = got < head.size();
  head.resize(got);
  f = detect_in(head, whole);
  if (f == Format::Auto)
    return make_error(path + ": cannot tell the trace format from its name or its first lines (give --format: " +
                      format_names() + ")");
  return f;
}

}  // namespace hmtt::tracefmt
