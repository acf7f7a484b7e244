// Cache analysis per reference point with evictors (METRIC Section 6, after
// MHSim): one pass over a PointedSource through a set-associative LRU,
// write-allocate cache, recording for every reference point
//
//   hits, misses, miss ratio
//   temporal hits: the bytes referenced were already referenced while the
//                  line was resident;  spatial hits: the line was resident
//                  but (some of) these bytes were not yet referenced in it.
//                  temporal ratio = temporal hits / hits
//   spatial use:   over the evictions of lines this point brought in (missed
//                  on), the mean fraction of the line's bytes referenced
//                  before the eviction ("no evicts" when there were none)
//   evictors:      for every eviction of a line this point referenced during
//                  the residency, the point whose miss evicted it
//
// plus the summary block (reads, writes, hits, misses, temporal/spatial hits
// and ratios, spatial use over all evictions). A reference that spans lines
// is one access: a miss if any of its lines missed, temporal if every byte
// was referenced before. Lines still resident at the end are not evictions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hmtt/metric/pointed_source.h"

namespace hmtt::metric {

struct CacheGeometry {
  std::uint64_t size_bytes = 32 * 1024;  // the paper's MIPS R12000 L1
  std::uint32_t assoc = 2;
  std::uint32_t line_bytes = 32;
  // "SIZE:ASSOC:LINE", SIZE with an optional K or M suffix, e.g. "32K:2:32".
  static Result<CacheGeometry> parse(const std::string& text);
  Status check() const;
  std::uint64_t sets() const { return size_bytes / (static_cast<std::uint64_t>(assoc) * line_bytes); }
  std::string describe() const;
};

struct PointCacheStats {
  std::uint64_t reads = 0, writes = 0;
  std::uint64_t hits = 0, misses = 0;
  std::uint64_t temporal_hits = 0, spatial_hits = 0;
  std::uint64_t loaded_evictions = 0;  // evictions of lines this point brought in
  double used_fraction_sum = 0.0;      // sum of their used fractions
  std::uint64_t evictions = 0;         // evictions of lines this point referenced
  std::map<std::uint32_t, std::uint64_t> evictors;  // evicting point -> count

  std::uint64_t accesses() const { return hits + misses; }
  double miss_ratio() const { return accesses() ? static_cast<double>(misses) / static_cast<double>(accesses()) : 0.0; }
  bool has_hits() const { return hits > 0; }
  double temporal_ratio() const { return hits ? static_cast<double>(temporal_hits) / static_cast<double>(hits) : 0.0; }
  bool has_spatial_use() const { return loaded_evictions > 0; }
  double spatial_use() const { return loaded_evictions ? used_fraction_sum / static_cast<double>(loaded_evictions) : 0.0; }
};

struct CacheSummary {
  std::uint64_t reads = 0, writes = 0, hits = 0, misses = 0, temporal_hits = 0, spatial_hits = 0;
  std::uint64_t evictions = 0;
  double used_fraction_sum = 0.0;
  double miss_ratio() const { return hits + misses ? static_cast<double>(misses) / static_cast<double>(hits + misses) : 0.0; }
  double temporal_ratio() const { return hits ? static_cast<double>(temporal_hits) / static_cast<double>(hits) : 0.0; }
  double spatial_ratio() const { return hits ? static_cast<double>(spatial_hits) / static_cast<double>(hits) : 0.0; }
  double spatial_use() const { return evictions ? used_fraction_sum / static_cast<double>(evictions) : 0.0; }
};

class ReferenceCacheAnalysis {
 public:
  static Result<ReferenceCacheAnalysis> create(CacheGeometry geometry);
  void process(const Reference& ref, std::uint32_t point);
  // Pulls `source` dry through process(); keeps a copy of its point table.
  Status run(PointedSource& source);

  const CacheGeometry& geometry() const { return geo_; }
  const CacheSummary& summary() const { return summary_; }
  const std::vector<PointCacheStats>& per_point() const { return stats_; }
  const std::vector<ReferencePoint>& points() const { return points_; }
  void set_points(std::vector<ReferencePoint> p) { points_ = std::move(p); }

  // The paper's report: the summary block, per-reference statistics (Figs.
  // 5 and 7 layout, most misses first) and evictor tables (Figs. 6 and 8).
  std::string text_report(bool evictors = true) const;
  std::string json_report() const;

 private:
  explicit ReferenceCacheAnalysis(CacheGeometry g);
  struct Line {
    bool valid = false;
    std::uint64_t tag = 0;
    std::uint64_t stamp = 0;  // LRU: last use
    std::uint32_t loader = 0;
    std::uint64_t used[4] = {0, 0, 0, 0};  // byte mask, lines up to 256 bytes
    std::vector<std::uint32_t> touchers;
  };
  PointCacheStats& at(std::uint32_t point);

  CacheGeometry geo_;
  std::uint64_t sets_ = 0;
  std::uint32_t line_shift_ = 0;
  std::vector<Line> lines_;  // sets_ * assoc
  std::uint64_t clock_ = 0;
  CacheSummary summary_;
  std::vector<PointCacheStats> stats_;
  std::vector<ReferencePoint> points_;
};

}  // namespace hmtt::metric
