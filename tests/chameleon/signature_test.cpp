// Chameleon signature capture: known-answer streams with exact counts for the
// reuse histogram and the access-history trees, bins, sampling and regions.
#include <doctest/doctest.h>

#include "hmtt/chameleon/chameleon.h"

using namespace hmtt;
using namespace hmtt::chameleon;
using hmtt::analysis::parse_regions;
using hmtt::analysis::regions_from_icode_events;

namespace {

Reference at(std::uint64_t time, std::uint64_t address, Kind kind = Kind::Read) {
  return {time, address, 4, kind, Origin::Unknown, 0};
}

SignatureShape paper_shape() { return {512, 4, 4}; }

}  // namespace

TEST_CASE("chameleon: histogram bins cover every distance once, power-of-two depths are edges") {
  for (std::uint32_t sub : {1u, 2u, 4u, 16u}) {
    SignatureShape s{512, 4, sub};
    std::uint64_t next = 0;
    for (std::size_t bin = 0; bin < 1 + 20 * sub; ++bin) {
      const auto [lo, hi] = s.histogram_range(bin);
      CHECK(lo == next);  // contiguous, no gaps, no overlaps
      for (std::uint64_t d = lo; d < hi; ++d) CHECK(s.histogram_bin(d) == bin);
      next = hi;
    }
    for (std::uint64_t k = 0; k < 20; ++k) {
      // 2^k starts a bin: the paper's 17 depths are read off exactly.
      const std::size_t bin = s.histogram_bin(std::uint64_t{1} << k);
      CHECK(s.histogram_range(bin).first == (std::uint64_t{1} << k));
    }
  }
  CHECK(SignatureShape::alpha_bin(0) == 0);
  CHECK(SignatureShape::alpha_bin(1) == 1);
  CHECK(SignatureShape::alpha_bin(3) == 2);
  CHECK(SignatureShape::alpha_bin(65535) == 16);
  CHECK(SignatureShape::alpha_bin(65536) == 17);
  CHECK(SignatureShape::alpha_bin(1ull << 40) == 17);
  CHECK(paper_shape().levels() == 7);  // 512 -> 256 -> ... -> 4
  CHECK_FALSE(SignatureShape{500, 4, 4}.validate().ok());
  CHECK_FALSE(SignatureShape{512, 512, 4}.validate().ok());
  CHECK_FALSE(SignatureShape{512, 4, 3}.validate().ok());
}

TEST_CASE("chameleon: reuse distances of a known stream, exact counts") {
  SignatureTracer t({paper_shape(), 0, 0, {}});
  // Blocks A B C A B A (512 B blocks): cold, cold, cold, 2, 2, 1.
  for (std::uint64_t b : {0, 1, 2, 0, 1, 0}) t.access(at(0, b * 512));
  t.finish();
  const auto& s = t.signature();
  CHECK(s.references == 6);
  CHECK(s.cold == 3);
  CHECK(s.reuse[s.shape.histogram_bin(2)] == 2);
  CHECK(s.reuse[s.shape.histogram_bin(1)] == 1);
  CHECK(s.hit_ratio(1) == doctest::Approx(0.0));
  CHECK(s.hit_ratio(2) == doctest::Approx(1.0 / 6));
  CHECK(s.hit_ratio(4) == doctest::Approx(3.0 / 6));
  const auto cdf = s.cdf();
  REQUIRE(cdf.size() == 17);
  CHECK(cdf[16] == doctest::Approx(0.5));
}

