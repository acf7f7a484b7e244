#include <doctest/doctest.h>

#include <list>
#include <map>

#include "hmtt/analysis/cache.h"
#include "hmtt/analysis/cache_sim.h"
#include "hmtt/analysis/hierarchy.h"
#include "traces.h"

using namespace hmtt;
using namespace hmtt::analysis;

namespace {

// A straightforward cache: each set is a list ordered by the policy (front =
// next victim for FIFO/LRU), PLRU as an explicit tree walked by ranges.
class NaiveCache {
 public:
  NaiveCache(std::uint64_t size, std::uint64_t line, std::uint64_t ways, std::string policy, bool wb = true,
             bool wa = true, std::uint64_t seed = 1)
      : line_(line), ways_(ways == 0 ? size / line : ways), policy_(std::move(policy)), wb_(wb), wa_(wa),
        rng_(seed * 0x9e3779b97f4a7c15ULL + 1) {
    sets_ = size / line / ways_;
    slots_.assign(sets_, std::vector<Slot>(ways_));
    tree_.assign(sets_, std::vector<int>(2 * ways_, 0));
  }
  struct Result {
    bool hit = false, dirty_victim = false;
    std::uint64_t victim = 0;
  };
  Result access(std::uint64_t addr, bool write) {
    Result r;
    const std::uint64_t lineno = addr / line_;
    const std::uint64_t set = lineno % sets_;
    auto& s = slots_[set];
    for (std::size_t w = 0; w < ways_; ++w) {
      if (s[w].valid && s[w].line == lineno) {
        r.hit = true;
        s[w].used = ++clock_;
        if (write && wb_) s[w].dirty = true;
        plru_use(set, w, 0, ways_, 1);
        ++hits;
        ++accesses;
        return r;
      }
    }
    ++accesses;
    if (write && !wa_) return r;
    std::size_t victim = ways_;
    for (std::size_t w = 0; w < ways_ && victim == ways_; ++w)
      if (!s[w].valid) victim = w;
    if (victim == ways_) {
      if (policy_ == "lru") {
        victim = 0;
        for (std::size_t w = 0; w < ways_; ++w) if (s[w].used < s[victim].used) victim = w;
      } else if (policy_ == "fifo") {
        victim = 0;
        for (std::size_t w = 0; w < ways_; ++w) if (s[w].filled < s[victim].filled) victim = w;
      } else if (policy_ == "random") {
        rng_ ^= rng_ >> 12; rng_ ^= rng_ << 25; rng_ ^= rng_ >> 27;
        victim = static_cast<std::size_t>((rng_ * 0x2545F4914F6CDD1DULL) >> 32) % ways_;
      } else {
        victim = plru_victim(set, 0, ways_, 1);
      }
      r.dirty_victim = s[victim].dirty;
      r.victim = s[victim].line * line_;
    }
    s[victim] = Slot{true, write && wb_, lineno, ++clock_, clock_};
    plru_use(set, victim, 0, ways_, 1);
    return r;
  }
  std::uint64_t hits = 0, accesses = 0;
  std::uint64_t line_;

 private:
  struct Slot {
    bool valid = false, dirty = false;
    std::uint64_t line = 0, used = 0, filled = 0;
  };
  // tree node `node` covers ways [lo, hi); value 0 = victim on the left half.
  void plru_use(std::uint64_t set, std::size_t way, std::size_t lo, std::size_t hi, std::size_t node) {
    if (hi - lo <= 1) return;
    const std::size_t mid = (lo + hi) / 2;
    if (way < mid) { tree_[set][node] = 1; plru_use(set, way, lo, mid, 2 * node); }
    else { tree_[set][node] = 0; plru_use(set, way, mid, hi, 2 * node + 1); }
  }
  std::size_t plru_victim(std::uint64_t set, std::size_t lo, std::size_t hi, std::size_t node) {
    if (hi - lo <= 1) return lo;
    const std::size_t mid = (lo + hi) / 2;
    return tree_[set][node] == 0 ? plru_victim(set, lo, mid, 2 * node) : plru_victim(set, mid, hi, 2 * node + 1);
  }
  std::uint64_t ways_, sets_;
  std::string policy_;
  bool wb_, wa_;
  std::uint64_t rng_, clock_ = 0;
  std::vector<std::vector<Slot>> slots_;
  std::vector<std::vector<int>> tree_;
};

// A straightforward non-inclusive write-back write-allocate chain.
struct NaiveChain {
  std::vector<NaiveCache> levels;
  void access(std::size_t i, std::uint64_t addr, bool write, bool writeback) {
    if (i == levels.size()) return;
    NaiveCache& c = levels[i];
    const std::uint64_t hits0 = c.hits, acc0 = c.accesses;
    auto r = c.access(addr, write);
    if (writeback) {  // write-backs are not demand accesses
      c.hits = hits0;
      c.accesses = acc0;
    }
    if (r.dirty_victim) access(i + 1, r.victim, true, true);
    if (!r.hit && !writeback) access(i + 1, addr / c.line_ * c.line_, false, false);
  }
};

}  // namespace

