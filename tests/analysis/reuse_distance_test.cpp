#include <doctest/doctest.h>

#include "hmtt/analysis/reuse_distance.h"
#include "hmtt/analysis/reuse_distance_tool.h"
#include "traces.h"

using namespace hmtt;
using namespace hmtt::analysis;
using hmtt::testing::NaiveLruStack;

namespace {
void check_against_oracle(const std::vector<Reference>& trace, std::uint64_t block_bytes) {
  LruStackDistance fast(block_bytes);
  NaiveLruStack naive;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const std::uint64_t b = trace[i].address / block_bytes;
    const std::uint64_t want = naive.access_block(b);
    const std::uint64_t got = fast.access(trace[i].address);
    if (got != want) {
      INFO("reference " << i << " block " << b);
      REQUIRE(got == want);
    }
  }
}
}  // namespace

TEST_CASE("exact stack distance: known answers") {
  LruStackDistance s(64);
  CHECK(s.access(0) == kColdMiss);      // A
  CHECK(s.access(64) == kColdMiss);     // B
  CHECK(s.access(128) == kColdMiss);    // C
  CHECK(s.access(8) == 2);              // A again: B, C in between
  CHECK(s.access(8) == 0);              // A immediately
  CHECK(s.access(130) == 1);            // C: A in between
  CHECK(s.access(64) == 2);             // B: A, C
  CHECK(s.distinct_blocks() == 3);
}

TEST_CASE("exact stack distance equals a brute-force LRU stack") {
  for (std::uint64_t bs : std::vector<std::uint64_t>{1, 8, 48, 64, 512}) {
    check_against_oracle(hmtt::testing::random_trace(20000, 1 << 16, 7, 0.0), bs);
    check_against_oracle(hmtt::testing::adversarial_trace(20000, 300, 11), bs);
  }
}

TEST_CASE("exact stack distance survives renumbering of positions") {
  // Longer than the initial 2^20 positions, small footprint: many renumberings.
  LruStackDistance fast(1);
  NaiveLruStack naive;
  std::uint64_t x = 12345;
  for (int i = 0; i < 2'500'000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const std::uint64_t b = (x >> 33) % 40;
    REQUIRE(fast.access_block(b) == naive.access_block(b));
  }
}

TEST_CASE("histogram buckets give exact hit ratios at power-of-two depths") {
  ReuseHistogram h;
  for (std::uint64_t d : std::vector<std::uint64_t>{0, 1, 2, 3, 4, 7, 8, kColdMiss}) h.add(d);
  CHECK(h.total() == 8);
  CHECK(h.cold() == 1);
  CHECK(h.hits_below(1) == 1);   // d=0
  CHECK(h.hits_below(2) == 2);   // d<2
  CHECK(h.hits_below(4) == 4);   // 0,1,2,3
  CHECK(h.hits_below(8) == 6);   // +4,7
  CHECK(h.hits_below(16) == 7);  // +8
}

TEST_CASE("tool: hit ratio per depth equals brute-force fully-associative LRU") {
  auto trace = hmtt::testing::adversarial_trace(30000, 200, 3);
  ReuseDistanceKnobs k;
  k.block_bytes = 64;
  auto tool = reuse_distance_tool_create(k);
  VectorSource src(trace);
  AnalysisTool* tools[] = {tool.get()};
  auto n = run_tools(src, tools);
  REQUIRE(n.ok());
  const auto& r = dynamic_cast<ReuseDistanceTool&>(*tool).result();
  for (const auto& p : r.curve) {
    // Brute force: a fully-associative LRU of `depth` blocks.
    std::vector<std::uint64_t> lru;
    std::uint64_t misses = 0;
    for (const auto& ref : trace) {
      const std::uint64_t b = ref.address / 64;
      auto it = std::find(lru.begin(), lru.end(), b);
      if (it == lru.end()) {
        ++misses;
        if (lru.size() == p.depth) lru.pop_back();
      } else {
        lru.erase(it);
      }
      lru.insert(lru.begin(), b);
    }
    CHECK(p.miss_ratio == doctest::Approx(static_cast<double>(misses) / static_cast<double>(trace.size())).epsilon(1e-12));
    if (p.depth >= 1024) break;
  }
}

TEST_CASE("sampled mode reports its error against exact and stays close on a large footprint") {
  // Zipf-like reuse over 200k blocks: distances large compared to 1/R.
  std::vector<Reference> t;
  std::uint64_t x = 99;
  for (int i = 0; i < 400000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(x >> 11) / 9007199254740992.0;
    const auto b = static_cast<std::uint64_t>(200000.0 * u * u * u);
    t.push_back(hmtt::testing::ref(b * 64));
  }
  ReuseDistanceKnobs k;
  k.sampled = true;
  k.rate = 0.1;
  k.verify = true;
  ReuseDistanceTool tool(k);
  VectorSource src(t);
  AnalysisTool* tools[] = {&tool};
  REQUIRE(run_tools(src, tools).ok());
  const auto& r = tool.result();
  REQUIRE(r.error.has_value());
  CHECK(r.sampled_references > 0);
  CHECK(r.sampled_references < r.references);
  CHECK(r.error->mean_abs < 0.03);
  CHECK(r.error->max_abs < 0.15);
}

TEST_CASE("tool rejects bad knobs") {
  ReuseDistanceKnobs k;
  k.sampled = true;
  k.rate = 0;
  ReuseDistanceTool tool(k);
  VectorSource src({});
  AnalysisTool* tools[] = {&tool};
  auto n = run_tools(src, tools);
  REQUIRE_FALSE(n.ok());
  CHECK(n.error().message.find("reuse: sampling rate") == 0);
}