TEST_CASE("chameleon: access-history trees count yes/no per level exactly as section 2.2.2") {
  SignatureTracer t({paper_shape(), 0, 0, {}});
  // One block; words 0, 1, 64, 0 (bytes 0, 4, 256, 0).
  for (std::uint64_t a : {0, 4, 256, 0}) t.access(at(0, 0x1000 + a));
  t.finish();
  const auto& s = t.signature();
  const std::size_t L = 7;
  // ref 1: cold, every node's first visit goes left.
  // ref 2 (word 1): same edges at levels 0..5 (yes), the other one at the leaf level (no).
  // ref 3 (word 64): the root flips (no); the right subtree is new (first visits, left).
  // ref 4 (word 0): the root flips back (no); levels 1..5 as before (yes); the leaf level flips (no).
  // Split by node state (one child used so far / both):
  const std::vector<std::uint64_t> yes_one = {1, 2, 2, 2, 2, 2, 0};
  const std::vector<std::uint64_t> no_one = {1, 0, 0, 0, 0, 0, 1};  // ref 2's leaf step, ref 3's root step
  const std::vector<std::uint64_t> no_both = {1, 0, 0, 0, 0, 0, 1};  // ref 4 returns to known halves
  for (std::size_t l = 0; l < L; ++l) {
    // Every reuse has distance 0: alpha bin 0.
    CHECK(s.alpha_yes[s.alpha_index(0, l, false)] == yes_one[l]);
    CHECK(s.alpha_no[s.alpha_index(0, l, false)] == no_one[l]);
    CHECK(s.alpha_yes[s.alpha_index(0, l, true)] == 0);
    CHECK(s.alpha_no[s.alpha_index(0, l, true)] == no_both[l]);
    CHECK(s.first_right[l] == 0);
  }
  CHECK(s.first_left == std::vector<std::uint64_t>{1, 2, 2, 2, 2, 2, 2});
  for (std::size_t i = 2 * L; i < s.alpha_yes.size(); ++i) CHECK(s.alpha_yes[i] + s.alpha_no[i] == 0);
  CHECK(s.alpha(0, 0, -1) == doctest::Approx(1.0 / 3));
  CHECK(s.alpha(0, 6, -1) == doctest::Approx(0.0));
  CHECK(s.alpha(5, 0, -1) == doctest::Approx(-1.0));  // never observed: the fallback
}

TEST_CASE("chameleon: the alpha bin is the reference's 512 B reuse distance") {
  SignatureTracer t({paper_shape(), 0, 0, {}});
  // A (word 0), B, C, D, A (word 0 again): distance 3 -> alpha bin 2, all yes.
  for (std::uint64_t a : {0, 512, 1024, 1536, 0}) t.access(at(0, a));
  t.finish();
  const auto& s = t.signature();
  for (std::size_t l = 0; l < 7; ++l) {
    CHECK(s.alpha_yes[s.alpha_index(2, l, false)] == 1);
    CHECK(s.alpha_no[s.alpha_index(2, l, false)] == 0);
  }
}

TEST_CASE("chameleon: line distances per block-reuse bin, exact counts") {
  SignatureShape shape = paper_shape();
  shape.line_bytes = 64;
  REQUIRE(shape.validate().ok());
  CHECK(shape.line_levels() == 3);
  CHECK(shape.line_row() == 1 + shape.histogram_bins());
  for (std::uint64_t bad : {4ull, 500ull, 512ull, 1024ull}) {
    SignatureShape b = paper_shape();
    b.line_bytes = bad;
    CHECK_FALSE(b.validate().ok());
  }
  SignatureTracer t({shape, 0, 0, {}});
  // Bytes 0, 64, 512, 0, 640, 644 (64 B lines 0, 1, 8, 0, 10, 10; blocks 0, 0, 1, 0, 1, 1):
  //   0    block cold: no line count
  //   64   block distance 0 (alpha bin 0), line never used: column 0
  //   512  block cold
  //   0    block distance 1 (alpha bin 1), line distance 2 (lines 1 and 8 since): column 1 + bin(2)
  //   640  block distance 1 (alpha bin 1), line never used: column 0
  //   644  block distance 0, line distance 0: column 1 + bin(0)
  for (std::uint64_t a : {0, 64, 512, 0, 640, 644}) t.access(at(0, a));
  t.finish();
  const auto& s = t.signature();
  // The same stream at 128 B (units 0, 0, 4, 0, 5, 5) and 256 B (units 0, 0, 2, 0, 2, 2).
  const std::size_t cols = shape.line_row();
  REQUIRE(shape.line_widths() == 3);
  REQUIRE(s.line_reuse.size() == 3 * kAlphaBins * cols);
  std::vector<std::uint64_t> want(3 * kAlphaBins * cols, 0);
  auto cell = [&](std::size_t width, std::size_t abin, std::size_t col) -> std::uint64_t& {
    return want[(width * kAlphaBins + abin) * cols + col];
  };
  cell(0, 0, 0) = 1;                               // 64: new line
  cell(0, 0, 1 + shape.histogram_bin(0)) = 1;      // 644: the same line as 640
  cell(0, 1, 0) = 1;                               // 640: new line
  cell(0, 1, 1 + shape.histogram_bin(2)) = 1;      // 0: lines 1 and 8 since
  cell(1, 0, 1 + shape.histogram_bin(0)) = 2;      // 64 and 644: the same 128 B unit as before
  cell(1, 1, 1 + shape.histogram_bin(1)) = 1;      // 0: unit 4 since
  cell(1, 1, 0) = 1;                               // 640: unit 5 is new
  cell(2, 0, 1 + shape.histogram_bin(0)) = 2;      // 64 and 644
  cell(2, 1, 1 + shape.histogram_bin(1)) = 2;      // 0 (unit 2 since) and 640 (unit 0 since)
  CHECK(s.line_reuse == want);
  // Written without trailing empty columns, read back count for count.
  const auto j = s.to_json();
  REQUIRE(j["line_reuse"].size() == 3 * kAlphaBins);
  CHECK(j["line_reuse"][0].size() == 2);
  CHECK(j["line_reuse"][5].size() == 0);
  auto back = MemorySignature::from_json(j, shape, "sig");
  REQUIRE(back.ok());
  CHECK(*back == s);
  // Signatures without lines keep none.
  SignatureTracer plain({paper_shape(), 0, 0, {}});
  for (std::uint64_t a : {0, 64, 512, 0}) plain.access(at(0, a));
  plain.finish();
  CHECK(plain.signature().line_reuse.empty());
  CHECK_FALSE(plain.signature().to_json().contains("line_reuse"));
}

