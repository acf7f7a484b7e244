// The capture phase: stride bins, regions, merge, pattern buffer, loops.
#include <doctest/doctest.h>

#include "hmtt/psnap/psnap.h"
#include "streams.h"

using namespace hmtt;
using namespace hmtt::psnap;
using psnap_test::ref;

namespace {
StreamProfile profile_of(const std::vector<Reference>& t, PsnapKnobs k = {}) {
  StreamProfiler p(k);
  for (const auto& r : t) p.access(r);
  return p.finish();
}
std::uint64_t bin_count(const RegionProfile& r, std::string_view label) {
  return r.strides[static_cast<std::size_t>(stride_bin_of_label(label))];
}
}  // namespace

TEST_CASE("psnap stride bins: 0, +-2^0 .. +-2^8, random beyond 256") {
  CHECK(stride_bin_label(stride_bin(0)) == "0");
  CHECK(stride_bin_label(stride_bin(1)) == "+1");
  CHECK(stride_bin_label(stride_bin(3)) == "+2");
  CHECK(stride_bin_label(stride_bin(8)) == "+8");
  CHECK(stride_bin_label(stride_bin(24)) == "+16");
  CHECK(stride_bin_label(stride_bin(256)) == "+256");
  CHECK(stride_bin_label(stride_bin(511)) == "random");
  CHECK(stride_bin_label(stride_bin(257)) == "random");
  CHECK(stride_bin_label(stride_bin(-1)) == "-1");
  CHECK(stride_bin_label(stride_bin(-64)) == "-64");
  CHECK(stride_bin_label(stride_bin(-256)) == "-256");
  CHECK(stride_bin_label(stride_bin(-257)) == "random");
  CHECK(stride_bin_label(stride_bin(INT64_MIN)) == "random");
  CHECK(stride_bin_label(stride_bin(INT64_MAX)) == "random");
  for (int b = 0; b < kStrideBins; ++b) CHECK(stride_bin_of_label(stride_bin_label(b)) == b);
  CHECK(stride_bin_of_label("+3") == -1);
}

TEST_CASE("psnap regions: two interleaved sweeps give two regions with exact stride counts") {
  const auto t = psnap_test::two_sweeps(10);  // 10 x 512 pairs, one window
  const auto p = profile_of(t, PsnapKnobs{.pattern_buffer = 1024});
  REQUIRE(p.loops.size() == 1);
  CHECK(p.references == t.size());
  CHECK(p.order == std::vector<std::pair<std::uint32_t, std::uint64_t>>{{0, 1}});
  const auto& L = p.loops[0];
  CHECK(L.instances == 1);
  REQUIRE(L.regions.size() == 2);
  const auto& a = L.regions[0];
  const auto& b = L.regions[1];
  CHECK(a.base == 0x100000);
  CHECK(a.last == 0x100000 + 8 * 511);
  CHECK(a.first == 0x100000);
  CHECK(a.count == 5120);
  CHECK(a.working_set == 64);  // 4 KB / 64 B lines
  CHECK(bin_count(a, "+8") == 10 * 511);
  CHECK(bin_count(a, "random") == 9);  // the jump back to the start, 8 bytes short of 4 KB
  CHECK(a.exact[static_cast<std::size_t>(stride_bin(8))] == 8);
  CHECK(a.transitions[static_cast<std::size_t>(stride_bin(8) * kStrideBins + stride_bin(8))] == 10 * 510);
  CHECK(a.kinds[static_cast<std::size_t>(Kind::Read)] == 5120);
  REQUIRE(a.sizes.size() == 1);
  CHECK(a.sizes[0] == std::pair<std::uint32_t, std::uint64_t>{8, 5120});
  CHECK(b.base == 0x800000);
  CHECK(b.count == 5120);
  CHECK(b.working_set == 256);
  CHECK(bin_count(b, "+64") == 5120 - 20);  // 20 wraps of 16 KB
  CHECK(bin_count(b, "random") == 19);
  CHECK(b.kinds[static_cast<std::size_t>(Kind::Write)] == 5120);
  // Pattern buffer: the first 1 K runs, alternating, each of one access.
  REQUIRE(L.pattern.size() == 1024);
  for (std::size_t i = 0; i < L.pattern.size(); ++i)
    CHECK(L.pattern[i] == std::pair<std::uint32_t, std::uint64_t>(static_cast<std::uint32_t>(i % 2), 1));
  CHECK(a.runs == 5120);
  CHECK(b.runs == 5120);
  // PSnAP equation (1) with one loop and two regions.
  CHECK(p.complexity() == doctest::Approx((1000.0 + 2 * 3690.0) / 4690.0));
}

