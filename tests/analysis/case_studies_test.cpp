// HMTT case-study analyses on constructed traces with known answers, and the
// stream detector against a brute-force reading of its definition.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "hmtt/analysis/bandwidth.h"
#include "hmtt/analysis/cache_surface.h"
#include "hmtt/analysis/dma.h"
#include "hmtt/analysis/process_interleaving.h"
#include "hmtt/analysis/scr.h"
#include "traces.h"

using namespace hmtt;
using namespace hmtt::analysis;
using hmtt::testing::ref;

namespace {

// Brute force: a is a stream access in window W when some earlier position q in
// [p-W, p) holds x != a and y = 2x - a was last referenced at a position in [p-W, q).
std::int64_t naive_stream(const std::vector<std::uint64_t>& lines, std::size_t p, std::uint64_t w) {
  const std::uint64_t a = lines[p];
  for (std::size_t back = 1; back <= w && back <= p; ++back) {
    const std::size_t q = p - back;
    const std::uint64_t x = lines[q];
    if (x == a) continue;
    const std::uint64_t y = x - (a - x);
    std::int64_t last = -1;
    for (std::size_t k = 0; k < p; ++k)
      if (lines[k] == y) last = static_cast<std::int64_t>(k);
    if (last < 0) continue;
    if (static_cast<std::int64_t>(q) > last && static_cast<std::int64_t>(p) - last <= static_cast<std::int64_t>(w))
      return static_cast<std::int64_t>(a - x);
  }
  return 0;
}

template <typename Tool>
void run_one(Tool& tool, std::vector<Reference> trace) {
  VectorSource src(std::move(trace));
  AnalysisTool* tools[] = {&tool};
  auto n = run_tools(src, tools);
  REQUIRE(n.ok());
}

}  // namespace

TEST_CASE("stream detector equals the brute-force definition on random and adversarial lines") {
  std::mt19937_64 rng(4);
  std::vector<std::uint64_t> lines;
  for (int i = 0; i < 3000; ++i) {
    switch (rng() % 3) {
      case 0: lines.push_back(rng() % 64); break;              // dense random: many accidental triples
      case 1: { std::uint64_t b = rng() % 1000, s = 1 + rng() % 5;  // short interleaved streams
        for (int k = 0; k < 6; ++k) lines.push_back(b + s * static_cast<std::uint64_t>(k)); } break;
      default: lines.push_back(rng()); break;                  // far away, huge values (wrap-around)
    }
  }
  StreamDetector det({8, 16, 32, 64});
  for (std::size_t p = 0; p < lines.size(); ++p) {
    auto got = det.access(lines[p]);
    const std::uint64_t ws[] = {8, 16, 32, 64};
    for (int i = 0; i < 4; ++i) {
      INFO("position " << p << " window " << ws[i]);
      REQUIRE(got[static_cast<std::size_t>(i)] == naive_stream(lines, p, ws[i]));
    }
  }
}

TEST_CASE("SCR known answers: one sequential stream, two interleaved, a random walk") {
  ScrKnobs k;
  SUBCASE("a sequential stream of 100 lines: all but the first two") {
    ScrTool t(k);
    std::vector<Reference> tr;
    for (std::uint64_t i = 0; i < 100; ++i) tr.push_back(ref(i * 64));
    run_one(t, tr);
    for (const auto& c : t.result().physical) CHECK(c.stream == 98);
    CHECK(t.result().physical_strides.counts.at(1) == 98);
  }
  SUBCASE("four interleaved streams with stride 3: window 8 sees them, so does 64") {
    ScrTool t(k);
    std::vector<Reference> tr;
    for (std::uint64_t i = 0; i < 50; ++i)
      for (std::uint64_t s = 0; s < 4; ++s) tr.push_back(ref(((std::uint64_t{1} << (20 + s)) + 3 * i) * 64));  // bases without 3-term progressions
    run_one(t, tr);
    for (const auto& c : t.result().physical) CHECK(c.stream == 4 * 48);
    CHECK(t.result().physical_strides.counts.at(3) == 4 * 48);
  }
  SUBCASE("eight interleaved streams: the 8-entry window cannot see them, 16 can") {
    ScrTool t(k);
    std::vector<Reference> tr;
    for (std::uint64_t i = 0; i < 50; ++i)
      for (std::uint64_t s = 0; s < 8; ++s) tr.push_back(ref(((std::uint64_t{1} << (20 + s)) + i) * 64));
    run_one(t, tr);
    CHECK(t.result().physical[0].stream == 0);       // y is 16 references back
    CHECK(t.result().physical[1].stream == 8 * 48);  // window 16
  }
}

