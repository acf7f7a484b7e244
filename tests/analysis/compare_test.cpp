#include <doctest/doctest.h>

#include "hmtt/analysis/compare.h"
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
