// hhnhmm_icache ORIGINAL SYNTHETIC [--all-kinds] [--ways W] [--line B]
//
// Instruction-cache miss-rate curves (HHnHMM paper, Figures 12-15 and 19) of
// two traces over a sweep of sizes 1 KiB..256 KiB, LRU, one pass each; prints
// a table and, last, one JSON line with the mean and maximum absolute error.
// Only instruction fetches are simulated unless --all-kinds.
//
// hhnhmm_icache --learn TRACE [key=value ...] [--limit N] [--seed S]
//
// Profiles TRACE's instruction fetches with HHnHMM (knobs as `hmtt profile
// --param`), synthesises as many references, and prints the two curves,
// the classification rate and the profile size: the docs/accuracy.md rows.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "hmtt/hhnhmm/hhnhmm.h"
#include "hmtt/hhnhmm/icache_curve.h"
#include "hmtt/tracefmt/reader.h"

namespace {

void print_curves(const hmtt::hhnhmm::ICacheSweep& sweep, const hmtt::hhnhmm::MissRateCurve (&curves)[2]) {
  std::printf("%10s %12s %12s %9s\n", "size", "miss(orig)", "miss(syn)", "|error|");
  for (std::size_t i = 0; i < sweep.sizes.size(); ++i)
    std::printf("%10llu %12.5f %12.5f %9.5f\n", static_cast<unsigned long long>(sweep.sizes[i]),
                curves[0].miss_rates[i], curves[1].miss_rates[i],
                std::abs(curves[0].miss_rates[i] - curves[1].miss_rates[i]));
}

int learn(int argc, char** argv) {
  using namespace hmtt;
  std::vector<std::string> assignments = {"kinds=ifetch"};
  std::uint64_t limit = 0, seed = 1;
  const std::string path = argv[2];
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--limit" && i + 1 < argc) limit = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else assignments.push_back(a);
  }
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
  hhnhmm::ICacheSweep sweep;
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
  print_curves(sweep, curves);
  analysis::Json j = hhnhmm::curve_json(sweep, curves[0], curves[1]);
  j["trace"] = path;
  j["profile"] = prof->summary;
  std::cout << j.dump() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace hmtt;
  if (argc >= 3 && std::string(argv[1]) == "--learn") return learn(argc, argv);
  hhnhmm::ICacheSweep sweep;
  std::string paths[2];
  int given = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--all-kinds") {
      sweep.ifetch_only = false;
    } else if ((a == "--ways" || a == "--line") && i + 1 < argc) {
      (a == "--ways" ? sweep.ways : sweep.line_bytes) = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--help" || a == "-h" || given == 2) {
      std::cerr << "usage: hhnhmm_icache ORIGINAL SYNTHETIC [--all-kinds] [--ways W] [--line B]\n";
      return a == "--help" || a == "-h" ? 0 : 2;
    } else {
      paths[given++] = a;
    }
  }
  if (given != 2) {
    std::cerr << "usage: hhnhmm_icache ORIGINAL SYNTHETIC [--all-kinds] [--ways W] [--line B]\n";
    return 2;
  }
  hhnhmm::MissRateCurve curves[2];
  for (int k = 0; k < 2; ++k) {
    auto src = tracefmt::open_trace(paths[k]);
    if (!src) {
      std::cerr << "hhnhmm_icache: " << paths[k] << ": " << src.error().message << "\n";
      return 1;
    }
    auto c = hhnhmm::icache_miss_rates(**src, sweep);
    if (!c) {
      std::cerr << "hhnhmm_icache: " << paths[k] << ": " << c.error().message << "\n";
      return 1;
    }
    curves[k] = *c;
  }
  print_curves(sweep, curves);
  std::cout << hhnhmm::curve_json(sweep, curves[0], curves[1]).dump() << "\n";
  return 0;
}