TEST_CASE("virtual SCR: contiguous virtual pages on scattered physical pages (paper Fig. 10 / 12b)") {
  // Virtual pages 0..9 of pid 7 map to physical pages 10*i + 3 (non-contiguous).
  auto pm = std::make_shared<PageMap>(4096);
  for (std::uint64_t v = 0; v < 10; ++v) pm->add({0, 7, 10 * v + 3, v});
  pm->add({5, 8, 3, 100});  // page 3 is later remapped (time 5)
  ScrKnobs k;
  k.page_map = pm;
  ScrTool t(k);
  std::vector<Reference> tr;
  // Walk 10 virtual pages line by line (64 lines each), in physical addresses, at time 1.
  for (std::uint64_t v = 0; v < 10; ++v)
    for (std::uint64_t l = 0; l < 64; ++l) tr.push_back(ref((10 * v + 3) * 4096 + l * 64, Kind::Read, 1));
  tr.push_back(ref(999 * 4096, Kind::Read, 1));  // unmapped
  run_one(t, tr);
  const auto& r = t.result();
  // Physical: each page is its own stream of 64 lines -> 62 per page (page jumps break it
  // except where a jump of 10 pages repeats: x - (a - x) lands in the previous page's range).
  CHECK(r.virtual_view[2].stream == 640 - 2);   // one unbroken virtual stream
  CHECK(r.virtual_view[2].references == 640);
  CHECK(r.unmapped == 1);
  CHECK(r.physical[2].stream < r.virtual_view[2].stream);
  CHECK(r.remaps.at(1) == 9);  // nine pages mapped once
  CHECK(r.remaps.at(2) == 1);  // page 3 mapped twice
  auto before = pm->translate(3 * 4096 + 8, 4);
  auto after = pm->translate(3 * 4096 + 8, 5);
  REQUIRE(before);
  REQUIRE(after);
  CHECK(before->pid == 7);
  CHECK(before->address == 8);
  CHECK(after->pid == 8);
  CHECK(after->address == 100 * 4096 + 8);
  CHECK(pm->translate(3 * 4096, 0).has_value());     // mapped from time 0
  CHECK_FALSE(pm->translate(55 * 4096, 9).has_value());  // never mapped
}

TEST_CASE("page-map file errors name file and line") {
  auto ok = PageMap::parse("# t pid phys virt\n10 1 0x20 0x30\n", "pm.txt");
  REQUIRE(ok.ok());
  CHECK(ok->mappings() == 1);
  auto bad = PageMap::parse("1 2 3\n", "pm.txt");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "pm.txt:1: expected 'TIME PID PHYS_PAGE VIRT_PAGE', got 3 fields");
  auto bad2 = PageMap::parse("\n1 2 zz 3\n", "pm.txt");
  REQUIRE_FALSE(bad2.ok());
  CHECK(bad2.error().message == "pm.txt:2: bad physical page 'zz'");
}

TEST_CASE("process interleaving: per-process SCR and run lengths (Fig. 13b, 13d)") {
  // Two sequential streams; pids alternate in runs of 3 and 5, known from a side list.
  std::vector<Reference> tr;
  auto pids = std::make_shared<PidList>();
  std::uint64_t a = 0, b = 0;
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 3; ++i) tr.push_back(ref((a++) * 64));
    for (int i = 0; i < 5; ++i) tr.push_back(ref((1 << 30) + (b++) * 64));
    pids->runs.push_back({1, 3});
    pids->runs.push_back({2, 5});
  }
  ProcessKnobs k;
  k.pids = pids;
  k.window = 4;  // too small to see across the other process's run of 5
  ProcessTool t(k);
  run_one(t, tr);
  const auto& r = t.result();
  CHECK(r.per_process.at(1).references == 60);
  CHECK(r.per_process.at(1).stream == 58);
  CHECK(r.per_process.at(2).stream == 98);
  CHECK(r.mixed.stream < r.per_process.at(1).stream + r.per_process.at(2).stream);
  CHECK(r.runs.at(3) == 20);
  CHECK(r.runs.at(5) == 20);
  CHECK(r.run_count() == 40);
  CHECK(r.run_cdf().front().second == doctest::Approx(0.5));

  // A pid list shorter than the trace is an error naming the reference.
  auto short_list = std::make_shared<PidList>();
  short_list->runs.push_back({1, 10});
  ProcessKnobs k2;
  k2.pids = short_list;
  ProcessTool t2(k2);
  VectorSource src(tr);
  AnalysisTool* tools[] = {&t2};
  auto n = run_tools(src, tools);
  REQUIRE_FALSE(n.ok());
  CHECK(n.error().message.find("process: pid list has 10 entries") == 0);
  auto parsed = PidList::parse("1 3\n2\n", "p.txt");
  REQUIRE(parsed.ok());
  CHECK(parsed->size() == 4);
  CHECK_FALSE(PidList::parse("1 0\n", "p.txt").ok());
}

