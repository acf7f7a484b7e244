// Chameleon synthesis behind the profiling contract: the 512 B CDF is met on
// fully-associative LRU caches, seeds expand by replication, other widths
// stay close, and bad profiles are errors that name the field.
#include <doctest/doctest.h>

#include <unordered_set>

#include <algorithm>
#include <array>
#include <set>
#include <unordered_map>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <unistd.h>

#include "hmtt/analysis/cache_surface.h"
#include "hmtt/analysis/compare.h"
#include "hmtt/analysis/demo_workload.h"
#include "hmtt/chameleon/chameleon.h"
#include "hmtt/store/store.h"
#include "../icode_store.h"
#include "hmtt/tracefmt/reader.h"

using namespace hmtt;
using namespace hmtt::chameleon;
using analysis::Json;

namespace {

std::vector<Reference> demo(std::uint64_t n, std::uint64_t seed = 3) {
  analysis::DemoWorkloadKnobs k;
  k.references = n;
  k.seed = seed;
  k.footprint_bytes = 8ull << 20;
  analysis::DemoWorkload w(k);
  auto v = collect(w);
  REQUIRE(v.ok());
  return std::move(*v);
}

std::string profile_of(const std::vector<Reference>& trace, const std::vector<std::string>& assignments = {}) {
  auto p = analysis::make_chameleon_profiler();
  auto params = analysis::ProfileParams::parse(assignments, p->params());
  REQUIRE(params.ok());
  VectorSource src(trace);
  analysis::RunOptions run;
  run.progress = false;
  auto out = p->profile(src, *params, run);
  REQUIRE(out.ok());
  return out->data;
}

std::vector<Reference> synth(const std::string& profile, std::uint64_t length = 0, std::uint64_t seed = 1) {
  auto p = analysis::make_chameleon_profiler();
  auto s = p->synthesize(profile, {length, seed});
  REQUIRE(s.ok());
  auto v = collect(**s);
  REQUIRE(v.ok());
  return std::move(*v);
}

// hit(d, w) of a trace for the 17 depths at width w.
std::vector<double> lru_hits(const std::vector<Reference>& t, std::uint64_t width) {
  analysis::CacheSurfaceSimulator sim({width}, analysis::chameleon_depths());
  for (const auto& r : t) sim.access(r.address);
  return sim.surface().hit[0];
}

// A change to a good profile, and the text its error must contain.
struct Mutation {
  const char* expect;
  std::function<void(Json&)> mutate;
};

// Each mutation of `good` must fail synthesis with an error containing its text (never a crash).
void check_mutations(const Json& good, const std::vector<Mutation>& cases) {
  auto p = analysis::make_chameleon_profiler();
  auto error_of = [&](const Json& j) -> std::string {
    auto s = p->synthesize(j.dump(), {100, 1});
    return s ? std::string() : s.error().message;
  };
  REQUIRE(error_of(good) == "");
  for (const auto& c : cases) {
    Json j = good;
    c.mutate(j);
    const std::string e = error_of(j);
    INFO("case " << c.expect << " -> " << e);
    CHECK(e.find(c.expect) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("chameleon profile: recognised, round-trips, the contract's summary") {
  const auto trace = demo(50000);
  const std::string data = profile_of(trace);
  auto p = analysis::make_chameleon_profiler();
  CHECK(p->recognizes(data));
  CHECK_FALSE(analysis::make_irm_profiler()->recognizes(data));
  auto parsed = parse_profile(data);
  REQUIRE(parsed.ok());
  CHECK(parsed->references == 50000);
  CHECK(parsed->sampled_references == 50000);
  CHECK(parsed->shape == SignatureShape{512, 4, 4, 12, false, 32, 0, 128});
  CHECK(parsed->fill_candidates == 1);
  // Seeds as long as the trace up to 64 M references: replication loses the
  // reuses between copies that L2 and L3 see (docs/chameleon.md).
  CHECK(parsed->seed_max == (std::uint64_t{64} << 20));
  // The parsed signature is the tracer's, count for count.
  SignatureTracer t({{512, 4, 4, 12, false, 32, 0, 128}, 0, 0, {}});
  t.access(trace);
  t.finish();
  CHECK(parsed->signature == t.signature());
  // Re-serialised, it parses to the same again.
  Json j = Json::parse(data);
  j["signature"] = parsed->signature.to_json();
  auto again = parse_profile(j.dump());
  REQUIRE(again.ok());
  CHECK(again->signature == parsed->signature);
}

TEST_CASE("chameleon synth: fully-associative LRU hit rates at 512 B equal the signature's CDF") {
  // Paper section 2.4: no error at the signature's own width. The synthetic
  // distances are realised exactly on the LRU list, so the only difference is
  // the sampling error of the seed, which the generator measures and bounds.
  const auto trace = demo(200000);
  const std::string data = profile_of(trace);
  auto parsed = parse_profile(data);
  REQUIRE(parsed.ok());
  auto seed = seed_of(*parsed, 0, 1);
  REQUIRE(seed.ok());
  CHECK(seed->addresses.size() == trace.size());
  const auto syn = synth(data);
  REQUIRE(syn.size() == trace.size());
  const auto a = lru_hits(trace, 512);
  const auto b = lru_hits(syn, 512);
  const auto cdf = parsed->signature.cdf();
  double worst = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    CHECK(a[k] == doctest::Approx(cdf[k]).epsilon(1e-9));
    worst = std::max(worst, std::abs(a[k] - b[k]));
  }
  // The realised error is the one the seed reports ...
  CHECK(worst == doctest::Approx(seed->cdf_max_error).epsilon(1e-9));
  // ... and within sampling error: 3 standard deviations of a share at n = 200 000 is 0.0034.
  CHECK(worst <= 0.0035);
  // Same seed, same trace; another seed, another trace.
  CHECK(synth(data, 1000, 7) == synth(data, 1000, 7));
  CHECK_FALSE(synth(data, 1000, 7) == synth(data, 1000, 8));
}

TEST_CASE("chameleon synth: seeds expand by shifted replication and keep their LRU hit rates") {
  const auto trace = demo(40000);
  const std::string data = profile_of(trace, {"seed_max=10000"});
  auto parsed = parse_profile(data);
  REQUIRE(parsed.ok());
  auto seed = seed_of(*parsed, 60000, 1);
  REQUIRE(seed.ok());
  REQUIRE(seed->addresses.size() == 10000);
  REQUIRE(seed->working_set_blocks > 0);
  CHECK(seed->min_replications == (65536 + seed->working_set_blocks - 1) / seed->working_set_blocks);
  const auto meta = seed->metadata();
  CHECK(meta["word_bytes"] == 4);
  CHECK(meta["working_set_blocks"] == seed->working_set_blocks);
  const auto syn = synth(data, 60000);
  REQUIRE(syn.size() == 60000);
  const std::uint64_t shift = seed->working_set_blocks * 512;
  const std::uint64_t cycle = seed->min_replications + 1;
  for (std::size_t i = 0; i < 10000; i += 97) {
    CHECK(syn[i].address == seed->addresses[i]);
    CHECK(syn[10000 + i].address == seed->addresses[i] + (1 % cycle) * shift);
    CHECK(syn[50000 + i].address == seed->addresses[i] + (5 % cycle) * shift);
  }
  CHECK(syn.back().time == 59999);
  // Six copies of the seed hit exactly as the seed does on every modelled depth.
  std::vector<Reference> one(syn.begin(), syn.begin() + 10000);
  const auto h1 = lru_hits(one, 512);
  const auto h6 = lru_hits(syn, 512);
  for (std::size_t k = 0; k < h1.size(); ++k) CHECK(h6[k] == doctest::Approx(h1[k]).epsilon(1e-12));
}

TEST_CASE("chameleon synth: access sizes are kept, so a board's 64-byte records fill both halves of a 32-byte line") {
  // A board capture's records: every reference a whole 64-byte line, line-aligned (the demo workload
  // through the memory controller; here its addresses rounded down to their line).
  auto trace = demo(60000, 4);
  for (auto& r : trace) {
    r.address &= ~std::uint64_t{63};
    r.size = 64;
  }
  const std::string data = profile_of(trace);
  const Json j = Json::parse(data);
  CHECK(j["signature"]["sizes"] == Json::parse(R"({"64": 60000})"));
  const auto syn = synth(data);
  REQUIRE(syn.size() == trace.size());
  for (const auto& r : syn) {
    REQUIRE(r.size == 64);
    REQUIRE(r.address % 64 == 0);
  }
  // Opteron (PSnAP hierarchy 4): L1 of 32-byte lines, L2 of 64-byte lines. A 64-byte access misses
  // L1 twice and the second miss hits in L2; with word-sized (4-byte) accesses, as before sizes were
  // kept, the synthetic's L2 hit ratio was 0.04 against the original's 0.51 (the demo, stop 22).
  VectorSource a(trace), b(syn);
  analysis::CompareOptions opt;
  opt.run.progress = false;
  auto c = analysis::compare(a, b, opt);
  REQUIRE(c.ok());
  bool seen = false;
  for (const auto& level : c->levels) {
    if (level.hierarchy != "psnap-4-Opteron" || level.level != "L2") continue;
    seen = true;
    MESSAGE("Opteron L2: original " << level.hit_a << ", synthetic " << level.hit_b);
    CHECK(level.hit_a > 0.3);
    CHECK(std::abs(level.hit_a - level.hit_b) <= 0.035);
  }
  CHECK(seen);
  // A signature without sizes (written before them) still synthesises word-sized accesses.
  Json old = j;
  old["signature"].erase("sizes");
  const auto word = synth(old.dump(), 100);
  for (const auto& r : word) CHECK(r.size == 4);
}

TEST_CASE("chameleon synth: reused blocks are as full as the original's, so far lines are reused, not new ones") {
  // Whole 64-byte lines, as a board records them: half the references read a random line of a
  // random block of a 256 KB hot set (blocks that soon have all 8 lines used), half walk a pointer
  // chase through fresh blocks, one line each, every block read again 300 steps later. Both kinds
  // of reuse are 100-1000 blocks deep. Taking whichever block sits at the drawn depth (fill=1, the
  // default: the paper's generator) gives the hot set's far line reuses to chase blocks of one line, which then
  // touch lines never used: too many distinct lines (make demo's capture: 111,938 64-byte lines
  // against 102,883), which 128-byte-line L2s see as misses (there IT2 L2 0.259 against 0.317).
  std::vector<Reference> trace;
  std::uint64_t rng = 12345;
  auto next = [&] {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  std::uint64_t chase = 0;
  for (std::uint64_t t = 0; trace.size() < 200000; ++t) {
    std::uint64_t a = 0;
    if (next() % 2) {
      a = 0x1000000 + (next() % 512) * 512 + (next() % 8) * 64;
    } else {
      const std::uint64_t step = chase++;
      const std::uint64_t block = step % 2 ? (step / 2 >= 150 ? step / 2 - 150 : step / 2) : step / 2;  // each twice
      a = 0x8000000 + block * 512 + (block * 3 % 8) * 64;
    }
    trace.push_back({t, a, 64, Kind::Read, Origin::Unknown, 0});
  }
  auto distinct_lines = [](const std::vector<Reference>& t) {
    std::unordered_set<std::uint64_t> lines;
    for (const auto& r : t) lines.insert(r.address / 64);
    return static_cast<double>(lines.size());
  };
  auto it2_l2 = [&](const std::vector<Reference>& syn) {
    VectorSource a(trace), b(syn);
    analysis::CompareOptions opt;
    opt.run.progress = false;
    auto c = analysis::compare(a, b, opt);
    REQUIRE(c.ok());
    for (const auto& level : c->levels)
      if (level.hierarchy == "psnap-2-IT2" && level.level == "L2") return std::abs(level.hit_a - level.hit_b);
    FAIL("no IT2 L2");
    return 1.0;
  };
  const double original = distinct_lines(trace);
  const auto with = synth(profile_of(trace, {"fill=8"}));
  const auto without = synth(profile_of(trace));  // fill=1, the default
  const double excess_with = distinct_lines(with) / original - 1, excess_without = distinct_lines(without) / original - 1;
  const double error_with = it2_l2(with), error_without = it2_l2(without);
  MESSAGE("distinct 64 B lines over the original's: fill=8 " << excess_with << ", fill=1 " << excess_without
                                                              << "; IT2 L2 error " << error_with << " against "
                                                              << error_without);
  // Measured: 4.4 % more lines and an IT2 L2 error of 0.039 with fill=8, 18.6 % and 0.126 with fill=1.
  CHECK(std::abs(excess_with) <= 0.06);
  CHECK(excess_without >= 0.12);
  CHECK(error_with <= 0.05);
  CHECK(error_without >= 0.09);
  // The 512 B distances are the chosen attempt's either way: only which block of a bin is reused moves.
  const auto ha = lru_hits(trace, 512), hb = lru_hits(with, 512);
  for (std::size_t k = 0; k < ha.size(); ++k) CHECK(std::abs(ha[k] - hb[k]) <= 0.005);
}

TEST_CASE("chameleon synth: narrower widths follow the alpha trees") {
  // The demo workload (array sweeps, a hot set, pointer chasing): the 68-cache
  // sweep of `hmtt compare` (widths 64..512) and the PSnAP hierarchies. Bounds
  // are the issue's (mean <= 1 %, max <= 3.5 %) on the LRU sweep; measured
  // figures are in docs/accuracy.md.
  const auto trace = demo(300000, 5);
  const std::string data = profile_of(trace);
  const auto syn = synth(data);
  VectorSource a(trace), b(syn);
  analysis::CompareOptions opt;
  opt.run.progress = false;
  auto c = analysis::compare(a, b, opt);
  REQUIRE(c.ok());
  MESSAGE("demo: LRU mean " << c->lru_error.mean << " max " << c->lru_error.max << "; hierarchies mean "
                            << c->hierarchy_error.mean << " max " << c->hierarchy_error.max);
  // Measured 0.0060 / 0.031 with the line distances (0.038 / 0.110 with the
  // trees alone, line=0): the issue's 1 % / 3.5 % now hold on this workload;
  // hierarchy levels measured 0.0087 mean.
  CHECK(c->lru_error.mean <= 0.01);
  CHECK(c->lru_error.max <= 0.035);
  CHECK(c->hierarchy_error.mean <= 0.015);
}

TEST_CASE("chameleon synth: scrambled units keep every reuse distance and only change places inside their block") {
  const auto trace = demo(200000, 7);
  const Json on = Json::parse(profile_of(trace));
  REQUIRE(on["synthesis"]["scramble_bytes"] == 64);  // new profiles scramble 64-byte units
  Json off = on;
  off["synthesis"]["scramble_bytes"] = 0;
  Json old = on;
  old["synthesis"].erase("scramble_bytes");  // a profile written before it
  const auto a = synth(on.dump(), 0, 4), b = synth(off.dump(), 0, 4);
  CHECK(synth(old.dump(), 0, 4) == b);  // absent = none: an old profile keeps its trace
  REQUIRE(a.size() == b.size());
  CHECK(a != b);
  // The same block, the same offset inside the 64-byte unit, the same kind and
  // size; the unit moves by one XOR mask per block, and the masks vary.
  std::unordered_map<std::uint64_t, std::uint64_t> mask_of;
  std::array<std::uint64_t, 8> unit_refs{};
  std::size_t moved = 0, inconsistent = 0, other = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].address / 512 != b[i].address / 512 || a[i].address % 64 != b[i].address % 64 || a[i].kind != b[i].kind ||
        a[i].size != b[i].size)
      ++other;
    const std::uint64_t m = ((a[i].address ^ b[i].address) >> 6) & 7;
    const auto [it, fresh] = mask_of.emplace(a[i].address / 512, m);
    if (!fresh && it->second != m) ++inconsistent;
    if (m != 0) ++moved;
    ++unit_refs[(a[i].address >> 6) & 7];
  }
  CHECK(other == 0);
  CHECK(inconsistent == 0);
  CHECK(moved > a.size() / 2);  // 7 masks in 8 move a unit
  std::set<std::uint64_t> masks;
  for (const auto& [block, m] : mask_of) masks.insert(m);
  CHECK(masks.size() == 8);
  // Hence every reuse distance is kept at every width from the word to the block.
  for (std::uint64_t w : {4, 32, 64, 128, 256, 512}) {
    INFO("width " << w);
    CHECK(lru_hits(a, w) == lru_hits(b, w));
  }
  check_mutations(on, {
      {"synthesis.scramble_bytes: must be 0 or a power of two", [](Json& j) { j["synthesis"]["scramble_bytes"] = 48; }},
      {"synthesis.scramble_bytes: must be 0 or a power of two", [](Json& j) { j["synthesis"]["scramble_bytes"] = 512; }},
      {"synthesis.scramble_bytes: must be 0 or a power of two", [](Json& j) { j["synthesis"]["scramble_bytes"] = 2; }},
      {"synthesis.scramble_bytes", [](Json& j) { j["synthesis"]["scramble_bytes"] = -64; }},
  });
}

TEST_CASE("chameleon: a profile without line distances (line=0, or written before them) synthesises from the trees") {
  const auto trace = demo(30000);
  const std::string none = profile_of(trace, {"line=0"});
  Json with = Json::parse(profile_of(trace));
  CHECK(with["line_bytes"] == 32);
  CHECK_FALSE(Json::parse(none).contains("line_bytes"));
  with.erase("line_bytes");
  with["signature"].erase("line_reuse");
  with["params"]["line"] = "0";
  // Same counts otherwise, so the same model and the same synthetic trace.
  CHECK(synth(with.dump(), 20000, 3) == synth(none, 20000, 3));
}

TEST_CASE("chameleon profile: knobs are checked and named") {
  auto p = analysis::make_chameleon_profiler();
  const std::vector<Reference> trace = {{0, 0, 4, Kind::Read, Origin::Unknown, 0}};
  auto run_with = [&](const std::vector<std::string>& a) -> std::string {
    auto params = analysis::ProfileParams::parse(a, p->params());
    if (!params) return params.error().message;
    VectorSource src(trace);
    auto out = p->profile(src, *params, {});
    return out ? std::string() : out.error().message;
  };
  CHECK(run_with({}) == "");
  CHECK(run_with({"block=500"}).find("'block'") != std::string::npos);
  CHECK(run_with({"word=1024"}).find("'word'") != std::string::npos);
  CHECK(run_with({"sub_bins=3"}).find("'sub_bins'") != std::string::npos);
  CHECK(run_with({"sample_off=9"}).find("'sample_off'") != std::string::npos);
  CHECK(run_with({"seed_max=0"}).find("'seed_max'") != std::string::npos);
  CHECK(run_with({"tolerance=x"}).find("'tolerance'") != std::string::npos);
  CHECK(run_with({"regions=/nonexistent/map"}).find("'regions'") != std::string::npos);
  CHECK(run_with({"colour=red"}).find("'colour'") != std::string::npos);
  CHECK(run_with({"age_bins=17"}).find("'age_bins'") != std::string::npos);
  CHECK(run_with({"age_clock=sundial"}).find("'age_clock'") != std::string::npos);
  CHECK(run_with({"line=48"}).find("'line'") != std::string::npos);
  CHECK(run_with({"line=512"}).find("'line'") != std::string::npos);
  CHECK(run_with({"line=0"}) == "");
  CHECK(run_with({"fill=0"}) == "parameter 'fill': must be in 1 .. 64");
  CHECK(run_with({"fill=65"}) == "parameter 'fill': must be in 1 .. 64");
  CHECK(run_with({"fill=8"}) == "");
  CHECK(run_with({"fill_bytes=96"}).find("'fill_bytes'") != std::string::npos);
  CHECK(run_with({"fill_bytes=512"}).find("'fill_bytes'") != std::string::npos);
  CHECK(run_with({"fill_bytes=0"}) == "");
  CHECK(run_with({"fill=8", "fill_bytes=0"}) == "parameter 'fill': needs fill_bytes > 0 (the counts it follows)");
  CHECK(run_with({"scramble=96"}).find("'scramble'") != std::string::npos);
  CHECK(run_with({"scramble=512"}).find("'scramble'") != std::string::npos);
  CHECK(run_with({"scramble=2"}).find("'scramble'") != std::string::npos);
  CHECK(run_with({"scramble=0"}) == "");
  CHECK(run_with({"scramble=4"}) == "");
}

TEST_CASE("chameleon synth: malformed profiles are errors naming the field, never a crash") {
  const auto trace = demo(5000);
  const Json good = Json::parse(profile_of(trace));
  check_mutations(good, {
      {"signature: missing", [](Json& j) { j.erase("signature"); }},
      {"references", [](Json& j) { j["references"] = "many"; }},
      {"block_bytes", [](Json& j) { j["block_bytes"] = 500; }},
      {"word_bytes", [](Json& j) { j.erase("word_bytes"); }},
      {"sub_bins", [](Json& j) { j["sub_bins"] = 3; }},
      {"synthesis", [](Json& j) { j.erase("synthesis"); }},
      {"synthesis.seed_max", [](Json& j) { j["synthesis"]["seed_max"] = 0; }},
      {"synthesis.tolerance", [](Json& j) { j["synthesis"]["tolerance"] = -1; }},
      {"synthesis.max_iterations", [](Json& j) { j["synthesis"]["max_iterations"] = 1.5; }},
      {"synthesis.fill_candidates: must be in 1 .. 64", [](Json& j) { j["synthesis"]["fill_candidates"] = 0; }},
      {"synthesis.fill_candidates: not an unsigned integer", [](Json& j) { j["synthesis"]["fill_candidates"] = "8"; }},
      {"fill_bytes: must be 0 or a power of two", [](Json& j) { j["fill_bytes"] = 100; }},
      {"signature.block_fill: counts sum to", [](Json& j) {
         Json& row = j["signature"]["block_fill"][1];
         if (row.empty()) row.push_back(0);
         row[0] = row[0].get<std::uint64_t>() + 7;
       }},
      {"signature.block_fill[2]", [](Json& j) { j["signature"]["block_fill"][2] = "x"; }},
      {"synthesis.fill_candidates: 8 needs signature.block_fill", [](Json& j) {
         j["synthesis"]["fill_candidates"] = 8;
         j["signature"].erase("block_fill");
       }},
      {"signature.reuse", [](Json& j) { j["signature"]["reuse"] = "x"; }},
      {"signature.reuse[1]", [](Json& j) { j["signature"]["reuse"][1] = -4; }},
      {"signature.reuse: cold + reuse", [](Json& j) { j["signature"]["cold"] = 1; }},
      {"signature.alpha_yes[2][3]", [](Json& j) { j["signature"]["alpha_yes"][2][3] = "y"; }},
      {"signature.alpha_no[0]", [](Json& j) { j["signature"]["alpha_no"][0] = Json::array({1, 2}); }},
      {"signature.alpha_no", [](Json& j) { j["signature"]["alpha_no"] = Json::array();
         for (int r = 0; r < 30; ++r) j["signature"]["alpha_no"].push_back(Json::array({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})); }},
      {"signature.first_left", [](Json& j) { j["signature"]["first_left"] = Json::array({1}); }},
      {"signature.kinds.read", [](Json& j) { j["signature"]["kinds"].erase("read"); }},
      {"signature.kinds: sum", [](Json& j) { j["signature"]["kinds"]["write"] = 1u << 30; }},
      {"signature.sizes.3: not a power of two", [](Json& j) { j["signature"]["sizes"]["3"] = 1; }},
      {"signature.sizes: not an object", [](Json& j) { j["signature"]["sizes"] = Json::array({4}); }},
      {"signature.sizes: sum", [](Json& j) { j["signature"]["sizes"] = Json::parse(R"({"4096": 1})"); }},
      {"signature.sizes.8192: not a power of two from 1 to 4096", [](Json& j) { j["signature"]["sizes"]["8192"] = 1; }},
      {"signature.sizes.2", [](Json& j) { j["signature"]["sizes"]["2"] = -1; }},
      {"sampled_references", [](Json& j) { j["sampled_references"] = 7; }},
      {"regions: not an array", [](Json& j) { j["regions"] = 3; }},
      {"regions[0].weight", [](Json& j) {
         j["regions"] = Json::array({{{"id", 1}, {"name", "r"}, {"weight", -1}, {"signature", j["signature"]}}});
       }},
      {"regions[0].signature.cold", [](Json& j) {
         Json s = j["signature"];
         s.erase("cold");
         j["regions"] = Json::array({{{"id", 1}, {"name", "r"}, {"weight", 1}, {"signature", s}}});
       }},
      {"method is 'irm'", [](Json& j) { j["method"] = "irm"; }},
      {"age_bins", [](Json& j) { j["age_bins"] = 0; }},
      {"age_clock", [](Json& j) { j["age_clock"] = "sundial"; }},
      {"line_bytes: must be 0 or a power of two", [](Json& j) { j["line_bytes"] = 48; }},
      {"line_bytes: not an unsigned integer", [](Json& j) { j["line_bytes"] = "wide"; }},
      {"signature.line_reuse: missing", [](Json& j) { j["signature"].erase("line_reuse"); }},
      {"signature.line_reuse[1][0]", [](Json& j) { j["signature"]["line_reuse"][1] = Json::array({"x"}); }},
      {"signature.line_reuse: counts of width 32 sum to", [](Json& j) { j["signature"]["line_reuse"][0].push_back(5); }},
      {"signature.line_reuse: counts of width 128 sum to", [](Json& j) { j["signature"]["line_reuse"][2 * 18 + 1].push_back(5); }},
      {"signature.line_reuse: has 18 rows, expected 72", [](Json& j) {
         auto& rows = j["signature"]["line_reuse"];
         rows.erase(rows.begin() + 18, rows.end());
       }},
      // A profile of another version is refused, not read as version 1.
      {"profile: version: 7 is not a version this hmtt reads (1)", [](Json& j) { j["version"] = 7; }},
      {"profile: version: 1.0 is not a version this hmtt reads (1)", [](Json& j) { j["version"] = 1.0; }},
      {"profile: version: missing", [](Json& j) { j.erase("version"); }},
      // Region ids are 32-bit: 2^32 would be cut to region 0.
      {"profile: regions[0].id: 4294967296 is above 4294967295 (region ids are 32-bit)", [](Json& j) {
         j["regions"] = Json::array({{{"id", 4294967296ull}, {"name", "r"}, {"weight", 1}, {"signature", j["signature"]}}});
       }},
      // One entry per region id.
      {"profile: regions[1].id: 4294967295 is also regions[0]'s (one entry per region)", [](Json& j) {
         const Json r = {{"id", 4294967295ull}, {"name", "other"}, {"weight", 1}, {"signature", j["signature"]}};
         j["regions"] = Json::array({r, r});
       }},
      // A region profile whose regions all have zero weight cannot be synthesised.
      {"weight", [](Json& j) {
         j["regions"] = Json::array({{{"id", 1}, {"name", "r"}, {"weight", 0}, {"signature", j["signature"]}}});
       }},
  });
  auto p = analysis::make_chameleon_profiler();
  CHECK(p->synthesize("{not json", {}).ok() == false);
  CHECK(p->synthesize("", {}).ok() == false);
}

TEST_CASE("chameleon profile: regions from a map file, combined by weight on synthesis") {
  const auto trace = demo(30000);
  const auto dir = std::filesystem::temp_directory_path() / ("hmtt_chameleon_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto map = dir / "regions.map";
  // Demo time advances 1-8 ticks per reference; split the trace's time span.
  const std::uint64_t mid = trace[trace.size() / 2].time;
  std::ofstream(map) << "region 1 first 0 " << mid << "\nregion 2 second " << mid << " " << trace.back().time + 1
                     << "\n";
  const std::string data = profile_of(trace, {"regions=" + map.string()});
  std::filesystem::remove_all(dir);
  auto parsed = parse_profile(data);
  REQUIRE(parsed.ok());
  REQUIRE(parsed->regions.size() == 3);
  double weights = 0;
  std::uint64_t refs = 0;
  for (const auto& r : parsed->regions) {
    weights += r.weight;
    refs += r.signature.references;
  }
  CHECK(weights == doctest::Approx(1.0));
  CHECK(refs == trace.size());
  CHECK(parsed->regions[2].signature.references == 0);  // "other": nothing outside the two
  // The model from the regions is the whole trace's.
  auto from_regions = parsed->model();
  auto whole = combine({{1.0, &parsed->signature}});
  REQUIRE(from_regions.ok());
  REQUIRE(whole.ok());
  CHECK(from_regions->cold == doctest::Approx(whole->cold));
  const auto syn = synth(data);
  CHECK(syn.size() == trace.size());
}

namespace {

// The bounds a real program's synthetic trace is held to (see check_real_program).
struct RealProgramBounds {
  double lru_mean, lru_max;  // the 68-configuration LRU sweep
  double l1_mean, l1_max;    // per level over the PSnAP hierarchies
  double l2_mean, l2_max;
  double other_mean, other_max;  // L3 and below
};

// Profiles `trace`, synthesises as many references and holds the two to `b`;
// the 512 B and 64 B fully-associative checks are the signature's own and the
// same for every trace.
void check_real_program(const std::string& name, const std::vector<Reference>& trace, const RealProgramBounds& b) {
  MESSAGE(name << ": " << trace.size() << " references");
  REQUIRE(trace.size() > 100000);
  const auto syn = synth(profile_of(trace));
  VectorSource a(trace), s(syn);
  analysis::CompareOptions opt;
  opt.run.progress = false;
  auto c = analysis::compare(a, s, opt);
  REQUIRE(c.ok());
  MESSAGE(name << ": LRU mean " << c->lru_error.mean << " max " << c->lru_error.max << "; hierarchies mean "
               << c->hierarchy_error.mean << " max " << c->hierarchy_error.max);
  // At 512 B the fully-associative rates are the signature's (sampling error only).
  const auto ha = lru_hits(trace, 512), hb = lru_hits(syn, 512);
  for (std::size_t k = 0; k < ha.size(); ++k) CHECK(std::abs(ha[k] - hb[k]) <= 0.005);
  // At 64 B (one of the signature's line widths) the synthetic follows the
  // line distances: mean error over the 17 depths measured 0.0010 (0.0066
  // with the trees alone, line=0).
  const auto la = lru_hits(trace, 64), lb = lru_hits(syn, 64);
  double line_error = 0;
  for (std::size_t k = 0; k < la.size(); ++k) line_error += std::abs(la[k] - lb[k]) / static_cast<double>(la.size());
  MESSAGE(name << ": 64 B fully-associative mean error " << line_error);
  CHECK(line_error <= 0.003);
  CHECK(c->lru_error.mean <= b.lru_mean);
  CHECK(c->lru_error.max <= b.lru_max);
  for (const auto& [level, e] : c->per_level_error) {
    MESSAGE(name << ": " << level << " mean " << e.mean << " max " << e.max);
    CHECK(e.mean <= (level == "L2" ? b.l2_mean : level == "L1" ? b.l1_mean : b.other_mean));
    CHECK(e.max <= (level == "L2" ? b.l2_max : level == "L1" ? b.l1_max : b.other_max));
  }
  // The issue's bar (mean 1 %, max 3.5 %) on every level in the cumulative measure, the share of all
  // references served at the level or above (docs/analysis.md, "Two per-level measures").
  for (const auto& [level, e] : c->per_level_served_error) {
    MESSAGE(name << ": " << level << " cumulative mean " << e.mean << " max " << e.max);
    CHECK(e.mean <= 0.010);
    CHECK(e.max <= 0.035);
  }
}

}  // namespace

TEST_CASE("chameleon synth: sort -n's recorded Valgrind lackey trace (tests/data)") {
  // Recorded once (tests/data/README.md says how) so that every machine
  // measures the same references: recorded afresh, the trace's layout moves
  // with the host, and L2's error with it (below).
  auto src = tracefmt::open_trace(std::string(HMTT_SOURCE_DIR) + "/tests/data/sort-n.lackey.hmtt");
  REQUIRE(src.ok());
  auto v = collect(**src);
  REQUIRE(v.ok());
  REQUIRE(v->size() == 1293643);
  // The issue's bounds on the LRU sweep (mean 1 %, max 3.5 %) and on L1 and
  // L3 hold, with bounds below the trees-alone model's figures (LRU mean
  // 0.0034, L1 mean 0.0030 / max 0.0076, L2 0.063 / 0.105) so that a
  // regression fails; the trace and the synthesis seed are fixed, so the
  // figures are the same every run and the bounds are them plus a small
  // margin. L2's miss the issue's (L1 misses are 0.5 % of this trace's
  // references, and the synthetic's set-associative L1s miss by conflict more
  // often than the original's: docs/accuracy.md). L2's mean was 0.042 while
  // the synthetic's working set was 20 % too large (its extra cold lines hid
  // part of that conflict over-hit); with the working set right, 0.052 (max
  // 0.083); with the 64 B units scrambled in every block (stop 40), 0.047 (max
  // 0.087: PowerPC's 128 B lines).
  check_real_program("sort -n (recorded)", *v,
                     {.lru_mean = 0.001, .lru_max = 0.02, .l1_mean = 0.001, .l1_max = 0.003,
                      .l2_mean = 0.05, .l2_max = 0.09, .other_mean = 0.01, .other_max = 0.035});
}

TEST_CASE("chameleon synth: the T/R adjustment gets the working set right, not only the CDF") {
  // A real program's cold share (sort -n: 993 blocks in 1.3 M references, 8e-4) is far below
  // the CDF tolerance (2 / sqrt(length) = 0.0018), so an attempt passes on its CDF alone with
  // its deep draws past the short early list as extra new blocks: the seed's working set was
  // 20 % too large (1,200 blocks against 993 on the longer sort trace of docs/accuracy.md).
  auto src = tracefmt::open_trace(std::string(HMTT_SOURCE_DIR) + "/tests/data/sort-n.lackey.hmtt");
  REQUIRE(src.ok());
  auto v = collect(**src);
  REQUIRE(v.ok());
  auto parsed = parse_profile(profile_of(*v));
  REQUIRE(parsed.ok());
  const double cold = static_cast<double>(parsed->signature.cold);
  for (std::uint64_t seed : {1, 2}) {
    auto s = seed_of(*parsed, 0, seed);
    REQUIRE(s.ok());
    const double ws = static_cast<double>(s->working_set_blocks);
    MESSAGE("seed " << seed << ": working set " << ws << " blocks, signature's cold " << cold << ", " << s->iterations
                    << " attempts, CDF max error " << s->cdf_max_error);
    CHECK(std::abs(ws / cold - 1) <= std::max(0.02, 3 / std::sqrt(cold)));
    CHECK(s->cdf_max_error <= 2 / std::sqrt(static_cast<double>(v->size())));
  }
}

TEST_CASE("chameleon synth: a real program traced by Valgrind lackey now") {
  if (std::system("valgrind --version > /dev/null 2>&1") != 0) {
    MESSAGE("valgrind is not installed: skipped");
    return;
  }
  // The pid zero-padded: the input's path is on the traced program's stack, so its length is fixed.
  char pid[16];
  std::snprintf(pid, sizeof pid, "%010d", static_cast<int>(::getpid()));
  const auto dir = std::filesystem::temp_directory_path() / ("hmtt_chameleon_vg_" + std::string(pid));
  std::filesystem::create_directories(dir);
  const auto lackey = dir / "sort.lackey";
  // sort(1) of 400 numbers: a real program's mix of code, stack and heap.
  const std::string cmd = "seq 400 | sort -R --random-source=/dev/zero > " + (dir / "in").string() +
                          // Without address-space randomisation and with an empty environment, so the
                          // set-associative levels see much the same layout every run (see the PSnAP test).
                          " && cd / && env -i PATH=/usr/bin:/bin setarch \"$(uname -m)\" -R valgrind --tool=lackey "
                          "--trace-mem=yes sort -n " + (dir / "in").string() +
                          " > /dev/null 2> " + lackey.string();
  if (std::system(cmd.c_str()) != 0) {
    std::filesystem::remove_all(dir);
    MESSAGE("valgrind run failed: skipped");
    return;
  }
  auto src = tracefmt::open_trace(lackey.string());
  REQUIRE(src.ok());
  auto v = collect(**src);
  std::filesystem::remove_all(dir);
  REQUIRE(v.ok());
  // The same bounds as the recorded trace's but for L2: over this trace's few
  // L2 accesses its error moves with the layout from run to run and host to
  // host (measured mean 0.034-0.045, max 0.055-0.096, the last on CI's
  // machine), so its bound is the spread plus a margin; the recorded trace's
  // case holds L2 tightly.
  // Since the working set is right (the recorded trace's case says why) this trace measured L2
  // mean 0.050 here, and the longer sort of docs/accuracy.md 0.028-0.049 over three seeds.
  check_real_program("sort -n (now)", *v,
                     {.lru_mean = 0.002, .lru_max = 0.035, .l1_mean = 0.002, .l1_max = 0.01,
                      .l2_mean = 0.075, .l2_max = 0.13, .other_mean = 0.01, .other_max = 0.035});
}

TEST_CASE("chameleon: alpha split by node age round-trips and keeps the 512 B rates") {
  const auto trace = demo(20000);
  const std::string data = profile_of(trace, {"age_bins=4"});
  auto parsed = parse_profile(data);
  REQUIRE(parsed.ok());
  CHECK(parsed->shape.age_bins == 4);
  CHECK_FALSE(parsed->shape.age_in_visits);
  auto visits = parse_profile(profile_of(trace, {"age_bins=4", "age_clock=visits"}));
  REQUIRE(visits.ok());
  CHECK(visits->shape.age_in_visits);
  CHECK_FALSE(visits->signature == parsed->signature);  // another split of the same counts
  for (std::size_t b = 0; b < kAlphaBins; ++b)
    for (std::size_t l = 0; l < 7; ++l)
      CHECK(visits->signature.alpha(b, l, -1) == doctest::Approx(parsed->signature.alpha(b, l, -1)));
  CHECK(parsed->signature.alpha_yes.size() == kAlphaBins * 4 * 2 * 7);
  // The pooled (paper) alpha does not depend on the split: same counts summed.
  SignatureTracer plain({{512, 4, 4, 1}, 0, 0, {}});
  plain.access(trace);
  plain.finish();
  for (std::size_t b = 0; b < kAlphaBins; ++b)
    for (std::size_t l = 0; l < 7; ++l)
      CHECK(parsed->signature.alpha(b, l, -1) == doctest::Approx(plain.signature().alpha(b, l, -1)));
  // Ages in references, log4 bins: 1, 2-4, 5-16, 17+ (capped at 4 bins).
  CHECK(parsed->shape.age_bin(1) == 0);
  CHECK(parsed->shape.age_bin(2) == 1);
  CHECK(parsed->shape.age_bin(4) == 1);
  CHECK(parsed->shape.age_bin(5) == 2);
  CHECK(parsed->shape.age_bin(16) == 2);
  CHECK(parsed->shape.age_bin(17) == 3);
  CHECK(parsed->shape.age_bin(1000) == 3);
  const auto syn = synth(data);
  const auto a = lru_hits(trace, 512), b = lru_hits(syn, 512);
  for (std::size_t k = 0; k < a.size(); ++k) CHECK(std::abs(a[k] - b[k]) <= 0.01);
}

TEST_CASE("chameleon profile: regions from the I-Code events of an hmtt store") {
  const auto dir = std::filesystem::temp_directory_path() / ("hmtt_chameleon_store_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "t.hmtt").string();
  std::vector<Reference> trace;
  for (std::uint64_t i = 0; i < 3000; ++i) trace.push_back({i, (i < 2000 ? 8 * i : 4096 * (i % 7)), 4, Kind::Read, Origin::Unknown, 0});
  hmtt_test::write_icode_store(path, trace);  // HMTT_EVENT(2) at t = 0 and 2500, HMTT_EVENT(7) at 1000
  const std::string data = profile_of(trace, {"regions=" + path});
  auto parsed = parse_profile(data);
  REQUIRE(parsed.ok());
  REQUIRE(parsed->regions.size() == 3);  // event 2, event 7, other
  CHECK(parsed->regions[0].region.id == 2);
  CHECK(parsed->regions[0].signature.references == 1000 + 500);
  CHECK(parsed->regions[1].region.id == 7);
  CHECK(parsed->regions[1].signature.references == 1500);
  CHECK(parsed->regions[2].signature.references == 0);
  // A store without program events is an error naming the knob.
  const std::string empty = (dir / "e.hmtt").string();
  {
    auto w = store::StoreWriter::create(empty, store::CaptureInfo{});
    REQUIRE(w.ok());
    REQUIRE((*w)->write(trace).ok());
    REQUIRE((*w)->finish().ok());
  }
  auto p = analysis::make_chameleon_profiler();
  auto params = analysis::ProfileParams::parse({"regions=" + empty}, p->params());
  REQUIRE(params.ok());
  VectorSource src(trace);
  auto out = p->profile(src, *params, {});
  std::filesystem::remove_all(dir);
  REQUIRE_FALSE(out.ok());
  CHECK(out.error().message.find("'regions'") != std::string::npos);
}

namespace {

// Hit ratio of one set-associative LRU cache (every reference a read).
double cache_hits(const std::vector<Reference>& t, std::uint64_t size, std::uint64_t line, std::uint64_t ways) {
  analysis::CacheConfig c;
  c.size_bytes = size;
  c.line_bytes = line;
  c.ways = ways;
  auto cache = analysis::Cache::create(c);
  REQUIRE(cache.ok());
  for (const Reference& r : t) (void)cache->access(r.address / line, analysis::CacheOp::Read);
  return cache->stats().hit_ratio();
}

}  // namespace

TEST_CASE("chameleon layout: two page-aligned arrays walked together conflict in the synthetic trace too") {
  // a[i], b[i] in turn, 64 KiB each, 1 MiB apart, one pass: in a direct-mapped
  // 64 KiB cache of 512 B lines a[i] and b[i] share a set, so every reference
  // misses. Side by side (first-touch order, the model without a layout) they
  // do not conflict.
  std::vector<Reference> trace;
  std::uint64_t t = 0;
  for (std::uint64_t i = 0; i < 16384; ++i)
    for (std::uint64_t base : {0x10000000ull, 0x10100000ull})
      trace.push_back({t++, base + 4 * i, 4, Kind::Read, Origin::Unknown, 0});
  const double original = cache_hits(trace, 64 << 10, 512, 1);
  CHECK(original == 0);

  const std::string without = profile_of(trace);
  const std::string with = profile_of(trace, {"layout=4M"});
  const Json j = Json::parse(with);
  CHECK(j["layout_bytes"] == 4u << 20);
  CHECK_FALSE(Json::parse(without).contains("layout_bytes"));
  // Of the 256 new blocks all but the first are placed: 254 continue the walk
  // two new blocks back, one jumps by 1 MiB (2048 blocks).
  CHECK(j["signature"]["layout"]["streams"][1] == 254);
  CHECK(j["signature"]["layout"]["exact"] == Json::array({Json::array({2048, 1})}));

  const auto first_touch = synth(without);
  const auto placed = synth(with);
  // The synthetic blocks sit as the original's: 0, 1 MiB, 512 B, 1 MiB + 512 B, ...
  std::vector<std::uint64_t> order;
  for (const auto& r : placed) {
    const std::uint64_t blk = (r.address - 0x10000000) / 512;
    if (std::find(order.begin(), order.end(), blk) == order.end()) order.push_back(blk);
  }
  REQUIRE(order.size() >= 256);  // (a few more: the T/R adjustment's new blocks)
  CHECK(std::vector<std::uint64_t>(order.begin(), order.begin() + 6) == std::vector<std::uint64_t>{0, 2048, 1, 2049, 2, 2050});
  // Fully-associative rates depend on block identities only: unchanged by the layout.
  CHECK(lru_hits(placed, 512) == lru_hits(first_touch, 512));
  const double a = cache_hits(first_touch, 64 << 10, 512, 1);
  const double b = cache_hits(placed, 64 << 10, 512, 1);
  INFO("original " << original << ", first-touch layout " << a << ", layout model " << b);
  // The synthetic's block pairs are its consecutive new blocks, half of them
  // an a[i], b[i] pair, so about half the conflict misses come back.
  CHECK(a > 0.95);
  CHECK(b < 0.75);
  // 2-way: no conflicts in any of the three.
  CHECK(cache_hits(placed, 64 << 10, 512, 2) == doctest::Approx(cache_hits(trace, 64 << 10, 512, 2)).epsilon(0.02));
}

TEST_CASE("chameleon layout: knobs and malformed layouts are errors naming the field") {
  auto p = analysis::make_chameleon_profiler();
  std::vector<Reference> trace;
  std::uint64_t x = 7;
  for (std::uint64_t i = 0; i < 4000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;  // an LCG's high bits: random blocks
    trace.push_back({i, 0x10000000 + ((x >> 20) % (1 << 22)), 4, Kind::Read, Origin::Unknown, 0});
  }
  for (const char* bad : {"layout=512", "layout=3000", "layout=x"}) {
    auto params = analysis::ProfileParams::parse({bad}, p->params());
    std::string e = params ? "" : params.error().message;
    if (params) {
      VectorSource src(trace);
      auto out = p->profile(src, *params, {});
      e = out ? "" : out.error().message;
    }
    INFO(bad << " -> " << e);
    CHECK(e.find("'layout'") != std::string::npos);
  }
  const Json good = Json::parse(profile_of(trace, {"layout=1M"}));
  REQUIRE(good["signature"]["layout"]["exact"].size() == kLayoutExact);  // a random walk: more distances than kept
  check_mutations(good, {
      {"layout_bytes: must be 0 or a power of two", [](Json& j) { j["layout_bytes"] = 3000; }},
      {"layout_bytes: not an unsigned integer", [](Json& j) { j["layout_bytes"] = -1; }},
      {"signature.layout: missing", [](Json& j) { j["signature"].erase("layout"); }},
      {"signature.layout: not an object", [](Json& j) { j["signature"]["layout"] = 3; }},
      {"signature.layout.streams: has 2 entries", [](Json& j) { j["signature"]["layout"]["streams"] = Json::array({1, 2}); }},
      {"signature.layout.bins[0]", [](Json& j) { j["signature"]["layout"]["bins"][0] = "x"; }},
      {"signature.layout.bins: has 30 entries", [](Json& j) { j["signature"]["layout"]["bins"] = std::vector<int>(30, 0); }},
      {"signature.layout.exact: missing", [](Json& j) { j["signature"]["layout"].erase("exact"); }},
      {"signature.layout.exact[0]: has 3 entries", [](Json& j) { j["signature"]["layout"]["exact"][0] = Json::array({1, 2, 3}); }},
      {"signature.layout.exact[1]: distance 2048 is not below", [](Json& j) { j["signature"]["layout"]["exact"][1][0] = 2048; }},
      {"signature.layout.exact[1]: distance", [](Json& j) {
         j["signature"]["layout"]["exact"][1][0] = j["signature"]["layout"]["exact"][0][0]; }},
      {"signature.layout.exact: has 33 entries", [](Json& j) { j["signature"]["layout"]["exact"].push_back(Json::array({2047, 1})); }},
      {"signature.layout: ", [](Json& j) { j["signature"]["layout"]["bins"][3] = 1u << 30; }},
  });
  // Round trip: the profile read back writes the same signature.
  auto parsed = parse_profile(good.dump());
  REQUIRE(parsed.ok());
  CHECK(parsed->signature.to_json() == good["signature"]);
}
