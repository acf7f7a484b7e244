// Cache analysis per reference point (issue 11, item 3): a hand-worked
// stream with known hits, temporal/spatial split, spatial use and evictors,
// and a brute-force oracle (lists of lines holding sets of byte addresses)
// on random traces and geometries, including references that span lines.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <list>
#include <map>
#include <random>
#include <set>

#include "hmtt/metric/cache_analysis.h"
#include "hmtt/metric/point_map.h"
#include "roundtrip.h"

using namespace metric_test;

namespace {

Reference rd(std::uint64_t a, std::uint32_t size = 8) { return Reference{0, a, size, Kind::Read, Origin::Cpu, 0}; }

// The oracle: per set a list of lines, most recent first; bytes as std::set.
class OracleCache {
 public:
  explicit OracleCache(CacheGeometry g) : g_(g), sets_(g.sets()) {}
  struct Line {
    std::uint64_t number;
    std::set<std::uint64_t> bytes;
    std::vector<std::uint32_t> touchers;
    std::uint32_t loader;
  };
  void access(const Reference& r, std::uint32_t p) {
    const std::uint64_t size = r.size ? r.size : 1;
    std::map<std::uint64_t, std::vector<std::uint64_t>> by_line;
    for (std::uint64_t b = r.address; b < r.address + size; ++b) by_line[b / g_.line_bytes].push_back(b);
    bool miss = false, temporal = true;
    auto& st = stats[p];
    for (auto& [num, bytes] : by_line) {
      auto& set = sets_[num % sets_.size()];
      auto it = std::find_if(set.begin(), set.end(), [&](const Line& l) { return l.number == num; });
      if (it != set.end()) {
        for (auto b : bytes)
          if (!it->bytes.count(b)) temporal = false;
        it->bytes.insert(bytes.begin(), bytes.end());
        if (std::find(it->touchers.begin(), it->touchers.end(), p) == it->touchers.end()) it->touchers.push_back(p);
        set.splice(set.begin(), set, it);
      } else {
        miss = true;
        if (set.size() == g_.assoc) {
          Line& v = set.back();
          const double frac = static_cast<double>(v.bytes.size()) / g_.line_bytes;
          evictions++;
          used_sum += frac;
          stats[v.loader].loaded_evictions++;
          stats[v.loader].used_fraction_sum += frac;
          for (auto t : v.touchers) {
            stats[t].evictions++;
            stats[t].evictors[p]++;
          }
          set.pop_back();
        }
        set.push_front(Line{num, std::set<std::uint64_t>(bytes.begin(), bytes.end()), {p}, p});
      }
    }
    if (is_write(r.kind)) st.writes++; else st.reads++;
    if (miss) st.misses++;
    else if (temporal) { st.hits++; st.temporal_hits++; }
    else { st.hits++; st.spatial_hits++; }
  }
  std::map<std::uint32_t, PointCacheStats> stats;
  std::uint64_t evictions = 0;
  double used_sum = 0;

 private:
  CacheGeometry g_;
  std::vector<std::list<Line>> sets_;
};

}  // namespace

TEST_CASE("a hand-worked stream: hits, temporal/spatial split, spatial use, evictors") {
  // direct-mapped, 2 lines of 32 bytes: lines 0 and 2 (addresses 0 and 64) share set 0
  auto ca = ReferenceCacheAnalysis::create(CacheGeometry{64, 1, 32});
  REQUIRE(ca.ok());
  for (std::uint64_t a : {0, 8, 16}) ca->process(rd(a), 0);  // A: miss, spatial, spatial
  ca->process(rd(0), 0);                                      // A: temporal
  ca->process(rd(64), 1);                                     // B: miss, evicts A's line (24 of 32 bytes used)
  ca->process(rd(0, 4), 0);                                   // A: miss, evicts B's line (8 of 32 used)
  const auto& a = ca->per_point()[0];
  const auto& b = ca->per_point()[1];
  CHECK(a.hits == 3);
  CHECK(a.misses == 2);
  CHECK(a.spatial_hits == 2);
  CHECK(a.temporal_hits == 1);
  CHECK(a.loaded_evictions == 1);
  CHECK(a.spatial_use() == doctest::Approx(0.75));
  CHECK(a.evictors == std::map<std::uint32_t, std::uint64_t>{{1, 1}});
  CHECK(b.misses == 1);
  CHECK(b.spatial_use() == doctest::Approx(0.25));
  CHECK(b.evictors == std::map<std::uint32_t, std::uint64_t>{{0, 1}});
  const auto& s = ca->summary();
  CHECK(s.reads == 6);
  CHECK(s.hits == 3);
  CHECK(s.misses == 3);
  CHECK(s.evictions == 2);
  CHECK(s.spatial_use() == doctest::Approx(0.5));
  CHECK(s.temporal_ratio() == doctest::Approx(1.0 / 3));
  // both references that touched an evicted line see the evictor (Fig. 8:
  // xx_Read_2 and xx_Write_3 share their evictor rows)
  auto c2 = ReferenceCacheAnalysis::create(CacheGeometry{64, 1, 32});
  c2->process(rd(0), 0);
  c2->process(Reference{0, 0, 8, Kind::Write, Origin::Cpu, 0}, 1);
  c2->process(rd(64), 2);
  CHECK(c2->per_point()[0].evictors.at(2) == 1);
  CHECK(c2->per_point()[1].evictors.at(2) == 1);
  CHECK(c2->per_point()[1].loaded_evictions == 0);  // "no evicts" spatial use for the write
  CHECK(c2->per_point()[1].temporal_hits == 1);
  const std::string txt = c2->text_report();
  CHECK(txt.find("no evicts") != std::string::npos);
  CHECK(txt.find("miss ratio = 0.66667") != std::string::npos);
}

