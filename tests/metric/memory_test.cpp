// Memory bounded independently of the trace length (issue 11): the heap in
// use while compressing (output discarded) and while expanding is measured
// with a counting global operator new, for short and 16x longer streams.
// Its own executable, because it replaces the global allocator.
#include <doctest/doctest.h>

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "hmtt/metric/compressor.h"
#include "hmtt/metric/expander.h"
#include "hmtt/metric/kernels.h"

namespace {
std::atomic<long long> g_live{0};
std::atomic<long long> g_peak{0};
}  // namespace

// The replacement allocator pairs malloc/free with new/delete on purpose.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void* operator new(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  const long long live = g_live += static_cast<long long>(malloc_usable_size(p));
  long long peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return p;
}
void operator delete(void* p) noexcept {
  if (!p) return;
  g_live -= static_cast<long long>(malloc_usable_size(p));
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

using namespace hmtt;
using namespace hmtt::metric;

namespace {

// Counts bytes, keeps none: the compressor's own memory is what is measured.
class DiscardSink final : public ByteSink {
 public:
  Status write(std::span<const std::uint8_t> b) override {
    bytes += b.size();
    return Status::success();
  }
  std::uint64_t bytes = 0;
};

// An irregular stream generated on the fly (no vector): most events become IADs.
class NoiseSource final : public PointedSource {
 public:
  explicit NoiseSource(std::uint64_t n) : n_(n) {}
  Result<std::size_t> read_pointed(std::span<Reference> r, std::span<std::uint32_t> p) override {
    std::size_t k = 0;
    while (k < r.size() && i_ < n_) {
      x_ = x_ * 6364136223846793005ull + 1442695040888963407ull;
      const bool run = (x_ >> 60) < 6;  // some short strided runs among the noise
      addr_ = run ? addr_ + 8 : (x_ >> 20);
      r[k] = Reference{i_, addr_, 8, (x_ >> 40) % 3 == 0 ? Kind::Write : Kind::Read, Origin::Cpu, 0};
      p[k] = static_cast<std::uint32_t>((x_ >> 50) % 3);
      ++k;
      ++i_;
    }
    return k;
  }
  const std::vector<ReferencePoint>& points() const override { return table_; }

 private:
  std::uint64_t n_, i_ = 0, x_ = 1, addr_ = 0;
  std::vector<ReferencePoint> table_{{"a", "", 0, ""}, {"b", "", 0, ""}, {"c", "", 0, ""}};
};

template <typename MakeSource>
long long compress_peak(MakeSource make) {
  auto src = make();
  DiscardSink sink;
  const long long before = g_live.load();
  g_peak = before;
  auto st = compress(*src, sink);
  REQUIRE(st.ok());
  return g_peak.load() - before;
}

long long expand_peak(KernelOptions ko) {
  KernelSource src(ko);
  MemoryByteSink sink;
  REQUIRE(compress(src, sink).ok());
  auto t = CompressedTrace::parse(sink.take(), "k.mtrc");
  REQUIRE(t.ok());
  auto shared = std::make_shared<const CompressedTrace>(std::move(*t));
  const long long before = g_live.load();
  g_peak = before;
  ExpandedSource ex(shared);
  std::vector<Reference> r(4096);
  std::vector<std::uint32_t> p(4096);
  std::uint64_t total = 0;
  for (;;) {
    auto n = ex.read_pointed(r, p);
    REQUIRE(n.ok());
    if (*n == 0) break;
    total += *n;
  }
  CHECK(total == ko.events);
  return g_peak.load() - before;
}

}  // namespace

TEST_CASE("compressor heap does not grow with the trace length") {
  for (auto id : {KernelId::Mm, KernelId::MmTiled, KernelId::AdiFused}) {
    CAPTURE(kernel_name(id));
    auto make = [id](std::uint64_t events) {
      return [id, events] {
        KernelOptions ko;
        ko.id = id;
        ko.events = events;
        return std::make_unique<KernelSource>(ko);
      };
    };
    const long long short_run = compress_peak(make(250000));
    const long long long_run = compress_peak(make(4000000));
    MESSAGE(kernel_name(id) << ": peak heap " << short_run << " B at 250k events, " << long_run << " B at 4M");
    CHECK(long_run <= short_run + 1024);
    CHECK(long_run < 512 * 1024);
  }
  const long long short_noise = compress_peak([] { return std::make_unique<NoiseSource>(200000); });
  const long long long_noise = compress_peak([] { return std::make_unique<NoiseSource>(3200000); });
  MESSAGE("irregular stream: peak heap " << short_noise << " B at 200k events, " << long_noise << " B at 3.2M");
  CHECK(long_noise <= short_noise + 1024);
  CHECK(long_noise < 512 * 1024);
}

TEST_CASE("expanding a regular trace needs no memory in proportion to its length") {
  for (auto id : {KernelId::Mm, KernelId::AdiFused}) {
    CAPTURE(kernel_name(id));
    KernelOptions ko;
    ko.id = id;
    ko.events = 250000;
    const long long short_run = expand_peak(ko);
    ko.events = 4000000;
    const long long long_run = expand_peak(ko);
    MESSAGE(kernel_name(id) << ": expansion peak heap " << short_run << " B at 250k, " << long_run << " B at 4M");
    CHECK(long_run <= short_run + 1024);
  }
}