TEST_CASE("psnap regions: addresses within 256 bytes join a region, farther ones start a new one") {
  std::vector<Reference> t = {ref(0x1000), ref(0x1100), ref(0x1201), ref(0x1000), ref(0x1100), ref(0x1201)};
  auto p = profile_of(t, PsnapKnobs{.merge_below = 1});
  REQUIRE(p.loops.size() == 1);
  REQUIRE(p.loops[0].regions.size() == 2);  // 0x1000..0x1100 and 0x1201 (257 bytes away)
  CHECK(p.loops[0].regions[0].last == 0x1100);
  CHECK(p.loops[0].regions[1].base == 0x1201);
  // Growing a region towards a neighbour merges the two.
  t.push_back(ref(0x1180));
  p = profile_of(t, PsnapKnobs{.merge_below = 1});
  REQUIRE(p.loops[0].regions.size() == 1);
  CHECK(p.loops[0].regions[0].count == 7);
  CHECK(p.loops[0].regions[0].last == 0x1201);
  REQUIRE(p.loops[0].pattern.size() == 1);  // one run of all seven
  CHECK(p.loops[0].pattern[0] == std::pair<std::uint32_t, std::uint64_t>(0, 7));
  CHECK(p.loops[0].regions[0].runs == 1);  // the stream never left the joined region
  // Its strides are those of its own stream, 0x1000 0x1100 0x1201 0x1000
  // 0x1100 0x1201 0x1180: +256 +257 -513 +256 +257 -129, so the jumps
  // between the two regions it joined are random strides (257 and 513 bytes).
  CHECK(bin_count(p.loops[0].regions[0], "+256") == 2);
  CHECK(bin_count(p.loops[0].regions[0], "random") == 3);
  CHECK(bin_count(p.loops[0].regions[0], "-128") == 1);
  // Code and data never share a region.
  t = {ref(0x1000), ref(0x1008, Kind::IFetch), ref(0x1010), ref(0x1018, Kind::IFetch)};
  p = profile_of(t, PsnapKnobs{.merge_below = 1});
  REQUIRE(p.loops[0].regions.size() == 2);
  CHECK(p.loops[0].regions[0].code != p.loops[0].regions[1].code);
}

TEST_CASE("psnap merge: regions touched a few times (pointer chasing) become one region") {
  std::vector<Reference> t;
  for (std::uint64_t i = 0; i < 100; ++i) t.push_back(ref(0x10000000 + 4096 * ((i * 37) % 100)));  // 100 nodes, once each
  for (std::uint64_t i = 0; i < 400; ++i) t.push_back(ref(0x200000 + 8 * (i % 50)));            // one hot array
  const auto p = profile_of(t);
  REQUIRE(p.loops.size() == 1);
  const auto& L = p.loops[0];
  REQUIRE(L.regions.size() == 2);
  const RegionProfile* merged = nullptr;
  for (const auto& r : L.regions)
    if (r.merged) merged = &r;
  REQUIRE(merged != nullptr);
  CHECK(merged->merged == 100);
  CHECK(merged->count == 100);
  CHECK(merged->working_set == 100);
  CHECK(merged->base == 0x10000000);
  CHECK(merged->last == 0x10000000 + 4096 * 99);
  CHECK(bin_count(*merged, "random") == 99);
}

