// Chameleon signature capture: size and slowdown against plain cache simulation.
//
//   bench_chameleon [TRACE | demo:N] [--json]   (default demo:4000000)
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

#include <CLI/CLI.hpp>

#include "hmtt/analysis/demo_workload.h"
#include "hmtt/analysis/hierarchy.h"
#include "hmtt/chameleon/chameleon.h"
#include "hmtt/tracefmt/reader.h"
#include "json_figures.h"

using namespace hmtt;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Chameleon signature capture: its time against plain cache simulation (17 LRU caches at 512 B, the ten "
      "PSnAP hierarchies) over the same references in memory, and the signature's size."};
  std::string spec = "demo:4000000";
  bool json = false;
  app.add_option("TRACE", spec, "a trace file (any format hmtt imports, or a store) or demo:N")->capture_default_str();
  app.add_flag("--json", json, "print the figures as one JSON object (the table goes to stderr)");
  CLI11_PARSE(app, argc, argv);
  std::FILE* out = json ? stderr : stdout;
  std::vector<Reference> trace;
  if (spec.rfind("demo:", 0) == 0) {
    analysis::DemoWorkloadKnobs k;
    const std::string count = spec.substr(5);
    char* end = nullptr;
    k.references = std::strtoull(count.c_str(), &end, 10);
    if (count.empty() || *end != '\0' || k.references == 0) {
      std::fprintf(stderr, "bench_chameleon: %s: demo:N needs a positive whole number of references\n", spec.c_str());
      return 2;
    }
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
  options.shape.fill_bytes = 128; // (128 B units used by each reused block)
  chameleon::SignatureTracer tracer(options);
  tracer.access(trace);
  tracer.finish();
  const double sig_s = seconds_since(t0);

  // The same without the block fill counts, to show what they cost.
  t0 = std::chrono::steady_clock::now();
  chameleon::TracerOptions no_fill = options;
  no_fill.shape.fill_bytes = 0;
  chameleon::SignatureTracer tracer0(no_fill);
  tracer0.access(trace);
  tracer0.finish();
  const double sig0_s = seconds_since(t0);

  auto psnap2 = analysis::HierarchySimulator::create(analysis::psnap_hierarchies());
  t0 = std::chrono::steady_clock::now();
  chameleon::SignatureTracer tracer2(options);
  for (const auto& r : trace) {
    tracer2.access(r);
    psnap2->access(r);
  }
  tracer2.finish();
  const double both_s = seconds_since(t0);

  const std::string json_text = tracer.signature().to_json().dump(1);
  bench::JsonFigures js;
  js.text("trace", spec);
  js.integer("references", trace.size());
  js.number("base_s", base);
  js.number("lru512_s", lru_s);
  js.number("psnap_s", psnap_s);
  js.number("signature_s", sig_s);
  js.number("signature_without_fill_s", sig0_s);
  js.number("signature_psnap_s", both_s);
  js.number("signature_over_lru512", sig_s / lru_s);
  js.number("signature_over_psnap", sig_s / psnap_s);
  js.number("signature_psnap_over_psnap", both_s / psnap_s);
  js.integer("signature_json_bytes", json_text.size());
  std::fprintf(out, "trace %s: %zu references (checksum %llu)\n", spec.c_str(), trace.size(),
              static_cast<unsigned long long>(sink & 0xff));
  std::fprintf(out, "%-10s %9s %10s %10s\n", "pass", "seconds", "x lru512", "x psnap");
  auto row = [&](const char* name, double s) { std::fprintf(out, "%-10s %9.3f %10.2f %10.2f\n", name, s, s / lru_s, s / psnap_s); };
  row("base", base);
  row("lru512", lru_s);
  row("psnap", psnap_s);
  row("signature", sig_s);
  row("sig-nofill", sig0_s);
  row("sig+psnap", both_s);
  const auto shape = tracer.signature().shape;
  std::fprintf(out, "signature: %zu JSON bytes (%.4f bytes per reference); %zu numbers in the paper's sense "
              "(17 CDF points + %zu alpha bins x %zu levels; stored as counts split by node state)\n",
              json_text.size(), static_cast<double>(json_text.size()) / static_cast<double>(trace.size()),
              chameleon::kCdfDepths + chameleon::kAlphaBins * shape.levels(), chameleon::kAlphaBins, shape.levels());
  if (json) js.print();
  return 0;
}
