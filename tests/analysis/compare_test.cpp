#include <doctest/doctest.h>

#include <cmath>

#include "hmtt/analysis/compare.h"
#include "hmtt/analysis/concentration.h"
#include "hmtt/analysis/demo_workload.h"
#include "hmtt/analysis/reuse_distance_tool.h"
#include "hmtt/analysis/tool_registry.h"
#include "traces.h"

using namespace hmtt;
using namespace hmtt::analysis;

TEST_CASE("locality surface equals Grimsrud's pairwise definition") {
  auto trace = hmtt::testing::adversarial_trace(3000, 40, 21);
  auto more = hmtt::testing::random_trace(1500, 2048, 5);
  trace.insert(trace.end(), more.begin(), more.end());
  LocalitySurfaceKnobs k;
  k.max_distance_log2 = 10;  // keep the brute force small
  LocalitySurfaceBuilder b(k);
  for (const auto& r : trace) b.access(r.address);
  const auto& s = b.surface();
  std::vector<std::uint64_t> want(s.counts.size(), 0);
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const std::int64_t gi = static_cast<std::int64_t>(trace[i].address / 8);
    for (std::size_t j = i + 1; j < trace.size() && j - i <= 1024; ++j) {
      const std::int64_t gj = static_cast<std::int64_t>(trace[j].address / 8);
      const std::int64_t stride = gj - gi;
      if (stride >= -32 && stride <= 32) {
        std::uint32_t bin = 0;
        while ((std::uint64_t{2} << bin) <= j - i) ++bin;
        ++want[static_cast<std::size_t>(stride + 32) * s.distance_bins + bin];
      }
      if (gj == gi) break;  // compared to itself: stop
    }
  }
  CHECK(s.counts == want);
}

