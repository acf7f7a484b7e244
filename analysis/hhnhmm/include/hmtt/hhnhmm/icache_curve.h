// The paper's yardstick (section VII): instruction-cache miss-rate curves of
// an original and a synthetic trace over a sweep of cache sizes (Dinero IV
// style: one set-associative LRU cache per size, every size in one pass).
#pragma once

#include <cstdint>
#include <vector>

#include "hmtt/analysis/tool.h"
#include "hmtt/result.h"
#include "hmtt/stream.h"

namespace hmtt::hhnhmm {

using analysis::Json;

struct ICacheSweep {
  std::vector<std::uint64_t> sizes = {1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144};
  std::uint64_t line_bytes = 64;
  std::uint64_t ways = 2;
  bool ifetch_only = true;  // only Kind::IFetch references (the others are skipped)
};

struct MissRateCurve {
  std::uint64_t references = 0;      // references simulated
  std::vector<double> miss_rates;    // one per size
};

Result<MissRateCurve> icache_miss_rates(ReferenceSource& trace, const ICacheSweep& sweep);

struct CurveError {
  double mean = 0;  // mean |a - b| over the sizes, in miss-rate units
  double max = 0;
};
CurveError curve_error(const MissRateCurve& a, const MissRateCurve& b);

Json curve_json(const ICacheSweep& sweep, const MissRateCurve& a, const MissRateCurve& b);

}  // namespace hmtt::hhnhmm
