// METRIC throughput, as ratios against the cost of producing the stream.
//
//   bench_metric [EVENTS] [--json]   (default 4,000,000 per kernel; --json: one object per kernel)
//
// Baseline: pulling the kernel's reference stream dry (generation only). For
// each kernel it prints the time to compress (generation + compression), to
// expand the compressed trace (parse + lazy expansion + checksum), and to run
// the cache analysis on the expansion vs on the raw stream, each divided by
// the baseline, plus the compression ratio.
#include <chrono>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "hmtt/metric/metric.h"
#include "json_figures.h"

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
  CLI::App app{
      "METRIC compression, expansion and cache analysis of each built-in kernel's stream, as ratios to the time "
      "to generate the stream alone, plus the compression ratio."};
  std::uint64_t events = 4000000;
  bool json = false;
  app.add_option("EVENTS", events, "memory events per kernel")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 34));
  app.add_flag("--json", json, "print one JSON object per kernel (JSON Lines; the table goes to stderr)");
  CLI11_PARSE(app, argc, argv);
  std::FILE* out = json ? stderr : stdout;
  std::fprintf(out, "%-17s %10s %9s %10s %10s %12s %12s %10s\n", "kernel", "events", "base s", "compress", "expand",
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
    if (auto r = ca1->run(raw); !r.ok()) return std::fprintf(stderr, "%s\n", r.error().message.c_str()), 1;
    const double cache_raw = seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    ExpandedSource ex2(shared);
    auto ca2 = ReferenceCacheAnalysis::create(CacheGeometry{});
    if (auto r = ca2->run(ex2); !r.ok()) return std::fprintf(stderr, "%s\n", r.error().message.c_str()), 1;
    const double cache_exp = seconds_since(t0);

    if (json) {
      hmtt::bench::JsonFigures row;
      row.text("kernel", name);
      row.integer("events", *n);
      row.number("base_s", base);
      row.number("compress_over_base", comp / base);
      row.number("expand_over_base", exp / base);
      row.number("cache_raw_over_base", cache_raw / base);
      row.number("cache_expanded_over_base", cache_exp / base);
      row.number("compression_ratio", st->ratio());
      row.print();
    }
    std::fprintf(out, "%-17s %10llu %9.3f %9.2fx %9.2fx %11.2fx %11.2fx %9.0fx\n", name.c_str(),
                static_cast<unsigned long long>(*n), base, comp / base, exp / base, cache_raw / base, cache_exp / base,
                st->ratio());
  }
  return 0;
}