TEST_CASE("DMA shares and requests (Table 3, Table 4, Fig. 16 shapes)") {
  std::vector<Reference> tr;
  auto r = [&](std::uint64_t addr, Kind k, Origin o, std::uint16_t dev) {
    Reference x = ref(addr, k);
    x.size = 64;
    x.origin = o;
    x.source = dev;
    tr.push_back(x);
  };
  // Device 1 writes a 4 KB request (64 refs) interleaved with CPU reads; then a
  // 128-byte request elsewhere. Device 2 reads 1 KB. Two unknown references.
  for (std::uint64_t i = 0; i < 64; ++i) {
    r(0x100000 + i * 64, Kind::Write, Origin::Dma, 1);
    r(0x900000 + i * 64, Kind::Read, Origin::Cpu, 0);
  }
  r(0x500000, Kind::Write, Origin::Dma, 1);
  r(0x500040, Kind::Write, Origin::DmaModelled, 1);
  for (std::uint64_t i = 0; i < 16; ++i) r(0x200000 + i * 64, Kind::Read, Origin::Dma, 2);
  r(0x10, Kind::Write, Origin::Cpu, 0);
  r(0x20, Kind::Write, Origin::Unknown, 0);
  r(0x30, Kind::Read, Origin::Unknown, 0);
  DmaTool t(DmaKnobs{});
  run_one(t, tr);
  const auto& d = t.result();
  CHECK(d.total == 64 + 64 + 2 + 16 + 3);
  CHECK(d.counts[0][0] == 64);  // CPU read
  CHECK(d.counts[0][1] == 1);   // CPU write
  CHECK(d.counts[1][1] == 66);  // DMA write
  CHECK(d.counts[1][0] == 16);  // DMA read
  CHECK(d.counts[2][0] == 1);
  CHECK(d.counts[2][1] == 1);
  const auto& w = d.requests.at({1, 1});
  CHECK(w.requests == 2);
  CHECK(w.sizes.at(4096) == 1);
  CHECK(w.sizes.at(128) == 1);
  CHECK(w.average_bytes() == doctest::Approx(2112));
  CHECK(d.requests.at({2, 0}).requests == 1);
  CHECK(d.requests.at({2, 0}).bytes == 1024);
}

TEST_CASE("bandwidth: known rate and a time-order error") {
  // 1000 references of 64 B, one per tick of 5000 ps, intervals of 100 ticks (0.5 us):
  // 6400 B per 0.5 us = 12800 MB/s.
  std::vector<Reference> tr;
  for (std::uint64_t i = 0; i < 1000; ++i) tr.push_back(ref(i * 64, Kind::Read, i, 64));
  BandwidthKnobs k;
  k.interval_ticks = 100;
  BandwidthTool t(k);
  run_one(t, tr);
  REQUIRE(t.result().series.size() == 10);
  CHECK(t.result().series[3].mb_per_s == doctest::Approx(12800));
  CHECK(t.result().average_mb_per_s == doctest::Approx(12800));
  CHECK(t.result().average_trace_mb_per_s == doctest::Approx(800));
  tr.push_back(ref(0, Kind::Read, 5, 64));
  BandwidthTool t2(k);
  VectorSource src(tr);
  AnalysisTool* tools[] = {&t2};
  auto n = run_tools(src, tools);
  REQUIRE_FALSE(n.ok());
  CHECK(n.error().message == "bandwidth: reference 1000: time 5 is before the previous reference's 999 (bandwidth needs a time-ordered trace)");
}

TEST_CASE("cache surface equals brute-force fully-associative LRU at every width") {
  auto trace = hmtt::testing::adversarial_trace(6000, 90, 8);
  CacheSurfaceKnobs k;
  k.depths = {1, 4, 16, 64, 256};
  CacheSurfaceTool t(k);
  run_one(t, trace);
  const auto& s = t.result();
  for (std::size_t wi = 0; wi < s.widths.size(); ++wi) {
    for (std::size_t di = 0; di < s.depths.size(); ++di) {
      std::vector<std::uint64_t> lru;
      std::uint64_t hits = 0;
      for (const auto& r : trace) {
        const std::uint64_t b = r.address / s.widths[wi];
        auto it = std::find(lru.begin(), lru.end(), b);
        if (it != lru.end()) {
          ++hits;
          lru.erase(it);
        } else if (lru.size() == s.depths[di]) {
          lru.pop_back();
        }
        lru.insert(lru.begin(), b);
      }
      CHECK(s.hit[wi][di] == doctest::Approx(static_cast<double>(hits) / static_cast<double>(trace.size())).epsilon(1e-12));
    }
  }
}

#include "hmtt/analysis/tool_registry.h"

TEST_CASE("every tool survives addresses at the top of the address space") {
  std::vector<Reference> tr;
  const std::uint64_t top = ~std::uint64_t{0};
  for (std::uint64_t i = 0; i < 300; ++i) {
    Reference r = ref(top - (i % 7) * 8, i % 2 ? Kind::Write : Kind::Read, i, 64);
    r.origin = i % 3 ? Origin::Cpu : Origin::Dma;
    tr.push_back(r);
    tr.push_back(ref(i * 64, Kind::Modify, i, 0));
  }
  ToolSettings s;
  auto tools = make_tools("all", s);
  REQUIRE(tools.ok());
  VectorSource src(tr);
  RunOptions ro;
  ro.progress = false;
  auto n = run_tools(src, *tools, ro);
  REQUIRE(n.ok());
  CHECK(*n == 600);
  for (const auto& t : *tools) CHECK_FALSE(t->to_json().dump().empty());
  // The cache saw every reference: 300 spanning the top (clipped at the last byte) + 300 modifies.
  const Json j = (*tools)[0]->to_json();
  CHECK(j["hierarchies"][0]["levels"][0]["accesses"].get<std::uint64_t>() >= 900);
}
