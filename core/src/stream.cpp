#include "hmtt/stream.h"

namespace hmtt {

Result<std::uint64_t> pump(ReferenceSource& source, ReferenceSink& sink, std::size_t batch) {
  std::vector<Reference> buf(batch == 0 ? 1 : batch);
  std::uint64_t total = 0;
  for (;;) {
    auto n = source.read(buf);
    if (!n) return n.error();
    if (*n == 0) break;
    auto st = sink.write(std::span<const Reference>(buf.data(), *n));
    if (!st) return st.error();
    total += *n;
  }
  auto st = sink.finish();
  if (!st) return st.error();
  return total;
}

Result<std::vector<Reference>> collect(ReferenceSource& source) {
  std::vector<Reference> all;
  std::vector<Reference> buf(4096);
  for (;;) {
    auto n = source.read(buf);
    if (!n) return n.error();
    if (*n == 0) break;
    all.insert(all.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(*n));
  }
  return all;
}

}  // namespace hmtt
