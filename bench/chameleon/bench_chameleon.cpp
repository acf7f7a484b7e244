// Chameleon signature capture: size and slowdown against plain cache simulation.
//
//   bench_chameleon [TRACE | demo:N]   (default demo:4000000)
//
// The trace is read into memory once; every timing below runs over that
// vector, so file parsing is outside all of them. Printed:
//   base       pulling the references through a loop (the floor)
//   lru512     the paper's baseline: 17 fully-associative LRU caches of 512 B
//              blocks (one exact stack-distance pass, analysis::LruStackDistance)
//   psnap      the ten PSnAP Table 1 hierarchies (set-associative, per level)
//   signature  the Chameleon tracer (stack distance + access-history trees)
//   sig+psnap  both in one pass (the paper's Table 3 "Signature+Caches")
// each as seconds and as a ratio to lru512 and to psnap, plus the signature's
// size: JSON bytes, the paper's count of numbers, and bytes per reference of
// the trace it describes.
#include <chrono>
#include <cstdio>
#include <string>

#include "hmtt/analysis/demo_workload.h"
#include "hmtt/analysis/hierarchy.h"
#include "hmtt/chameleon/chameleon.h"
#include "hmtt/tracefmt/reader.h"

using namespace hmtt;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string spec = argc > 1 ? argv[1] : "demo:4000000";
  std::vector<Reference> trace;
  if (spec.rfind("demo:", 0) == 0) {
    analysis::DemoWorkloadKnobs k;
    k.references = std::stoull(spec.substr(5));
    analysis::DemoWorkload w(k);
    auto v = collect(w);
    if (!v) return std::fprintf(stderr, "%s\n", v.error().message.c_str()), 1;
    trace = std::move(*v);
  } else {
    auto src = tracefmt::open_trace(spec);
    if (!src) return std::fprintf(stderr, "%s\n", src.error().message.c_str()), 1;
    auto v = collect(**src);
    if (!v) return std::fprintf(stderr, "%s\n", v.error().message.c_str()), 1;
    trace = std::move(*v);
  }
  auto t0 = std::chrono::steady_clock::now();
  std::uint64_t sink = 0;
  for (const auto& r : trace) sink += r.address;
  const double base = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  analysis::LruStackDistance lru(512);
  analysis::ReuseHistogram hist;
  for (const auto& r : trace) hist.add(lru.access(r.address));
  const double lru_s = seconds_since(t0);

  auto psnap = analysis::HierarchySimulator::create(analysis::psnap_hierarchies());
  if (!psnap) return std::fprintf(stderr, "%s\n", psnap.error().message.c_str()), 1;
  t0 = std::chrono::steady_clock::now();
  psnap->access(trace);
  const double psnap_s = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  chameleon::TracerOptions options;
  options.shape.age_bins = 12;    // the profiler's defaults
  options.shape.line_bytes = 32;  // (line distances at 32, 64, 128 and 256 B)
  chameleon::SignatureTracer tracer(options);
  tracer.access(trace);
  tracer.finish();
  const double sig_s = seconds_since(t0);

  auto psnap2 = analysis::HierarchySimulator::create(analysis::psnap_hierarchies());
  t0 = std::chrono::steady_clock::now();
  chameleon::SignatureTracer tracer2(options);
  for (const auto& r : trace) {
    tracer2.access(r);
    psnap2->access(r);
  }
  tracer2.finish();
  const double both_s = seconds_since(t0);

  const std::string json = tracer.signature().to_json().dump(1);
  std::printf("trace %s: %zu references (checksum %llu)\n", spec.c_str(), trace.size(),
              static_cast<unsigned long long>(sink & 0xff));
  std::printf("%-10s %9s %10s %10s\n", "pass", "seconds", "x lru512", "x psnap");
  auto row = [&](const char* name, double s) { std::printf("%-10s %9.3f %10.2f %10.2f\n", name, s, s / lru_s, s / psnap_s); };
  row("base", base);
  row("lru512", lru_s);
  row("psnap", psnap_s);
  row("signature", sig_s);
  row("sig+psnap", both_s);
  const auto shape = tracer.signature().shape;
  std::printf("signature: %zu JSON bytes (%.4f bytes per reference); %zu numbers in the paper's sense "
              "(17 CDF points + %zu alpha bins x %zu levels; stored as counts split by node state)\n",
              json.size(), static_cast<double>(json.size()) / static_cast<double>(trace.size()),
              chameleon::kCdfDepths + chameleon::kAlphaBins * shape.levels(), chameleon::kAlphaBins, shape.levels());
  return 0;
}
