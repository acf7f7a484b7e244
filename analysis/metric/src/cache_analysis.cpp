#include "hmtt/metric/cache_analysis.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <numeric>

namespace hmtt::metric {

namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') { o += '\\'; o += static_cast<char>(c); }
    else if (c < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
    else o += static_cast<char>(c);
  }
  return o + "\"";
}

std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}
std::string rpad(std::string s, std::size_t w) {
  if (s.size() < w) s.insert(0, w - s.size(), ' ');
  return s;
}

// Sets bits lo..hi of a 256-bit mask; returns true if they were all set before.
bool mark(std::uint64_t (&m)[4], std::uint32_t lo, std::uint32_t hi) {
  bool all = true;
  for (std::uint32_t w = lo / 64; w <= hi / 64; ++w) {
    const std::uint32_t a = std::max(lo, w * 64) - w * 64, b = std::min(hi, w * 64 + 63) - w * 64;
    const std::uint64_t bits = (b - a == 63) ? ~0ull : (((1ull << (b - a + 1)) - 1) << a);
    if ((m[w] & bits) != bits) all = false;
    m[w] |= bits;
  }
  return all;
}

}  // namespace

Result<CacheGeometry> CacheGeometry::parse(const std::string& text) {
  CacheGeometry g;
  unsigned long long size = 0;
  unsigned assoc = 0, line = 0;
  char unit = 0;
  char rest = 0;
  const std::string where = "cache geometry '" + text + "': ";
  if (std::sscanf(text.c_str(), "%llu%c:%u:%u%c", &size, &unit, &assoc, &line, &rest) == 4 &&
      (unit == 'K' || unit == 'k' || unit == 'M' || unit == 'm')) {
    size *= (unit == 'K' || unit == 'k') ? 1024ull : 1024ull * 1024ull;
  } else if (std::sscanf(text.c_str(), "%llu:%u:%u%c", &size, &assoc, &line, &rest) != 3) {
    return make_error(where + "expected SIZE:ASSOC:LINE, e.g. 32K:2:32");
  }
  g.size_bytes = size;
  g.assoc = assoc;
  g.line_bytes = line;
  auto st = g.check();
  if (!st) return make_error(where + st.error().message);
  return g;
}

Status CacheGeometry::check() const {
  if (line_bytes < 1 || line_bytes > 256 || !std::has_single_bit(line_bytes))
    return make_error("line size " + std::to_string(line_bytes) + " is not a power of two in 1..256");
  if (assoc < 1 || assoc > 1024) return make_error("associativity " + std::to_string(assoc) + " is not 1..1024");
  if (size_bytes == 0 || size_bytes % (static_cast<std::uint64_t>(assoc) * line_bytes) != 0)
    return make_error("size " + std::to_string(size_bytes) + " is not a multiple of associativity x line size");
  if (sets() > (1u << 24)) return make_error("more than 16M sets");
  return Status::success();
}

std::string CacheGeometry::describe() const {
  return std::to_string(size_bytes) + " B, " + std::to_string(assoc) + "-way, " + std::to_string(line_bytes) +
         " B lines, LRU, write-allocate";
}

ReferenceCacheAnalysis::ReferenceCacheAnalysis(CacheGeometry g) : geo_(g) {
  sets_ = g.sets();
  line_shift_ = static_cast<std::uint32_t>(std::countr_zero(g.line_bytes));
  lines_.resize(sets_ * g.assoc);
}

Result<ReferenceCacheAnalysis> ReferenceCacheAnalysis::create(CacheGeometry geometry) {
  HMTT_TRY(geometry.check());
  return ReferenceCacheAnalysis(geometry);
}

PointCacheStats& ReferenceCacheAnalysis::at(std::uint32_t point) {
  if (point >= stats_.size()) stats_.resize(static_cast<std::size_t>(point) + 1);
  return stats_[point];
}