TEST_CASE("each replacement policy matches a straightforward cache") {
  for (std::string policy : {"lru", "fifo", "random", "plru"}) {
    for (std::uint64_t ways : std::vector<std::uint64_t>{1, 2, 4, 8}) {
      CacheConfig cfg;
      cfg.size_bytes = 4096;
      cfg.line_bytes = 64;
      cfg.ways = ways;
      cfg.policy = policy;
      cfg.seed = 5;
      auto c = Cache::create(cfg);
      REQUIRE(c.ok());
      NaiveCache naive(4096, 64, ways, policy, true, true, 5);
      auto trace = hmtt::testing::adversarial_trace(20000, 80, 17);
      auto more = hmtt::testing::random_trace(20000, 16384, 3);
      trace.insert(trace.end(), more.begin(), more.end());
      for (const auto& r : trace) {
        const bool w = r.kind == Kind::Write;
        auto got = c->access(r.address / 64, w ? CacheOp::Write : CacheOp::Read);
        auto want = naive.access(r.address, w);
        REQUIRE(got.hit == want.hit);
        REQUIRE(got.evicted_dirty == want.dirty_victim);
        if (want.dirty_victim) REQUIRE(got.victim_line * 64 == want.victim);
      }
      CHECK(c->stats().hits() == naive.hits);
    }
  }
}

TEST_CASE("bad geometry and policy names are errors naming the cache") {
  CacheConfig cfg;
  cfg.name = "L2";
  cfg.size_bytes = 1000;
  auto c = Cache::create(cfg);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message.find("L2: size 1000") == 0);
  cfg.size_bytes = 4096;
  cfg.ways = 3;
  cfg.policy = "plru";
  CHECK_FALSE(Cache::create(cfg).ok());
  cfg.ways = 4;
  cfg.policy = "mru";
  auto d = Cache::create(cfg);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message.find("unknown replacement policy 'mru'") != std::string::npos);
}

TEST_CASE("PSnAP Table 1 hierarchies in one pass equal ten separate straightforward chains") {
  auto configs = psnap_hierarchies();
  REQUIRE(configs.size() == 10);
  auto sim = HierarchySimulator::create(configs);
  REQUIRE(sim.ok());
  // Shared prefixes: 5 distinct L1s; L2s: 1,2,3(=5),4,6,7,8,9,10 -> 9; L3: 2.
  CHECK(sim->simulated_caches() == 5 + 9 + 2);
  std::vector<NaiveChain> naive;
  for (const auto& h : configs) {
    NaiveChain ch;
    for (const auto& l : h.levels)
      ch.levels.emplace_back(l.data.size_bytes, l.data.line_bytes, l.data.ways, "lru");
    naive.push_back(std::move(ch));
  }
  auto trace = hmtt::testing::random_trace(60000, 4 << 20, 9);
  auto adv = hmtt::testing::adversarial_trace(60000, 5000, 2);
  trace.insert(trace.end(), adv.begin(), adv.end());
  for (auto& r : trace) r.size = 8;
  sim->access(trace);
  for (const auto& r : trace)
    for (auto& ch : naive) ch.access(0, r.address, r.kind == Kind::Write, false);
  auto results = sim->results();
  for (std::size_t h = 0; h < configs.size(); ++h) {
    INFO(configs[h].name);
    for (std::size_t l = 0; l < results[h].levels.size(); ++l) {
      CHECK(results[h].levels[l].data.accesses() == naive[h].levels[l].accesses);
      CHECK(results[h].levels[l].data.hits() == naive[h].levels[l].hits);
    }
  }
}

TEST_CASE("hierarchy file: parse, round trip and errors with file:line") {
  const char* text =
      "# two hierarchies\n"
      "hierarchy small inclusive\n"
      "  L1I 1K 64 2 plru\n"
      "  L1D 1K 64 2 lru write-through no-write-allocate\n"
      "  L2 8K 64 full fifo\n"
      "hierarchy r\n"
      "  L1 2K 32 4 random seed=7\n";
  auto h = parse_hierarchies(text, "h.txt");
  REQUIRE(h.ok());
  REQUIRE(h->size() == 2);
  CHECK((*h)[0].inclusive);
  REQUIRE((*h)[0].levels.size() == 2);
  CHECK((*h)[0].levels[0].instruction.has_value());
  CHECK((*h)[0].levels[0].data.write_back == false);
  CHECK((*h)[0].levels[1].data.ways == 0);
  CHECK((*h)[1].levels[0].data.seed == 7);
  auto again = parse_hierarchies(format_hierarchies(*h), "again");
  REQUIRE(again.ok());
  CHECK((*again)[0].levels == (*h)[0].levels);
  CHECK((*again)[1].levels == (*h)[1].levels);
  auto psnap_text = format_hierarchies(psnap_hierarchies());
  auto psnap_again = parse_hierarchies(psnap_text, "psnap");
  REQUIRE(psnap_again.ok());
  CHECK(psnap_again->size() == 10);

  auto bad = parse_hierarchies("hierarchy x\n  L1 32K 64 2\n  L3 1M 64 8\n", "bad.txt");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "bad.txt:3: expected level L2, got L3");
  auto bad2 = parse_hierarchies("hierarchy x\n  L1 32Q 64 2\n", "b2");
  REQUIRE_FALSE(bad2.ok());
  CHECK(bad2.error().message.find("b2:2: bad cache size") == 0);
  CHECK_FALSE(parse_hierarchies("L1 32K 64 2\n", "b3").ok());
  CHECK_FALSE(parse_hierarchies("hierarchy x\n L1I 1K 64 2\n", "b4").ok());
}