TEST_CASE("psnap merge: the merged stream's returns to its lines are kept (jump_reuse by distance)") {
  // 5 windows of one loop, each walking a 100-node list twice: 1000 merged
  // accesses, one stream across the windows (999 random strides); the
  // first 100 find new lines, the other 900 return to the line of 100 merged
  // accesses earlier (bin 6: 64 <= 100 < 128).
  const auto t = psnap_test::list_walks(5);
  const auto p = profile_of(t, PsnapKnobs{.window = 1000});
  REQUIRE(p.loops.size() == 1);
  CHECK(p.loops[0].instances == 5);
  const RegionProfile* merged = nullptr;
  for (const auto& r : p.loops[0].regions)
    if (r.merged) merged = &r;
  REQUIRE(merged != nullptr);
  CHECK(merged->merged == 500);  // 100 node regions in each of 5 windows
  CHECK(merged->count == 1000);
  CHECK(merged->working_set == 100);
  CHECK(bin_count(*merged, "random") == 999);
  // The list visits node 37 n mod 100: a step of +37 pages 63 times a walk, the sweep (10 walks),
  // and -63 pages 36 times. The sweep's returns (all but the first walk's 63) leave jump_reuse.
  REQUIRE(merged->sweeps.size() == 1);  // -63 pages goes the other way
  CHECK(merged->sweeps[0].stride == 37 * 4096);
  CHECK(merged->sweeps[0].count == 630);
  for (int k = 0; k < RegionProfile::kJumpBins; ++k)
    CHECK_MESSAGE(merged->jump_reuse[static_cast<std::size_t>(k)] == (k == 6 ? 900u - (630u - 63u) : 0u), "bin " << k);
  // With merge_below=2 a node region's 2 accesses a window keep it a
  // region of its own: nothing is merged.
  const auto q = profile_of(t, PsnapKnobs{.window = 1000, .merge_below = 2});
  for (const auto& r : q.loops[0].regions) CHECK(r.merged == 0);
}

TEST_CASE("psnap merge: scattered reads inside an array the loop already has join it, not the merged region") {
  // Window 0 writes array A (1000 lines of 128 bytes: one region of 125 KiB)
  // and array C (200 lines, 12 KiB). Windows 1 and 2 read back 250 slots of
  // A 512 bytes apart, twice each (regions of 2 accesses), and 500 fresh
  // slots of B, 24 of C and 476 of B2, once each: all under merge_below.
  // (B and B2 are 4 KiB apart, new in each window.) The same code
  // line runs throughout, so the three windows are one loop.
  constexpr std::uint64_t A = 0x20000000, B = 0x30000000, C = 0x50000000, B2 = 0x60000000;
  std::vector<Reference> t;
  auto data = [&t](std::uint64_t address, Kind kind) {
    t.push_back(ref(0x400000, Kind::IFetch, 4));
    t.push_back(ref(address, kind));
  };
  for (std::uint64_t i = 0; i < 1000; ++i) data(A + 128 * i, Kind::Write);
  for (std::uint64_t i = 0; i < 200; ++i) data(C + 64 * i, Kind::Write);
  for (std::uint64_t i = 0; i < 300; ++i) data(A + 128 * i, Kind::Write);  // the window's length
  for (int w = 1; w <= 2; ++w)
    for (std::uint64_t k = 0; k < 500; ++k) {
      // Slots in no constant stride (that would make them a lattice, one region).
      data(A + 512 * (k * 169 % 250), Kind::Read);
      data(B + 4096 * k + 0x1000000 * static_cast<std::uint64_t>(w), Kind::Read);
      data(k < 24 ? C + 512 * (k * 7 % 24) : B2 + 4096 * k + 0x1000000 * static_cast<std::uint64_t>(w), Kind::Read);
    }
  const auto p = profile_of(t, PsnapKnobs{.window = 3000});
  REQUIRE(p.loops.size() == 1);
  REQUIRE(p.loops[0].instances == 3);
  const RegionProfile *a = nullptr, *c = nullptr, *merged = nullptr;
  for (const auto& r : p.loops[0].regions) {
    if (r.merged) merged = &r;
    else if (r.base <= A && A < r.last) a = &r;
    else if (r.base <= C && C < r.last) c = &r;
  }
  REQUIRE(a != nullptr);
  REQUIRE(c != nullptr);
  REQUIRE(merged != nullptr);
  // A keeps its reads, and with them its lifetime: instances 0 to 2.
  CHECK(a->count == 1300 + 2 * 500);
  CHECK(a->kinds[static_cast<std::size_t>(Kind::Read)] == 2 * 500);
  CHECK(a->first_instance == 0);
  CHECK(a->last_instance == 2);
  CHECK(a->working_set == 1000);
  // C spans less than kJoinSpan: its reads stay in the merged region, with B's.
  CHECK(c->count == 200);
  CHECK(c->last_instance == 0);
  CHECK(merged->count == 2 * (500 + 500));
  CHECK(merged->base == B + 0x1000000);  // nothing of A in its range
}

