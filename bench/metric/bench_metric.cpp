// METRIC throughput, as ratios against the cost of producing the stream.
//
//   bench_metric [EVENTS]   (default 4,000,000 per kernel)
//
// Baseline: pulling the kernel's reference stream dry (generation only). For
// each kernel it prints the time to compress (generation + compression), to
// expand the compressed trace (parse + lazy expansion + checksum), and to run
// the cache analysis on the expansion vs on the raw stream, each divided by
// the baseline, plus the compression ratio.
#include <chrono>
#include <cstdio>
#include <string>

#include "hmtt/metric/metric.h"

using namespace hmtt;
using namespace hmtt::metric;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Result<std::uint64_t> drain(PointedSource& s) {
  std::vector<Reference> r(4096);
  std::vector<std::uint32_t> p(4096);
  std::uint64_t n = 0, sink = 0;
  for (;;) {
    auto k = s.read_pointed(r, p);
    if (!k) return k.error();
    if (*k == 0) break;
    for (std::size_t i = 0; i < *k; ++i) sink += r[i].address ^ p[i];
    n += *k;
  }
  return n + (sink & 0);
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t events = argc > 1 ? std::stoull(argv[1]) : 4000000;
  std::printf("%-17s %10s %9s %10s %10s %12s %12s %10s\n", "kernel", "events", "base s", "compress", "expand",
              "cache(raw)", "cache(exp)", "ratio");
  for (const auto& name : kernel_names()) {
    KernelOptions ko;
    ko.id = *kernel_by_name(name);
    ko.events = events;
    auto t0 = std::chrono::steady_clock::now();
    KernelSource gen(ko);
    auto n = drain(gen);
    const double base = seconds_since(t0);
    if (!n) return std::fprintf(stderr, "%s\n", n.error().message.c_str()), 1;

    t0 = std::chrono::steady_clock::now();
    KernelSource src(ko);
    MemoryByteSink sink;
    auto st = compress(src, sink);
    const double comp = seconds_since(t0);
    if (!st) return std::fprintf(stderr, "%s\n", st.error().message.c_str()), 1;

    t0 = std::chrono::steady_clock::now();
    auto trace = CompressedTrace::parse(sink.take(), name);
    if (!trace) return std::fprintf(stderr, "%s\n", trace.error().message.c_str()), 1;
    auto shared = std::make_shared<const CompressedTrace>(std::move(*trace));
    ExpandedSource ex(shared);
    auto m = drain(ex);
    const double exp = seconds_since(t0);
    if (!m || *m != *n) return std::fprintf(stderr, "expansion failed\n"), 1;

    t0 = std::chrono::steady_clock::now();
    KernelSource raw(ko);
    auto ca1 = ReferenceCacheAnalysis::create(CacheGeometry{});
    if (!ca1->run(raw).ok()) return 1;
    const double cache_raw = seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    ExpandedSource ex2(shared);
    auto ca2 = ReferenceCacheAnalysis::create(CacheGeometry{});
    if (!ca2->run(ex2).ok()) return 1;
    const double cache_exp = seconds_since(t0);

    std::printf("%-17s %10llu %9.3f %9.2fx %9.2fx %11.2fx %11.2fx %9.0fx\n", name.c_str(),
                static_cast<unsigned long long>(*n), base, comp / base, exp / base, cache_raw / base, cache_exp / base,
                st->ratio());
  }
  return 0;
}