void ReferenceCacheAnalysis::process(const Reference& ref, std::uint32_t point) {
  const std::uint64_t size = ref.size == 0 ? 1 : ref.size;
  const std::uint64_t last_byte = ref.address > UINT64_MAX - (size - 1) ? UINT64_MAX : ref.address + size - 1;
  const std::uint64_t first_line = ref.address >> line_shift_, last_line = last_byte >> line_shift_;
  const std::uint64_t mask = geo_.line_bytes - 1;
  bool any_miss = false, all_temporal = true;
  at(point);  // make sure the point has a row
  for (std::uint64_t L = first_line;; ++L) {
    const auto lo = static_cast<std::uint32_t>(L == first_line ? ref.address & mask : 0);
    const auto hi = static_cast<std::uint32_t>(L == last_line ? last_byte & mask : mask);
    Line* set = &lines_[(L % sets_) * geo_.assoc];
    Line* hit = nullptr;
    for (std::uint32_t w = 0; w < geo_.assoc; ++w)
      if (set[w].valid && set[w].tag == L) { hit = &set[w]; break; }
    if (hit) {
      if (!mark(hit->used, lo, hi)) all_temporal = false;
      if (std::find(hit->touchers.begin(), hit->touchers.end(), point) == hit->touchers.end())
        hit->touchers.push_back(point);
      hit->stamp = ++clock_;
    } else {
      any_miss = true;
      Line* victim = &set[0];
      for (std::uint32_t w = 0; w < geo_.assoc; ++w) {
        if (!set[w].valid) { victim = &set[w]; break; }
        if (set[w].stamp < victim->stamp) victim = &set[w];
      }
      if (victim->valid) {
        std::uint32_t used = 0;
        for (auto m : victim->used) used += static_cast<std::uint32_t>(std::popcount(m));
        const double frac = static_cast<double>(used) / static_cast<double>(geo_.line_bytes);
        ++summary_.evictions;
        summary_.used_fraction_sum += frac;
        PointCacheStats& loader = at(victim->loader);
        ++loader.loaded_evictions;
        loader.used_fraction_sum += frac;
        for (std::uint32_t t : victim->touchers) {
          PointCacheStats& v = at(t);
          ++v.evictions;
          ++v.evictors[point];
        }
      }
      victim->valid = true;
      victim->tag = L;
      victim->stamp = ++clock_;
      victim->loader = point;
      std::fill(std::begin(victim->used), std::end(victim->used), 0);
      mark(victim->used, lo, hi);
      victim->touchers.clear();
      victim->touchers.push_back(point);
    }
    if (L == last_line) break;
  }
  PointCacheStats& s = stats_[point];
  const bool write = is_write(ref.kind);
  if (write) { ++s.writes; ++summary_.writes; } else { ++s.reads; ++summary_.reads; }
  if (any_miss) {
    ++s.misses;
    ++summary_.misses;
  } else {
    ++s.hits;
    ++summary_.hits;
    if (all_temporal) { ++s.temporal_hits; ++summary_.temporal_hits; }
    else { ++s.spatial_hits; ++summary_.spatial_hits; }
  }
}

Status ReferenceCacheAnalysis::run(PointedSource& source) {
  std::vector<Reference> refs(4096);
  std::vector<std::uint32_t> pts(4096);
  for (;;) {
    auto n = source.read_pointed(refs, pts);
    if (!n) return n.error();
    if (*n == 0) break;
    for (std::size_t i = 0; i < *n; ++i) process(refs[i], pts[i]);
  }
  points_ = source.points();
  return Status::success();
}

namespace {
std::vector<std::uint32_t> report_order(const std::vector<PointCacheStats>& st) {
  std::vector<std::uint32_t> order;
  for (std::uint32_t p = 0; p < st.size(); ++p)
    if (st[p].accesses() > 0 || st[p].evictions > 0) order.push_back(p);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return st[a].misses > st[b].misses; });
  return order;
}
std::vector<std::pair<std::uint32_t, std::uint64_t>> evictor_rows(const PointCacheStats& s) {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> rows(s.evictors.begin(), s.evictors.end());
  std::stable_sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.second > b.second; });
  return rows;
}
}  // namespace

std::string ReferenceCacheAnalysis::text_report(bool evictors) const {
  auto point = [&](std::uint32_t p) {
    return p < points_.size() ? points_[p] : ReferencePoint{"point_" + std::to_string(p), "", 0, ""};
  };
  const CacheSummary& s = summary_;
  std::string o;
  o += "cache: " + geo_.describe() + "\n\n";
  auto row2 = [&](const std::string& a, const std::string& b) { o += pad(a, 26) + b + "\n"; };
  row2("reads = " + std::to_string(s.reads), "temporal hits = " + std::to_string(s.temporal_hits));
  row2("writes = " + std::to_string(s.writes), "spatial hits = " + std::to_string(s.spatial_hits));
  row2("hits = " + std::to_string(s.hits), "temporal ratio = " + fmt("%.5f", s.temporal_ratio()));
  row2("misses = " + std::to_string(s.misses), "spatial ratio = " + fmt("%.5f", s.spatial_ratio()));
  row2("miss ratio = " + fmt("%.5f", s.miss_ratio()),
       "spatial use = " + (s.evictions ? fmt("%.5f", s.spatial_use()) : std::string("no evicts")));

  o += "\nPer-reference cache statistics\n";
  o += pad("File", 8) + pad("Line", 6) + pad("Reference", 16) + pad("SourceRef", 12) + rpad("Hits", 11) +
       rpad("Misses", 11) + rpad("MissRatio", 11) + rpad("Temporal", 10) + rpad("SpatialUse", 12) + "\n";
  const auto order = report_order(stats_);
  for (std::uint32_t p : order) {
    const auto& st = stats_[p];
    const auto rp = point(p);
    o += pad(rp.file, 8) + pad(rp.line ? std::to_string(rp.line) : "", 6) + pad(rp.name, 16) + pad(rp.source_ref, 12) +
         rpad(std::to_string(st.hits), 11) + rpad(std::to_string(st.misses), 11) +
         rpad(fmt("%.4g", st.miss_ratio()), 11) +
         rpad(st.has_hits() ? fmt("%.3g", st.temporal_ratio()) : std::string("no hits"), 10) +
         rpad(st.has_spatial_use() ? fmt("%.3g", st.spatial_use()) : std::string("no evicts"), 12) + "\n";
  }
  if (evictors) {
    o += "\nEvictor information\n";
    o += pad("Reference", 44) + "Evictors\n";
    o += pad("File", 8) + pad("Line", 6) + pad("Name", 16) + pad("SourceRef", 14) + pad("File", 8) + pad("Line", 6) +
         pad("Name", 16) + pad("SourceRef", 12) + rpad("Count", 10) + rpad("Percent", 9) + "\n";
    for (std::uint32_t p : order) {
      const auto& st = stats_[p];
      if (st.evictions == 0) continue;
      const auto rp = point(p);
      bool first = true;
      for (auto [e, c] : evictor_rows(st)) {
        const auto ep = point(e);
        o += first ? pad(rp.file, 8) + pad(rp.line ? std::to_string(rp.line) : "", 6) + pad(rp.name, 16) +
                         pad(rp.source_ref, 14)
                   : std::string(44, ' ');
        o += pad(ep.file, 8) + pad(ep.line ? std::to_string(ep.line) : "", 6) + pad(ep.name, 16) +
             pad(ep.source_ref, 12) + rpad(std::to_string(c), 10) +
             rpad(fmt("%.2f", 100.0 * static_cast<double>(c) / static_cast<double>(st.evictions)), 9) + "\n";
        first = false;
      }
      o += "\n";
    }
  }
  return o;
}