TEST_CASE("psnap returns: counted across the loop's windows (returns=loop), or within each window") {
  // 4 windows of 1000 references, each reading the same 50 lines (one region) in one shuffled
  // order 20 times: 3999 strides, each to another line. Counted across the loop, every stride is a
  // return but the 49 to a line's first touch ever; counted within each window, the first touch of
  // every line in windows 1-3 (150 strides) is not one either.
  std::vector<std::uint64_t> order(50);
  for (std::uint64_t i = 0; i < order.size(); ++i) order[i] = i;
  std::uint64_t x = 11;
  for (std::size_t i = order.size() - 1; i > 0; --i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    std::swap(order[i], order[(x >> 33) % (i + 1)]);
  }
  REQUIRE(order.front() != order.back());
  std::vector<Reference> t;
  for (int pass = 0; pass < 80; ++pass)
    for (const auto line : order) t.push_back(psnap_test::ref(0x3000000 + 64 * line));
  for (std::size_t i = 0; i < t.size(); ++i) t[i].time = i;
  auto returns_of = [&](ReturnScope scope) {
    const auto p = profile_of(t, PsnapKnobs{.window = 1000, .returns = scope});
    REQUIRE(p.loops.size() == 1);
    REQUIRE(p.loops[0].regions.size() == 1);
    const RegionProfile& r = p.loops[0].regions[0];
    CHECK(r.count == 4000);
    CHECK(r.working_set == 50);
    CHECK(r.sweeps.empty());
    std::uint64_t n = 0;
    for (const auto c : r.jump_reuse) n += c;
    for (const auto c : r.move_reuse) n += c;
    return n;
  };
  CHECK(returns_of(ReturnScope::Loop) == 3999 - 49);
  CHECK(returns_of(ReturnScope::Window) == 3999 - 49 - 150);
  CHECK(PsnapKnobs{}.returns == ReturnScope::Loop);
}

TEST_CASE("psnap sweep: a table read down its columns keeps its +1024 stride, apart from jump_reuse") {
  const auto t = psnap_test::column_walk();  // 128 columns x 256 rows, one window
  const auto p = profile_of(t);
  REQUIRE(p.loops.size() == 1);
  REQUIRE(p.loops[0].regions.size() == 1);  // the rows' regions grow into each other
  const auto& r = p.loops[0].regions[0];
  CHECK(r.count == t.size());
  CHECK(bin_count(r, "random") == 128 * 255 + 127);  // the steps down, and the jumps to the next column
  REQUIRE(r.sweeps.size() == 1);
  CHECK(r.sweeps[0].stride == 1024);
  CHECK(r.sweeps[0].count == 128 * 255);
  // Each column is one long run of 255 steps down.
  CHECK(r.sweeps[0].runs == 128);
  CHECK(r.sweeps[0].long_runs == 128);
  // The steps down that returned to a line (256 accesses back: bin 8) are the sweep's; only the
  // jumps to the next column are left in jump_reuse.
  std::uint64_t returns = 0;
  for (const auto c : r.jump_reuse) returns += c;
  CHECK(returns <= 127);
  CHECK(r.jump_reuse[8] == returns);
  // Pointer chasing over random lines has no stride a quarter of its random ones: it keeps none.
  std::uint64_t chased = 0;
  for (const auto& l : profile_of(psnap_test::mixed(6)).loops)
    for (const auto& q : l.regions)
      if (q.merged) {
        chased += bin_count(q, "random");
        CHECK(q.sweeps.empty());
      }
  CHECK(chased > 1000);
}

TEST_CASE("psnap lattice: rows a constant stride apart, read in turn, join one region and keep their sweep") {
  // The first 8 columns of a 256 x 1 KB table, read down each column: each row's range stays 56 bytes
  // wide, 968 bytes short of the next row, so by distance alone every row is a region of its own.
  const auto t = psnap_test::column_walk(8);
  const auto p = profile_of(t);
  REQUIRE(p.loops.size() == 1);
  REQUIRE(p.loops[0].regions.size() == 1);
  const auto& r = p.loops[0].regions[0];
  CHECK(r.count == t.size());
  CHECK(r.base == 0x2000000);
  CHECK(r.last == 0x2000000 + 1024 * 255 + 8 * 7);
  REQUIRE(r.sweeps.size() == 1);
  CHECK(r.sweeps[0].stride == 1024);
  CHECK(r.sweeps[0].count == 8 * 255);
  // Off (as profiles made before it), each row is a region of its own (8 accesses, not merged).
  const auto off = profile_of(t, PsnapKnobs{.lattice_stride = 0});
  REQUIRE(off.loops.size() == 1);
  CHECK(off.loops[0].regions.size() == 256);
  for (const auto& q : off.loops[0].regions) CHECK(q.sweeps.empty());
  // Rows further apart than lattice_stride stay apart too.
  std::vector<Reference> wide;
  for (std::uint64_t c = 0; c < 8; ++c)
    for (std::uint64_t row = 0; row < 64; ++row) wide.push_back(ref(0x2000000 + 2048 * row + 8 * c));
  for (std::size_t i = 0; i < wide.size(); ++i) wide[i].time = i;
  CHECK(profile_of(wide).loops[0].regions.size() == 64);
  CHECK(profile_of(wide, PsnapKnobs{.lattice_stride = 2048}).loops[0].regions.size() == 1);
}