TEST_CASE("inclusive hierarchy back-invalidates the level above (known answer)") {
  // L1: 4 lines fully associative; L2: 2 lines fully associative; 64-byte lines.
  auto h = parse_hierarchies("hierarchy inc inclusive\n L1 256 64 full\n L2 128 64 full\n"
                             "hierarchy non\n L1 256 64 full\n L2 128 64 full\n", "t");
  REQUIRE(h.ok());
  auto sim = HierarchySimulator::create(*h);
  REQUIRE(sim.ok());
  using hmtt::testing::ref;
  // A B C: L2 evicts A when C arrives; inclusive drops A from L1 too.
  for (std::uint64_t a : {0, 64, 128, 0}) sim->access(ref(a));
  auto r = sim->results();
  CHECK(r[0].levels[0].data.hits() == 0);  // inclusive: A was invalidated
  CHECK(r[1].levels[0].data.hits() == 1);  // non-inclusive: A still in L1
  CHECK(r[0].levels[0].data.invalidations == 2);  // A when C arrives, B when A returns
}

TEST_CASE("write-through and no-write-allocate (known answer)") {
  auto h = parse_hierarchies("hierarchy wt\n L1 256 64 full lru write-through no-write-allocate\n L2 1K 64 full\n", "t");
  REQUIRE(h.ok());
  auto sim = HierarchySimulator::create(*h);
  REQUIRE(sim.ok());
  using hmtt::testing::ref;
  sim->access(ref(0, Kind::Write));  // miss, not allocated, goes to L2 (allocates there)
  sim->access(ref(0, Kind::Read));   // L1 miss, L2 hit
  sim->access(ref(0, Kind::Write));  // L1 hit, written through to L2
  auto r = sim->results()[0];
  CHECK(r.levels[0].data.accesses() == 3);
  CHECK(r.levels[0].data.hits() == 1);
  CHECK(r.levels[1].data.writes == 2);
  CHECK(r.levels[1].data.reads == 1);
  CHECK(r.levels[1].data.hits() == 2);
  CHECK(r.levels[0].data.writebacks_out == 0);
}

TEST_CASE("split I/D level sends instruction fetches to the instruction cache") {
  auto h = parse_hierarchies("hierarchy s\n L1I 1K 64 2\n L1D 1K 64 2\n L2 8K 64 4\n", "t");
  REQUIRE(h.ok());
  auto sim = HierarchySimulator::create(*h);
  REQUIRE(sim.ok());
  using hmtt::testing::ref;
  sim->access(ref(0, Kind::IFetch));
  sim->access(ref(0, Kind::IFetch));
  sim->access(ref(0, Kind::Read));  // data cache has not seen it
  auto r = sim->results()[0];
  REQUIRE(r.levels[0].instruction.has_value());
  CHECK(r.levels[0].instruction->ifetches == 2);
  CHECK(r.levels[0].instruction->ifetch_hits == 1);
  CHECK(r.levels[0].data.reads == 1);
  CHECK(r.levels[0].data.read_hits == 0);
  CHECK(r.levels[1].data.hits() == 1);  // the read finds the line fetched for the instruction
}

TEST_CASE("a reference spanning two lines touches both") {
  auto h = parse_hierarchies("hierarchy s\n L1 1K 64 2\n", "t");
  auto sim = HierarchySimulator::create(*h);
  REQUIRE(sim.ok());
  sim->access(hmtt::testing::ref(60, Kind::Read, 0, 8));
  CHECK(sim->results()[0].levels[0].data.accesses() == 2);
}

TEST_CASE("cache tool: unknown hierarchy file is an init error") {
  CacheSimKnobs k;
  k.hierarchy = "/nonexistent/h.txt";
  CacheSimTool tool(k);
  VectorSource src({});
  AnalysisTool* tools[] = {&tool};
  auto n = run_tools(src, tools);
  REQUIRE_FALSE(n.ok());
  CHECK(n.error().message.find("cache: /nonexistent/h.txt: cannot open") == 0);
}