TEST_CASE("matches a brute-force oracle on random traces and geometries") {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 12; ++round) {
    const std::uint32_t line = 1u << (2 + rng() % 5);
    const std::uint32_t assoc = 1 + static_cast<std::uint32_t>(rng() % 4);
    const std::uint64_t sets = 1 + rng() % 8;
    CacheGeometry g{sets * assoc * line, assoc, line};
    CAPTURE(g.describe());
    auto ca = ReferenceCacheAnalysis::create(g);
    REQUIRE(ca.ok());
    OracleCache oracle(g);
    const std::uint64_t span = sets * assoc * line * (2 + rng() % 4);
    for (int i = 0; i < 20000; ++i) {
      Reference r{0, rng() % span, static_cast<std::uint32_t>(rng() % 3 == 0 ? rng() % 70 : 8),
                  rng() % 3 == 0 ? Kind::Write : Kind::Read, Origin::Cpu, 0};
      const auto p = static_cast<std::uint32_t>(rng() % 5);
      ca->process(r, p);
      oracle.access(r, p);
    }
    CHECK(ca->summary().evictions == oracle.evictions);
    CHECK(ca->summary().used_fraction_sum == doctest::Approx(oracle.used_sum));
    for (auto& [p, want] : oracle.stats) {
      CAPTURE(p);
      const auto& got = ca->per_point().at(p);
      CHECK(got.reads == want.reads);
      CHECK(got.writes == want.writes);
      CHECK(got.hits == want.hits);
      CHECK(got.misses == want.misses);
      CHECK(got.temporal_hits == want.temporal_hits);
      CHECK(got.spatial_hits == want.spatial_hits);
      CHECK(got.loaded_evictions == want.loaded_evictions);
      CHECK(got.used_fraction_sum == doctest::Approx(want.used_fraction_sum));
      CHECK(got.evictions == want.evictions);
      CHECK(got.evictors == want.evictors);
    }
  }
}

TEST_CASE("cache geometry strings") {
  auto g = CacheGeometry::parse("32K:2:32");
  REQUIRE(g.ok());
  CHECK(g->size_bytes == 32768);
  CHECK(g->sets() == 512);
  CHECK(CacheGeometry::parse("1M:8:64")->size_bytes == 1048576);
  CHECK(CacheGeometry::parse("4096:4:64")->sets() == 16);
  CHECK(CacheGeometry::parse("32K:2:24").error().message.find("power of two") != std::string::npos);
  CHECK(CacheGeometry::parse("33:2:32").error().message.find("multiple") != std::string::npos);
  CHECK(CacheGeometry::parse("32K").error().message.find("SIZE:ASSOC:LINE") != std::string::npos);
  CHECK(!CacheGeometry::parse("32K:2:32x").ok());
}

TEST_CASE("reference-point maps: ranges and regions name the points") {
  auto m = ReferencePointMap::parse(
      "# arrays\nrange xx 0x1000 0x2000\nrange xy 0x2000 0x3000\nregion 7 init 0 100\n", "map.txt");
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message));
  CHECK(m->range_of(0x1fff) == 0);
  CHECK(m->range_of(0x2000) == 1);
  CHECK(m->range_of(0x3000) == -1);
  CHECK(m->region_of(99) == 0);
  CHECK(m->region_of(100) == -1);
  std::vector<Reference> refs{{5, 0x1008, 8, Kind::Read, Origin::Cpu, 0},
                              {150, 0x2008, 8, Kind::Write, Origin::Cpu, 0},
                              {160, 0x9000, 8, Kind::Read, Origin::Cpu, 0},
                              {170, 0x1010, 8, Kind::Read, Origin::Cpu, 0}};
  VectorSource vs(refs);
  ClassifiedSource cs(vs, *m);
  std::vector<Reference> out(8);
  std::vector<std::uint32_t> pts(8);
  auto n = cs.read_pointed(out, pts);
  REQUIRE(n.ok());
  REQUIRE(*n == 4);
  CHECK(pts[0] == 0);
  CHECK(pts[1] == 1);
  CHECK(pts[2] == 2);
  CHECK(pts[3] == 3);
  CHECK(cs.points()[0].name == "init/xx_Read");
  CHECK(cs.points()[1].name == "xy_Write");
  CHECK(cs.points()[2].name == "other_Read");
  CHECK(cs.points()[3].name == "xx_Read");
  auto bad = ReferencePointMap::parse("range a 0 100\nrange b 50 150\n", "m.txt");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "m.txt:2: range b overlaps range a");
  CHECK(ReferencePointMap::parse("range a 0 zz\n", "m.txt").error().message == "m.txt:1: HI 'zz' is not a number");
  CHECK(ReferencePointMap::parse("bogus\n", "m.txt").error().message.find("unknown entry") != std::string::npos);
}
