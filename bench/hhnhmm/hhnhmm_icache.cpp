// hhnhmm_icache ORIGINAL SYNTHETIC [--all-kinds] [--ways W] [--line B] [--json]
//
// Instruction-cache miss-rate curves (HHnHMM paper, Figures 12-15 and 19) of
// two traces over a sweep of sizes 1 KiB..256 KiB, LRU, one pass each; prints
// a table and, last, one JSON line with the mean and maximum absolute error.
// Only instruction fetches are simulated unless --all-kinds.
//
// hhnhmm_icache --learn TRACE [key=value ...] [--limit N] [--seed S] [--json]
//
// Profiles TRACE's instruction fetches with HHnHMM (knobs as `hmtt profile
// --param`), synthesises as many references, and prints the two curves,
// the classification rate and the profile size: the docs/accuracy.md rows.
// With --json the table goes to stderr and stdout is the JSON line alone.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "hmtt/hhnhmm/hhnhmm.h"
#include "hmtt/hhnhmm/icache_curve.h"
#include "hmtt/tracefmt/reader.h"

namespace {

void print_curves(std::FILE* out, const hmtt::hhnhmm::ICacheSweep& sweep,
                  const hmtt::hhnhmm::MissRateCurve (&curves)[2]) {
  std::fprintf(out, "%10s %12s %12s %9s\n", "size", "miss(orig)", "miss(syn)", "|error|");
  for (std::size_t i = 0; i < sweep.sizes.size(); ++i)
    std::fprintf(out, "%10llu %12.5f %12.5f %9.5f\n", static_cast<unsigned long long>(sweep.sizes[i]),
                curves[0].miss_rates[i], curves[1].miss_rates[i],
                std::abs(curves[0].miss_rates[i] - curves[1].miss_rates[i]));
}

struct Options {
  std::string learn;                    // --learn TRACE
  std::vector<std::string> positional;  // ORIGINAL SYNTHETIC, or with --learn the knobs (key=value)
  std::uint64_t limit = 0, seed = 1;
  bool json = false;
};

int learn(const Options& o, const hmtt::hhnhmm::ICacheSweep& sweep) {
  using namespace hmtt;
  std::FILE* out = o.json ? stderr : stdout;
  std::vector<std::string> assignments = {"kinds=ifetch"};
  assignments.insert(assignments.end(), o.positional.begin(), o.positional.end());
  const std::string& path = o.learn;
  const std::uint64_t limit = o.limit, seed = o.seed;
  auto p = analysis::make_hhnhmm_profiler();
  auto params = analysis::ProfileParams::parse(assignments, p->params());
  if (!params) {
    std::cerr << "hhnhmm_icache: " << params.error().message << "\n";
    return 2;
  }
  auto src = tracefmt::open_trace(path);
  if (!src) {
    std::cerr << "hhnhmm_icache: " << path << ": " << src.error().message << "\n";
    return 1;
  }
  auto prof = p->profile(**src, *params, {.batch = 4096, .progress = false, .limit = limit});
  if (!prof) {
    std::cerr << "hhnhmm_icache: " << prof.error().message << "\n";
    return 1;
  }
  hhnhmm::MissRateCurve curves[2];
  auto orig = tracefmt::open_trace(path);
  if (!orig) return 1;
  // The original's curve over the same prefix the profile read.
  struct Prefix final : ReferenceSource {
    ReferenceSource& s;
    std::uint64_t left;
    Prefix(ReferenceSource& src_, std::uint64_t n) : s(src_), left(n ? n : UINT64_MAX) {}
    Result<std::size_t> read(std::span<Reference> out) override {
      if (left == 0) return std::size_t{0};
      auto n = s.read(out.first(std::min<std::uint64_t>(out.size(), left)));
      if (n) left -= *n;
      return n;
    }
  } prefix(**orig, limit);
  auto ca = hhnhmm::icache_miss_rates(prefix, sweep);
  auto syn = p->synthesize(prof->data, {.length = 0, .seed = seed});
  if (!ca || !syn) {
    std::cerr << "hhnhmm_icache: " << (!ca ? ca.error().message : syn.error().message) << "\n";
    return 1;
  }
  auto cb = hhnhmm::icache_miss_rates(**syn, sweep);
  if (!cb) return 1;
  curves[0] = *ca;
  curves[1] = *cb;
  print_curves(out, sweep, curves);
  analysis::Json j = hhnhmm::curve_json(sweep, curves[0], curves[1]);
  j["trace"] = path;
  j["profile"] = prof->summary;
  std::cout << j.dump() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace hmtt;
  CLI::App app{
      "Instruction-cache miss-rate curves (HHnHMM Figures 12-15 and 19) of an original and a synthetic trace, "
      "LRU, sizes 1 KiB..256 KiB: a table, then one JSON line with the mean and maximum absolute error. With "
      "--learn, profiles TRACE's instruction fetches with HHnHMM (knobs key=value as `hmtt profile --param`), "
      "synthesises as many references and compares the two."};
  Options o;
  hhnhmm::ICacheSweep sweep;
  bool all_kinds = false;
  app.add_option("FILES", o.positional, "ORIGINAL SYNTHETIC (two traces); with --learn, HHnHMM knobs key=value");
  app.add_option("--learn", o.learn, "profile and synthesise this trace, and compare with it")
      ->type_name("TRACE");
  app.add_option("--limit", o.limit, "with --learn: profile the first N references (0: all)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--seed", o.seed, "with --learn: the synthesis seed")->capture_default_str();
  app.add_flag("--all-kinds", all_kinds, "simulate every reference, not only instruction fetches");
  app.add_option("--ways", sweep.ways, "associativity of every cache in the sweep")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20));
  app.add_option("--line", sweep.line_bytes, "line size in bytes (a power of two)")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20))
      ->check([](const std::string& v) {
        const auto n = std::stoull(v);
        return (n & (n - 1)) == 0 ? std::string() : std::string("not a power of two");
      });
  app.add_flag("--json", o.json, "print the JSON line alone (the table goes to stderr)");
  CLI11_PARSE(app, argc, argv);
  if (all_kinds) sweep.ifetch_only = false;
  if (!o.learn.empty()) return learn(o, sweep);
  if (o.positional.size() != 2) {
    std::cerr << "hhnhmm_icache: give ORIGINAL and SYNTHETIC (or --learn TRACE); --help for more\n";
    return 2;
  }
  hhnhmm::MissRateCurve curves[2];
  for (int k = 0; k < 2; ++k) {
    const std::string& path = o.positional[static_cast<std::size_t>(k)];
    auto src = tracefmt::open_trace(path);
    if (!src) {
      std::cerr << "hhnhmm_icache: " << path << ": " << src.error().message << "\n";
      return 1;
    }
    auto c = hhnhmm::icache_miss_rates(**src, sweep);
    if (!c) {
      std::cerr << "hhnhmm_icache: " << path << ": " << c.error().message << "\n";
      return 1;
    }
    curves[k] = *c;
  }
  print_curves(o.json ? stderr : stdout, sweep, curves);
  std::cout << hhnhmm::curve_json(sweep, curves[0], curves[1]).dump() << "\n";
  return 0;
}