TEST_CASE("compare: a trace against itself has zero error; against a shuffled copy, not") {
  DemoWorkloadKnobs k;
  k.references = 60000;
  DemoWorkload a(k), b(k);
  CompareOptions o;
  o.run.progress = false;
  auto same = compare(a, b, o);
  REQUIRE(same.ok());
  CHECK(same->references_a == 60000);
  CHECK(same->levels.size() == 22);  // PSnAP Table 1: 8 two-level + 2 three-level hierarchies
  CHECK(same->hierarchy_error.max == 0);
  CHECK(same->lru_error.points == 68);
  CHECK(same->lru_error.max == 0);
  CHECK(same->locality_distance == 0);
  CHECK(same->per_level_error.at("L3").points == 2);
  // Each level's accesses: every reference at L1 (more where one spans two lines), and below it the
  // misses of the level above (the local hit ratio's denominator); the same for a trace and itself.
  for (std::size_t i = 0; i < same->levels.size(); ++i) {
    const LevelComparison& c = same->levels[i];
    CAPTURE(c.hierarchy);
    CAPTURE(c.level);
    CHECK(c.accesses_a == c.accesses_b);
    if (c.level == "L1") {
      CHECK(c.accesses_a >= 60000);
    } else {
      const LevelComparison& up = same->levels[i - 1];
      REQUIRE(up.hierarchy == c.hierarchy);
      const double misses_above = static_cast<double>(up.accesses_a) * (1 - up.hit_a);
      CHECK(std::abs(static_cast<double>(c.accesses_a) - misses_above) < 0.5);
      CHECK(c.accesses_a < up.accesses_a);
    }
  }
  // The cumulative ratio: the local one at L1; below it, one minus the level's misses over the
  // references the hierarchy's L1 got, which can only grow level by level.
  std::size_t l1 = 0;
  for (std::size_t i = 0; i < same->levels.size(); ++i) {
    const LevelComparison& c = same->levels[i];
    CAPTURE(c.hierarchy);
    CAPTURE(c.level);
    if (c.level == "L1") l1 = i;
    const double misses = static_cast<double>(c.accesses_a) * (1 - c.hit_a);
    CHECK(c.served_a == doctest::Approx(1 - misses / static_cast<double>(same->levels[l1].accesses_a)).epsilon(1e-12));
    if (c.level == "L1") CHECK(c.served_a == doctest::Approx(c.hit_a).epsilon(1e-12));
    if (c.level != "L1") CHECK(c.served_a >= same->levels[i - 1].served_a);
    CHECK(c.served_error() == 0);
  }
  CHECK(same->per_level_served_error.at("L2").points == 10);
  CHECK(same->per_level_served_error.at("L2").max == 0);

  // Same addresses, random order: same footprint, destroyed locality.
  DemoWorkload c(k);
  auto refs = collect(c);
  REQUIRE(refs.ok());
  std::vector<Reference> shuffled = *refs;
  std::uint64_t x = 7;
  for (std::size_t i = shuffled.size() - 1; i > 0; --i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    std::swap(shuffled[i], shuffled[static_cast<std::size_t>((x >> 33) % (i + 1))]);
  }
  VectorSource va(*refs), vb(shuffled);
  auto diff = compare(va, vb, o);
  REQUIRE(diff.ok());
  CHECK(diff->hierarchy_error.mean > 0.05);
  CHECK(diff->lru_error.max > 0.1);
  CHECK(diff->locality_distance > 0.2);
  auto j = diff->to_json();
  CHECK(j["lru_error"]["points"] == 68);
  CHECK(j["hierarchy_levels"].size() == 22);
  CHECK(j["hierarchy_levels"][1]["accesses_b"] == diff->levels[1].accesses_b);
  CHECK(diff->levels[1].accesses_a != diff->levels[1].accesses_b);  // the shuffle misses L1 more often
  // Cumulative errors are the local ones weighted by how much reaches the level: L2's is at most L1's
  // miss ratio times L2's local error plus L1's own error, and in JSON beside the local ones.
  for (std::size_t i = 1; i < diff->levels.size(); ++i) {
    const LevelComparison& l2 = diff->levels[i];
    if (l2.level != "L2") continue;
    const LevelComparison& up = diff->levels[i - 1];
    CAPTURE(l2.hierarchy);
    CHECK(l2.served_error() <= (1 - up.hit_a) * l2.abs_error() + up.abs_error() + 1e-12);
  }
  CHECK(j["hierarchy_levels"][1]["served_b"] == diff->levels[1].served_b);
  CHECK(j["hierarchy_served_error_per_level"]["L2"]["mean_abs"] == diff->per_level_served_error.at("L2").mean);
  // A shuffle keeps how many references each block and line has: the same concentration.
  REQUIRE(diff->concentration_a.size() == 2);
  REQUIRE(diff->concentration_b.size() == 2);
  for (std::size_t w = 0; w < 2; ++w) {
    CHECK(diff->concentration_a[w].width == (w == 0 ? 512u : 64u));
    CHECK(diff->concentration_a[w].units == diff->concentration_b[w].units);
    CHECK(diff->concentration_a[w].busy == diff->concentration_b[w].busy);
    CHECK(diff->concentration_a[w].top10 == diff->concentration_b[w].top10);
    CHECK(diff->concentration_a[w].top100 == diff->concentration_b[w].top100);
  }
  CHECK(j["concentration"]["a"][0]["width"] == 512);
  CHECK(j["concentration"]["b"][1]["units"] == diff->concentration_b[1].units);
}