std::string ReferenceCacheAnalysis::json_report() const {
  const CacheSummary& s = summary_;
  auto num = [](double v) { return fmt("%.6g", v); };
  std::string o = "{\n  \"cache\": {\"size_bytes\": " + std::to_string(geo_.size_bytes) +
                  ", \"assoc\": " + std::to_string(geo_.assoc) + ", \"line_bytes\": " + std::to_string(geo_.line_bytes) +
                  ", \"policy\": \"lru\"},\n";
  o += "  \"summary\": {\"reads\": " + std::to_string(s.reads) + ", \"writes\": " + std::to_string(s.writes) +
       ", \"hits\": " + std::to_string(s.hits) + ", \"misses\": " + std::to_string(s.misses) +
       ", \"miss_ratio\": " + num(s.miss_ratio()) + ", \"temporal_hits\": " + std::to_string(s.temporal_hits) +
       ", \"spatial_hits\": " + std::to_string(s.spatial_hits) + ", \"temporal_ratio\": " + num(s.temporal_ratio()) +
       ", \"spatial_ratio\": " + num(s.spatial_ratio()) + ", \"evictions\": " + std::to_string(s.evictions) +
       ", \"spatial_use\": " + (s.evictions ? num(s.spatial_use()) : std::string("null")) + "},\n";
  o += "  \"references\": [";
  bool first = true;
  for (std::uint32_t p : report_order(stats_)) {
    const auto& st = stats_[p];
    const ReferencePoint rp = p < points_.size() ? points_[p] : ReferencePoint{"point_" + std::to_string(p), "", 0, ""};
    o += first ? "\n" : ",\n";
    first = false;
    o += "    {\"point\": " + std::to_string(p) + ", \"name\": " + json_string(rp.name) + ", \"file\": " +
         json_string(rp.file) + ", \"line\": " + std::to_string(rp.line) + ", \"source_ref\": " +
         json_string(rp.source_ref) + ", \"reads\": " + std::to_string(st.reads) + ", \"writes\": " +
         std::to_string(st.writes) + ", \"hits\": " + std::to_string(st.hits) + ", \"misses\": " +
         std::to_string(st.misses) + ", \"miss_ratio\": " + num(st.miss_ratio()) + ", \"temporal_hits\": " +
         std::to_string(st.temporal_hits) + ", \"spatial_hits\": " + std::to_string(st.spatial_hits) +
         ", \"temporal_ratio\": " + (st.has_hits() ? num(st.temporal_ratio()) : std::string("null")) +
         ", \"spatial_use\": " + (st.has_spatial_use() ? num(st.spatial_use()) : std::string("null")) +
         ", \"evictions\": " + std::to_string(st.evictions) + ", \"evictors\": [";
    bool f2 = true;
    for (auto [e, c] : evictor_rows(st)) {
      const std::string en = e < points_.size() ? points_[e].name : "point_" + std::to_string(e);
      o += (f2 ? "" : ", ") + std::string("{\"point\": ") + std::to_string(e) + ", \"name\": " + json_string(en) +
           ", \"count\": " + std::to_string(c) + ", \"percent\": " +
           num(100.0 * static_cast<double>(c) / static_cast<double>(st.evictions)) + "}";
      f2 = false;
    }
    o += "]}";
  }
  o += "\n  ]\n}\n";
  return o;
}

}  // namespace hmtt::metric
