// Fuzz harness for the METRIC compressed-trace decoder: parse (all header,
// record and cross-record checks), then expand at most 1<<16 events (merge
// coverage checks and, for short traces, the checksum). Any input must give
// a value or a clear error, never a crash, hang or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "hmtt/metric/cache_analysis.h"
#include "hmtt/metric/expander.h"
#include "hmtt/metric/format.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hmtt::metric;
  auto t = CompressedTrace::parse(std::vector<std::uint8_t>(data, data + size), "fuzz.mtrc");
  if (!t.ok()) return 0;
  ExpandedSource ex(std::make_shared<const CompressedTrace>(std::move(*t)));
  auto ca = ReferenceCacheAnalysis::create(CacheGeometry{1024, 2, 32});
  std::vector<hmtt::Reference> refs(1024);
  std::vector<std::uint32_t> pts(1024);
  std::size_t total = 0;
  while (total < (1u << 16)) {
    auto n = ex.read_pointed(refs, pts);
    if (!n.ok() || *n == 0) break;
    // the cache simulates every line a reference spans; keep mutated sizes cheap
    for (std::size_t i = 0; i < *n; ++i)
      if (refs[i].size <= 4096) ca->process(refs[i], pts[i]);
    total += *n;
  }
  (void)ca->text_report();
  return 0;
}