TEST_CASE("concentration: shares of the busiest units and the busy count, by hand") {
  // 2,000 references: block 0 (512 B) 1,000, spread evenly over its eight 64 B
  // lines (125 each); blocks 1-20 49 each, on one line; blocks 21-40 one each.
  std::vector<Reference> t;
  for (std::uint64_t i = 0; i < 1000; ++i) t.push_back({i, (i % 8) * 64, 4, Kind::Read, Origin::Unknown, 0});
  for (std::uint64_t b = 1; b <= 20; ++b)
    for (int i = 0; i < 49; ++i) t.push_back({t.size(), b * 512 + 8, 4, Kind::Write, Origin::Unknown, 0});
  for (std::uint64_t b = 21; b <= 40; ++b) t.push_back({t.size(), b * 512 + 100, 4, Kind::Read, Origin::Unknown, 0});
  REQUIRE(t.size() == 2000);
  ConcentrationTool tool;
  REQUIRE(tool.init().ok());
  // In two batches, as the runner would.
  REQUIRE(tool.process(std::span<const Reference>(t.data(), 777)).ok());
  REQUIRE(tool.process(std::span<const Reference>(t.data() + 777, t.size() - 777)).ok());
  REQUIRE(tool.finish().ok());
  const auto& r = tool.result();
  REQUIRE(r.size() == 2);
  // 512 B: the busiest ten are block 0 and nine of the 49s; busy = at least 2 references.
  CHECK(r[0].width == 512);
  CHECK(r[0].units == 41);
  CHECK(r[0].busy == 21);
  CHECK(r[0].top10 == doctest::Approx((1000.0 + 9 * 49) / 2000));
  CHECK(r[0].top100 == doctest::Approx(1.0));
  // 64 B: eight lines of 125, then 49s.
  CHECK(r[1].width == 64);
  CHECK(r[1].units == 48);
  CHECK(r[1].busy == 28);
  CHECK(r[1].top10 == doctest::Approx((8 * 125.0 + 2 * 49) / 2000));
  const Json j = tool.to_json();
  CHECK(j["references"] == 2000);
  CHECK(j["widths"][1]["busy"] == 28);
  ConcentrationTool bad({48});
  CHECK(bad.init().error().message.find("48") != std::string::npos);
}

TEST_CASE("registry: names, all, errors") {
  ToolSettings s;
  auto all = make_tools("all", s);
  REQUIRE(all.ok());
  CHECK(all->size() == tool_catalog().size());
  auto two = make_tools("cache,reuse", s);
  REQUIRE(two.ok());
  CHECK((*two)[1]->name() == "reuse");
  auto bad = make_tools("cache,nope", s);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("unknown analysis 'nope'") == 0);
  CHECK_FALSE(make_tools("cache,,reuse", s).ok());
  CHECK_FALSE(make_tools("reuse,reuse", s).ok());
}

TEST_CASE("runner: several tools in one pass give the results of separate passes") {
  DemoWorkloadKnobs k;
  k.references = 30000;
  ToolSettings s;
  auto together = make_tools("all", s);
  REQUIRE(together.ok());
  DemoWorkload w(k);
  RunOptions ro;
  ro.progress = false;
  ro.batch = 777;  // batches need not align with anything
  auto n = run_tools(w, *together, ro);
  REQUIRE(n.ok());
  CHECK(*n == 30000);
  for (const auto& t : *together) {
    auto alone = make_tool(t->name(), s);
    REQUIRE(alone.ok());
    DemoWorkload w2(k);
    std::vector<std::unique_ptr<AnalysisTool>> one;
    one.push_back(std::move(*alone));
    REQUIRE(run_tools(w2, one, ro).ok());
    CHECK(one[0]->to_json().dump() == t->to_json().dump());
  }
}

TEST_CASE("runner: limit stops early and errors from the source are returned") {
  class Failing final : public ReferenceSource {
   public:
    Result<std::size_t> read(std::span<Reference> out) override {
      if (calls_++ == 0) {
        out[0] = hmtt::testing::ref(0);
        return std::size_t{1};
      }
      return make_error("t.din:2: bad access type 'x'");
    }
    int calls_ = 0;
  };
  Failing f;
  ReuseDistanceTool tool(ReuseDistanceKnobs{});
  AnalysisTool* tools[] = {&tool};
  auto n = run_tools(f, tools);
  REQUIRE_FALSE(n.ok());
  CHECK(n.error().message == "t.din:2: bad access type 'x'");
  DemoWorkload w(DemoWorkloadKnobs{});
  RunOptions ro;
  ro.limit = 1000;
  auto m = run_tools(w, tools, ro);
  REQUIRE(m.ok());
  CHECK(*m == 1000);
}

TEST_CASE("demo workload is deterministic and has CPU and DMA references") {
  DemoWorkloadKnobs k;
  k.references = 20000;
  DemoWorkload a(k), b(k);
  auto ra = collect(a), rb = collect(b);
  REQUIRE(ra.ok());
  REQUIRE(rb.ok());
  CHECK(*ra == *rb);
  std::size_t dma = 0;
  for (const auto& r : *ra) dma += r.origin == Origin::Dma;
  CHECK(dma > 100);
  CHECK(dma < 19000);
}
