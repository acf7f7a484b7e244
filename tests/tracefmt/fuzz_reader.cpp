// Fuzz harness for one trace-file importer (HMTT_FUZZ_FORMAT names the
// format). Any input must either parse or stop with a "fuzz:LINE: reason"
// error; what parses must survive writing and re-reading in the same format
// modulo the documented normalisation, and the rewritten text must be a fixed
// point. Content detection runs on every input too.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "hmtt/tracefmt/format.h"
#include "hmtt/tracefmt/reader.h"
#include "hmtt/tracefmt/writer.h"

using namespace hmtt;
using namespace hmtt::tracefmt;

namespace {

constexpr Format kFormat = Format::HMTT_FUZZ_FORMAT;

[[noreturn]] void die(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "fuzz_%s: %s %s\n", std::string(format_name(kFormat)).c_str(), what, detail.c_str());
  std::abort();
}

bool read_all(std::string_view bytes, std::vector<Reference>& refs, std::string& error) {
  auto reader = reader_from_memory(bytes, "fuzz", kFormat);
  std::vector<Reference> buf(64);
  for (;;) {
    auto n = reader->read(buf);
    if (!n) {
      error = n.error().message;
      return false;
    }
    if (*n == 0) return true;
    refs.insert(refs.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(*n));
  }
}

std::string render(const std::vector<Reference>& refs) {
  std::string out;
  auto w = writer_to_string(&out, kFormat);
  if (!w->write(refs).ok() || !w->finish().ok()) die("writer refused references its reader produced");
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)format_from_content(bytes);
  std::vector<Reference> refs;
  std::string error;
  if (!read_all(bytes, refs, error)) {
    if (error.rfind("fuzz:", 0) != 0) die("error message does not name the input:", error);
    // The references before the bad line still round-trip below.
  }
  std::string text = render(refs);
  std::vector<Reference> back;
  if (!read_all(text, back, error)) die("re-reading written text failed:", error);
  if (back.size() != refs.size()) die("reference count changed in a round trip");
  for (std::size_t i = 0; i < refs.size(); ++i) {
    Reference want = round_trip_of(kFormat, refs[i]);
    if (!carries_time(kFormat)) want.time = i;
    if (!(back[i] == want)) die("reference changed in a round trip at index", std::to_string(i));
  }
  if (render(back) != text) die("written text is not a fixed point");
  return 0;
}
