#include "hmtt/hhnhmm/icache_curve.h"

#include <algorithm>
#include <cmath>

#include "hmtt/analysis/cache.h"

namespace hmtt::hhnhmm {

Result<MissRateCurve> icache_miss_rates(ReferenceSource& trace, const ICacheSweep& sweep) {
  std::vector<analysis::Cache> caches;
  for (auto size : sweep.sizes) {
    analysis::CacheConfig c;
    c.name = "I" + std::to_string(size);
    c.size_bytes = size;
    c.line_bytes = sweep.line_bytes;
    c.ways = sweep.ways;
    auto cache = analysis::Cache::create(c);
    if (!cache) return cache.error();
    caches.push_back(std::move(*cache));
  }
  MissRateCurve curve;
  std::vector<Reference> buf(4096);
  for (;;) {
    auto n = trace.read(buf);
    if (!n) return n.error();
    if (*n == 0) break;
    for (std::size_t i = 0; i < *n; ++i) {
      if (sweep.ifetch_only && buf[i].kind != Kind::IFetch) continue;
      ++curve.references;
      const std::uint64_t line = buf[i].address / sweep.line_bytes;
      for (auto& c : caches) c.access(line, analysis::CacheOp::IFetch);
    }
  }
  for (const auto& c : caches) curve.miss_rates.push_back(1.0 - c.stats().hit_ratio());
  return curve;
}

CurveError curve_error(const MissRateCurve& a, const MissRateCurve& b) {
  CurveError e;
  const std::size_t n = std::min(a.miss_rates.size(), b.miss_rates.size());
  for (std::size_t i = 0; i < n; ++i) {
    const double d = std::abs(a.miss_rates[i] - b.miss_rates[i]);
    e.mean += d / static_cast<double>(n);
    e.max = std::max(e.max, d);
  }
  return e;
}

Json curve_json(const ICacheSweep& sweep, const MissRateCurve& a, const MissRateCurve& b) {
  Json j;
  j["line_bytes"] = sweep.line_bytes;
  j["ways"] = sweep.ways;
  j["sizes"] = sweep.sizes;
  j["references_a"] = a.references;
  j["references_b"] = b.references;
  j["miss_rate_a"] = a.miss_rates;
  j["miss_rate_b"] = b.miss_rates;
  const auto e = curve_error(a, b);
  j["mean_abs_error"] = e.mean;
  j["max_abs_error"] = e.max;
  return j;
}

}  // namespace hmtt::hhnhmm