TEST_CASE("psnap loops: windows of the same phase share a loop; the order is run-length encoded") {
  std::vector<Reference> t;
  auto phase = [&](std::uint64_t base) {
    for (std::uint64_t i = 0; i < 2048; ++i) t.push_back(ref(base + 8 * (i % 256)));
  };
  phase(0x100000);  // windows 0, 1
  phase(0x900000);  // windows 2, 3
  phase(0x100000);  // windows 4, 5
  const auto p = profile_of(t, PsnapKnobs{.window = 1024});
  REQUIRE(p.loops.size() == 2);
  CHECK(p.order == std::vector<std::pair<std::uint32_t, std::uint64_t>>{{0, 2}, {1, 2}, {0, 2}});
  CHECK(p.loops[0].instances == 4);
  CHECK(p.loops[0].references == 4096);
  REQUIRE(p.loops[0].regions.size() == 1);  // the same array in every instance
  CHECK(p.loops[0].regions[0].count == 4096);
  CHECK(p.loops[1].instances == 2);
  // With similarity 1.0 required and disjoint phases nothing changes; with 0 every window is one loop.
  const auto one = profile_of(t, PsnapKnobs{.window = 1024, .loop_similarity = 0.0});
  CHECK(one.loops.size() == 1);
  CHECK(one.order == std::vector<std::pair<std::uint32_t, std::uint64_t>>{{0, 6}});
}

TEST_CASE("psnap loops: with loop_signature=code, windows running the same code on other data are one loop") {
  // The same eight instruction lines in every phase; the data moves to a new
  // array every 1024 references (a loop walking a buffer).
  std::vector<Reference> t;
  for (std::uint64_t phase = 0; phase < 6; ++phase)
    for (std::uint64_t i = 0; i < 512; ++i) {
      t.push_back(ref(0x400000 + 64 * (i % 8), Kind::IFetch, 4));
      t.push_back(ref(0x1000000 * (phase + 1) + 8 * i));
    }
  const auto code = profile_of(t, PsnapKnobs{.window = 1024});
  CHECK(code.knobs.loop_signature == LoopSignature::Code);
  REQUIRE(code.loops.size() == 1);
  CHECK(code.loops[0].instances == 6);
  CHECK(code.order == std::vector<std::pair<std::uint32_t, std::uint64_t>>{{0, 6}});
  // Each array lives in one instance, the code in all six; replay keeps each
  // array to its own instance (a loop walking fresh data keeps doing so).
  REQUIRE(code.loops[0].regions.size() == 7);
  for (const auto& r : code.loops[0].regions) {
    if (r.code) {
      CHECK(r.first_instance == 0);
      CHECK(r.last_instance == 5);
    } else {
      CHECK(r.first_instance == (r.base >> 24) - 1);
      CHECK(r.last_instance == r.first_instance);
    }
  }
  auto replay = make_replay(code, 0, 3);
  auto all = collect(*replay);
  REQUIRE(all.ok());
  REQUIRE(all->size() == t.size());
  std::size_t misplaced = 0;
  for (std::size_t i = 0; i < all->size(); ++i)
    if ((*all)[i].kind != Kind::IFetch && ((*all)[i].address >> 24) != i / 1024 + 1) ++misplaced;
  CHECK(misplaced == 0);
  // By pages, each phase is a new loop (its data pages are new; the code page is 1 of 2).
  const auto pages = profile_of(t, PsnapKnobs{.window = 1024, .loop_signature = LoopSignature::Pages});
  CHECK(pages.loops.size() == 6);
  // A window without instruction fetches falls back to its pages.
  std::vector<Reference> data_only;
  for (const auto& r : t)
    if (r.kind != Kind::IFetch) data_only.push_back(r);
  CHECK(profile_of(data_only, PsnapKnobs{.window = 512}).loops.size() == 6);
}