TEST_CASE("chameleon: units used by each reused block, per block-reuse bin, exact counts") {
  SignatureShape shape = paper_shape();
  shape.fill_bytes = 128;
  REQUIRE(shape.validate().ok());
  CHECK(shape.fill_levels() == 2);
  CHECK(shape.fill_row() == 5);  // 0 .. 4 units of 128 B
  for (std::uint64_t bad : {2ull, 96ull, 512ull, 1024ull}) {
    SignatureShape b = paper_shape();
    b.fill_bytes = bad;
    CHECK_FALSE(b.validate().ok());
  }
  SignatureTracer t({shape, 0, 0, {}});
  // Bytes 0, 130, 4, 512, 300, 520, 0 (128 B units 0, 1, 0, 4, 2, 4, 0; blocks 0, 0, 0, 1, 0, 1, 0):
  //   0    block cold: not counted
  //   130  block distance 0 (alpha bin 0), the block had used 1 unit
  //   4    distance 0, 2 units
  //   512  block cold
  //   300  distance 1 (alpha bin 1), 2 units (unit 2 is its third)
  //   520  distance 1, block 1 had used 1 unit
  //   0    distance 1, block 0 had used 3 units
  for (std::uint64_t a : {0, 130, 4, 512, 300, 520, 0}) t.access(at(0, a));
  t.finish();
  const auto& s = t.signature();
  std::vector<std::uint64_t> want(kAlphaBins * 5, 0);
  want[0 * 5 + 1] = 1;
  want[0 * 5 + 2] = 1;
  want[1 * 5 + 1] = 1;
  want[1 * 5 + 2] = 1;
  want[1 * 5 + 3] = 1;
  CHECK(s.block_fill == want);
  // Written without trailing empty columns, read back count for count.
  const auto j = s.to_json();
  REQUIRE(j["block_fill"].size() == kAlphaBins);
  CHECK(j["block_fill"][0] == Json::parse("[0, 1, 1]"));
  CHECK(j["block_fill"][2].empty());
  auto back = MemorySignature::from_json(j, shape, "sig");
  REQUIRE(back.ok());
  CHECK(*back == s);
  // A signature written before the counts reads without them (synthesis then takes the block at
  // the drawn depth), and one with them is held to the shape and to one count per block reuse.
  Json old = j;
  old.erase("block_fill");
  auto without = MemorySignature::from_json(old, shape, "sig");
  REQUIRE(without.ok());
  CHECK(without->block_fill.empty());
  auto error_of = [&](Json bad, const SignatureShape& sh) {
    auto r = MemorySignature::from_json(bad, sh, "sig");
    REQUIRE_FALSE(r.ok());
    return r.error().message;
  };
  Json more = j;
  more["block_fill"][1][4] = 1;
  CHECK(error_of(more, shape) == "sig.block_fill: counts sum to 6, but the block reuses are 5");
  Json rows = j;
  rows["block_fill"].erase(rows["block_fill"].size() - 1);
  CHECK(error_of(rows, shape) == "sig.block_fill: has 17 rows, expected 18");
  Json wide = j;
  wide["block_fill"][0] = Json::parse("[0, 1, 1, 0, 0, 0]");
  CHECK(error_of(wide, shape).find("sig.block_fill[0]") == 0);
  CHECK(error_of(j, paper_shape()) == "sig.block_fill: present, but the profile has no fill_bytes");
  // Without fill_bytes nothing is kept.
  SignatureTracer plain({paper_shape(), 0, 0, {}});
  for (std::uint64_t a : {0, 130, 0}) plain.access(at(0, a));
  plain.finish();
  CHECK(plain.signature().block_fill.empty());
  CHECK_FALSE(plain.signature().to_json().contains("block_fill"));
}

TEST_CASE("chameleon: interval sampling characterises sample_on of every on+off, each interval cold") {
  SignatureTracer t({paper_shape(), 1000, 9000, {}});
  // 100 000 references cycling over 10 blocks.
  for (std::uint64_t i = 0; i < 100000; ++i) t.access(at(i, (i % 10) * 512));
  t.finish();
  CHECK(t.seen() == 100000);
  CHECK(t.sampled() == 10 * 1000);
  CHECK(t.signature().cold == 10 * 10);  // the history restarts with every interval
  CHECK(t.signature().reuse[t.signature().shape.histogram_bin(9)] == 10 * 990);
}

TEST_CASE("chameleon: region signatures share one simulation and add up to the whole") {
  auto regions = parse_regions("# two phases\nregion 1 sweep 0 5000\nregion 2 hot 5000 8000\n", "map");
  REQUIRE(regions.ok());
  REQUIRE(regions->size() == 2);
  SignatureTracer t({paper_shape(), 0, 0, *regions});
  SignatureTracer plain({paper_shape(), 0, 0, {}});
  for (std::uint64_t i = 0; i < 10000; ++i) {
    const std::uint64_t a = i < 5000 ? 8 * i : (i < 8000 ? 64 * (i % 16) : 0x100000 + 4 * (i % 1000));
    t.access(at(i, a));
    plain.access(at(i, a));
  }
  t.finish();
  plain.finish();
  const auto& r = t.region_signatures();
  REQUIRE(r.size() == 3);  // sweep, hot, other
  CHECK(r[0].references == 5000);
  CHECK(r[1].references == 3000);
  CHECK(r[2].references == 2000);
  // Shared state: the whole trace's counts are those of one plain simulation.
  CHECK(t.signature() == plain.signature());
  // Combined by their own weights, the regions give the whole trace's model.
  std::vector<WeightedSignature> parts;
  for (const auto& s : r) parts.push_back({static_cast<double>(s.references) / 10000.0, &s});
  auto combined = combine(parts);
  auto whole = combine({{1.0, &plain.signature()}});
  REQUIRE(combined.ok());
  REQUIRE(whole.ok());
  CHECK(combined->cold == doctest::Approx(whole->cold));
  for (std::size_t b = 0; b < whole->reuse.size(); ++b) CHECK(combined->reuse[b] == doctest::Approx(whole->reuse[b]));
  for (std::size_t i = 0; i < whole->alpha.size(); ++i) CHECK(combined->alpha[i] == doctest::Approx(whole->alpha[i]));
  // Reweighted: only the sweep region.
  auto sweep = combine({{1.0, &r[0]}, {0.0, &r[1]}, {0.0, &r[2]}});
  REQUIRE(sweep.ok());
  CHECK(sweep->cold == doctest::Approx(static_cast<double>(r[0].cold) / 5000.0));
  CHECK_FALSE(combine({{0.0, &r[0]}}).ok());
  CHECK_FALSE(combine({{-1.0, &r[0]}}).ok());
}

TEST_CASE("chameleon: bad region maps are errors naming the line") {
  auto bad = parse_regions("region 1 a 0 10\nregion x b 10 20\n", "m.map");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("m.map:2") != std::string::npos);
  auto backwards = parse_regions("region 1 a 10 5\n", "m.map");
  REQUIRE_FALSE(backwards.ok());
  CHECK(backwards.error().message.find("m.map:1") != std::string::npos);
  auto overlap = parse_regions("region 1 a 0 10\nregion 2 b 5 20\n", "m.map");
  REQUIRE_FALSE(overlap.ok());
  CHECK(overlap.error().message.find("overlap") != std::string::npos);
  auto words = parse_regions("bogus\n", "m.map");
  REQUIRE_FALSE(words.ok());
  // METRIC's range lines are accepted and ignored (one map serves both methods).
  auto metric = parse_regions("range arr 0x1000 0x2000\nregion 3 r 0 0x10\n", "m.map");
  REQUIRE(metric.ok());
  CHECK(metric->size() == 1);
  CHECK((*metric)[0].t1 == 16);
}

TEST_CASE("chameleon: region id 4294967295 is reserved for \"other\" in a region map") {
  // The profile gives references outside every region the id 4294967295; a map region
  // with it would be indistinguishable from "other".
  const std::string reserved = "m.map:3: region id 4294967295 is reserved for references outside every region";
  auto dec = parse_regions("region 1 a 0 10\nregion 2 b 10 20\nregion 4294967295 c 20 30\n", "m.map");
  REQUIRE_FALSE(dec.ok());
  CHECK(dec.error().message == reserved);
  auto hex = parse_regions("# hex\n\nregion 0xffffffff c 20 30\n", "m.map");
  REQUIRE_FALSE(hex.ok());
  CHECK(hex.error().message == reserved);
  // The largest usable id is one below; above 32 bits stays a bad ID.
  auto top = parse_regions("region 4294967294 c 20 30\n", "m.map");
  REQUIRE(top.ok());
  CHECK((*top)[0].id == 4294967294u);
  auto wide = parse_regions("region 4294967296 c 20 30\n", "m.map");
  REQUIRE_FALSE(wide.ok());
  CHECK(wide.error().message == "m.map:1: bad region ID '4294967296'");
}

TEST_CASE("chameleon: a region entered many times is one region with one signature") {
  auto regions = parse_regions("region 1 a 0 10\nregion 2 b 10 20\nregion 1 a 20 30\n", "map");
  REQUIRE(regions.ok());
  SignatureTracer t({paper_shape(), 0, 0, *regions});
  for (std::uint64_t i = 0; i < 40; ++i) t.access(at(i, 64 * i));
  t.finish();
  REQUIRE(t.region_signatures().size() == 3);  // region 1, region 2, other
  REQUIRE(t.region_ids().size() == 2);
  CHECK(t.region_ids()[0].id == 1);
  CHECK(t.region_signatures()[0].references == 20);
  CHECK(t.region_signatures()[1].references == 10);
  CHECK(t.region_signatures()[2].references == 10);
}

TEST_CASE("chameleon: regions from I-Code events: program event k starts region k") {
  // (time, config-space index): user event k is index 64 + k; index 5 is not a program event.
  auto r = regions_from_icode_events({{100, 64 + 3}, {50, 64 + 1}, {200, 5}, {300, 64 + 1}, {400, 64 + 4096}});
  REQUIRE(r.size() == 3);
  CHECK(r[0].id == 1);
  CHECK(r[0].t0 == 50);
  CHECK(r[0].t1 == 100);
  CHECK(r[1].id == 3);
  CHECK(r[1].t1 == 300);
  CHECK(r[2].id == 1);
  CHECK(r[2].t1 == UINT64_MAX);
  CHECK(r[0].name == "event1");
  CHECK(regions_from_icode_events({}).empty());
}

TEST_CASE("chameleon: I-Code events never give a region the reserved id 4294967295") {
  // Program events are k < 4096; an index of 64 + 4294967295 is not one and is ignored.
  auto r = regions_from_icode_events({{10, 64 + 4095}, {20, 64 + 4294967295ull}, {30, 64 + 7}});
  REQUIRE(r.size() == 2);
  CHECK(r[0].id == 4095);
  CHECK(r[0].t1 == 30);
  CHECK(r[1].id == 7);
}
