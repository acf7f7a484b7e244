// The replay phase, judged by the yardstick of `hmtt compare`.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <unordered_map>

#include "hmtt/analysis/cache.h"
#include "hmtt/analysis/reuse_distance.h"
#include "hmtt/psnap/psnap.h"
#include "streams.h"

using namespace hmtt;
using namespace hmtt::psnap;

namespace {
StreamProfile profile_of(const std::vector<Reference>& t, PsnapKnobs k = {}) {
  StreamProfiler p(k);
  for (const auto& r : t) p.access(r);
  return p.finish();
}
std::vector<Reference> replay(const StreamProfile& p, std::uint64_t length = 0, std::uint64_t seed = 1) {
  auto src = make_replay(p, length, seed);
  auto out = collect(*src);
  REQUIRE(out.ok());
  return *out;
}
}  // namespace

TEST_CASE("psnap replay: length, time = index, determinism per seed") {
  const auto t = psnap_test::two_sweeps(10);
  const auto p = profile_of(t);
  const auto a = replay(p);
  REQUIRE(a.size() == t.size());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i].time == i);
  CHECK(replay(p) == a);
  const auto longer = replay(p, 3 * t.size() + 5);
  CHECK(longer.size() == 3 * t.size() + 5);
  const auto shorter = replay(p, 77);
  CHECK(shorter.size() == 77);
  // An empty profile replays nothing.
  CHECK(replay(profile_of({})).empty());
}

TEST_CASE("psnap replay: a regular loop comes back reference for reference") {
  // One pass over two arrays: the pattern buffer alternates A, B and each
  // region walks +8 / +64 from its first address, with no other stride seen.
  const auto t = psnap_test::two_sweeps(1, 512);
  const auto a = replay(profile_of(t));
  REQUIRE(a.size() == t.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    CHECK(a[i].address == t[i].address);
    CHECK(a[i].kind == t[i].kind);
    CHECK(a[i].size == t[i].size);
  }
  // Addresses stay within the regions' ranges.
  for (const auto& r : a) {
    const bool in_a = r.address >= 0x100000 && r.address <= 0x100000 + 8 * 511;
    const bool in_b = r.address >= 0x800000 && r.address <= 0x800000 + 64 * 511;
    CHECK((in_a || in_b));
  }
}

namespace {
// Hit ratio of a fully-associative LRU cache of `lines` 64-byte lines (a power of two).
double lru_hits(const std::vector<Reference>& t, std::uint64_t lines) {
  analysis::LruStackDistance stack(64);
  analysis::ReuseHistogram h;
  for (const auto& r : t) h.add(stack.access(r.address));
  return h.hit_ratio(lines);
}
}  // namespace

TEST_CASE("psnap replay: a sweep comes back at its own depth (a table read down its columns)") {
  // The original: 256 lines a column, each line read again one column later, so a 512-line LRU
  // cache hits 7 of every 8 columns and a 128-line one never. Replayed as returns drawn 256-511
  // accesses back (before the sweep was kept), the synthetic stream's picks repeated lines and
  // hit the 128-line cache 0.63 of the time. With the sweep it is 0.002-0.027 over seeds 1-5
  // (0.066-0.111 with returns=window): the last few random strides start columns the cache does
  // not hold. At 512 lines the seeds give 0.77-0.88 against 0.875 (mean 0.83; window 0.86), so the
  // check there is on the mean of five seeds.
  const auto t = psnap_test::column_walk();
  CHECK(lru_hits(t, 512) == doctest::Approx(0.875).epsilon(0.001));
  CHECK(lru_hits(t, 128) == 0.0);
  const auto p = profile_of(t);
  double mean512 = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const auto a = replay(p, 0, seed);
    REQUIRE(a.size() == t.size());
    mean512 += lru_hits(a, 512) / 5;
    CHECK(lru_hits(a, 128) < 0.05);
  }
  CHECK(std::abs(mean512 - lru_hits(t, 512)) < 0.07);
}

TEST_CASE("psnap replay: a return lands on a line last touched that long ago (returns=loop)") {
  // 300 lines read in one shuffled order, 100 times: every access returns to a line last
  // touched exactly 300 accesses earlier (one window, so both scopes count the same returns,
  // all in the bin [256, 512)). Replayed as the line of the access d back (returns=window), the
  // line has mostly been read again since: 8 % of the synthetic stream's returns come back
  // after 256 or more accesses. By last touch (returns=loop) 85 % do.
  std::vector<std::uint64_t> order(300);
  for (std::uint64_t i = 0; i < order.size(); ++i) order[i] = i;
  std::uint64_t x = 5;
  for (std::size_t i = order.size() - 1; i > 0; --i) {  // Fisher-Yates with a fixed LCG
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    std::swap(order[i], order[(x >> 33) % (i + 1)]);
  }
  std::vector<Reference> t;
  for (int pass = 0; pass < 100; ++pass)
    for (const auto line : order) t.push_back(psnap_test::ref(0x3000000 + 64 * line));
  for (std::size_t i = 0; i < t.size(); ++i) t[i].time = i;
  auto far_returns = [](const std::vector<Reference>& s) {
    std::unordered_map<std::uint64_t, std::size_t> last;
    double returns = 0, far = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const auto [it, fresh] = last.try_emplace(s[i].address >> 6, i);
      if (!fresh) {
        ++returns;
        far += i - it->second >= 256 ? 1 : 0;
        it->second = i;
      }
    }
    return far / returns;
  };
  REQUIRE(far_returns(t) == 1.0);
  PsnapKnobs k;
  k.returns = ReturnScope::Window;
  const double by_access = far_returns(replay(profile_of(t, k)));
  k.returns = ReturnScope::Loop;
  const double by_last_touch = far_returns(replay(profile_of(t, k)));
  MESSAGE("returns after >= 256 accesses: original 1, returns=window " << by_access << ", returns=loop " << by_last_touch);
  CHECK(by_access < 0.2);
  CHECK(by_last_touch > 0.7);
}

namespace {
// Hit ratio of an LRU cache of `kb` KB, `ways`-way (0: fully associative), 64-byte lines.
double cache_hits(const std::vector<Reference>& t, std::uint64_t kb, std::uint64_t ways) {
  auto c = analysis::Cache::create({.size_bytes = kb * 1024, .line_bytes = 64, .ways = ways});
  REQUIRE(c.ok());
  for (const auto& r : t) c->access(r.address >> 6, analysis::CacheOp::Read);
  return c->stats().hit_ratio();
}
}  // namespace

TEST_CASE("psnap replay: bzip2's bucket table comes back with its column runs and both sweeps") {
  // The table's column reads take two random strides: +1024 (marking a column, one run of 255
  // steps) and +1020 (after +4: reading two columns together). Both are kept as sweeps, the
  // first with its runs, the second with its alternations (docs/accuracy.md: bzip2's L2 error
  // 6.4 -> 3.0 % with the runs, 1.8 % with the alternations too).
  const auto t = psnap_test::bucket_table();
  const auto p = profile_of(t);
  REQUIRE(p.loops.size() == 1);
  const RegionProfile* table = nullptr;
  for (const auto& r : p.loops[0].regions)
    if (r.base == 0x3000000) table = &r;
  REQUIRE(table != nullptr);
  REQUIRE(table->sweeps.size() == 2);
  // +1020: each alone, all but a column's first two strides after another (+4 between); ties
  // put the lower stride first.
  CHECK(table->sweeps[0] == Sweep{1020, 64 * 255, 64 * 255, 0, 64 * 254});
  CHECK(table->sweeps[1] == Sweep{1024, 64 * 255, 64, 64, 0});  // one run a column
  // The model before (one sweep, each stride a run of its own) for comparison.
  auto before = p;
  for (auto& l : before.loops)
    for (auto& r : l.regions) {
      if (r.sweeps.size() > 1) r.sweeps.erase(r.sweeps.begin());
      for (auto& w : r.sweeps) w.runs = w.count, w.long_runs = 0, w.alternations = 0;
    }
  // Mean length of the runs of +1024 strides, and the hit ratio of a 32 KB LRU cache, which
  // holds a column's 256 lines but not two columns' and a row's.
  auto mean_run = [](const std::vector<Reference>& s) {
    std::uint64_t strides = 0, runs = 0;
    for (std::size_t i = 1; i < s.size(); ++i)
      if (s[i].address - s[i - 1].address == 1024) {
        ++strides;
        runs += i < 2 || s[i - 1].address - s[i - 2].address != 1024;
      }
    return runs ? static_cast<double>(strides) / static_cast<double>(runs) : 0.0;
  };
  CHECK(mean_run(t) == doctest::Approx(255));
  const double hits = cache_hits(t, 32, 0);
  double run_now = 0, run_before = 0, error_now = 0, error_before = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto now = replay(p, 0, seed), old = replay(before, 0, seed);
    run_now += mean_run(now) / 3;
    run_before += mean_run(old) / 3;
    error_now += std::abs(cache_hits(now, 32, 0) - hits) / 3;
    error_before += std::abs(cache_hits(old, 32, 0) - hits) / 3;
  }
  MESSAGE("runs of +1024: original 255, now ", run_now, ", before ", run_before, "; 32 KB hit error now ", error_now,
          ", before ", error_before);
  CHECK(run_now > 100);  // geometric around 255, cut in two where a run wraps past the last row
  CHECK(run_before < 4);
  CHECK(error_now < error_before - 0.06);  // 0.04 against 0.15
}

namespace {
// One region visited in a random order, each of its `lines` 64-byte lines once: `lines` - 1 random
// strides, none a return, so every far jump is a line's first touch. Hand-built, as the profiler
// would write it, over `bytes` from `base`.
StreamProfile scattered_lines(std::uint64_t base, std::uint64_t bytes, std::uint64_t lines) {
  StreamProfile p;
  p.references = lines;
  LoopProfile l;
  l.instances = 1;
  l.references = lines;
  RegionProfile r;
  r.base = base;
  r.last = base + bytes - 1;
  r.first = base;
  r.count = lines;
  r.runs = 1;
  r.working_set = lines;
  r.first_instance = r.last_instance = 0;
  r.kinds[static_cast<std::size_t>(Kind::Read)] = lines;
  r.sizes = {{8, lines}};
  r.strides[kRandomBin] = lines - 1;
  r.transitions[kRandomBin * kStrideBins + kRandomBin] = lines - 2;
  l.regions = {r};
  l.pattern = {{0, lines}};
  p.loops = {l};
  p.order = {{0, 1}};
  return p;
}

std::size_t distinct_lines(const std::vector<Reference>& t) {
  std::unordered_map<std::uint64_t, int> lines;
  for (const auto& x : t) ++lines[x.address >> 6];
  return lines.size();
}
}  // namespace

TEST_CASE("psnap replay: far jumps take a region's working-set lines fresh before any comes back") {
  // One region of 4096 lines visited in a random order, each line once.
  StreamProfile p = scattered_lines(0x4000000, 4096 * 64, 4096);
  const RegionProfile& r = p.loops[0].regions[0];
  // Drawn uniformly, 4096 jumps over 4096 lines would find about 63 % of them (2,590); fresh, all.
  const auto fresh = replay(p);
  REQUIRE(fresh.size() == 4096);
  CHECK(distinct_lines(fresh) >= 4095);  // the walk starts on `first`, whose slot one far jump takes again
  for (const auto& x : fresh) CHECK((x.address >= r.base && x.address <= r.last));
  // The merged region (a pointer chase standing for many regions) still draws uniformly: fresh
  // slots there made xz's and bzip2's L3 errors worse (docs/accuracy.md). Its working set fills
  // its range, so there are no more slots to draw over (see *a merged region of scattered first touches*).
  p.loops[0].regions[0].merged = 40;
  const auto merged = replay(p);
  CHECK(distinct_lines(merged) < 2800);
  CHECK(distinct_lines(merged) > 2400);
}

TEST_CASE("psnap replay: a board's 64-byte bursts stay on line boundaries when a stride wraps") {
  // What the board sees: 64-byte references on line boundaries. Short runs of +64 over 11 lines
  // (a range of 641 bytes from the first address to the last), each run starting on a random line,
  // so replay's +64 walks run off the range's end and wrap. A wrap modulo 641 bytes lands one byte
  // short of a line, and that access spans two lines (the board capture of docs/psnap.md: L1 hit
  // ratio 14 % in the original, 34 % in the synthetic stream, docs/accuracy.md).
  std::vector<Reference> t;
  std::uint64_t x = 7;
  for (int run = 0; run < 400; ++run) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    std::uint64_t line = (x >> 33) % 11;
    for (int k = 0; k < 6 && line < 11; ++k, ++line) {
      Reference r;
      r.time = t.size();
      r.address = 0x200000 + line * 64;
      r.size = 64;
      r.kind = (x >> 20) % 3 == 0 ? Kind::Write : Kind::Read;
      t.push_back(r);
    }
  }
  const auto p = profile_of(t);
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const auto a = replay(p, 0, seed);
    REQUIRE(a.size() == t.size());
    std::size_t off_line = 0;
    for (const auto& r : a) {
      off_line += r.address % 64 != 0;
      CHECK((r.address >= 0x200000 && r.address <= 0x200000 + 10 * 64));
      CHECK(r.size == 64);
    }
    CHECK(off_line == 0);
  }
}

TEST_CASE("psnap replay: a load or store of 2^k bytes lands on a 2^k boundary, an instruction anywhere") {
  // One region of byte and 8-byte loads mixed (the byte loads at odd addresses, so the walk's
  // addresses are any byte), and instructions of 3 and 4 bytes in another. The replay draws each
  // reference's size apart from its address: an 8-byte load at an odd address would be one the
  // original never makes, and one that spans two lines is two cache accesses.
  std::vector<Reference> t;
  auto add = [&t](std::uint64_t address, std::uint32_t size, Kind kind) {
    t.push_back({t.size(), address, size, kind, Origin::Unknown, 0});
  };
  for (std::uint64_t i = 0; i < 3000; ++i) {
    add(0x300000 + (i % 500) * 8 + ((i & 1) ? 3 : 0), (i & 1) ? 1 : 8, Kind::Read);
    add(0x400000 + (i % 200) * 7 + ((i & 2) ? 3 : 0), (i & 2) ? 4 : 3, Kind::IFetch);
  }
  const auto a = replay(profile_of(t));
  REQUIRE(a.size() == t.size());
  std::size_t wide = 0, odd_bytes = 0, fetches_off_4 = 0;
  for (const auto& r : a) {
    if (r.kind == Kind::IFetch) {
      fetches_off_4 += r.size == 4 && r.address % 4 != 0;
      continue;
    }
    if (r.size == 8) {
      ++wide;
      CHECK(r.address % 8 == 0);
    } else {
      odd_bytes += r.address % 2 != 0;
    }
  }
  CHECK(wide > 1000);
  CHECK(odd_bytes > 100);      // a byte load stays where the walk put it
  CHECK(fetches_off_4 > 100);  // and so does an instruction
}

TEST_CASE("psnap replay: a merged region of scattered first touches comes back as first touches") {
  // A merged region (pointer chasing, many small regions) of 4096 loads scattered over 64 MB, each
  // line loaded once. Its far jumps drawn at random over its 4096 working-set slots found 63 % of
  // them (the demo's scattered loads: L2 error 7.4 %); drawn over as many slots as make the
  // expected distinct lines 4096, nearly all are first touches.
  StreamProfile p = scattered_lines(0x10000000, std::uint64_t{1} << 26, 4096);
  p.loops[0].regions[0].merged = 900;
  const RegionProfile& r = p.loops[0].regions[0];
  const auto scattered = replay(p);
  REQUIRE(scattered.size() == 4096);
  for (const auto& x : scattered) CHECK((x.address >= r.base && x.address <= r.last));
  // S (1 - e^(-4095 / S)) = 4096 has no finite S, so the draws are over all 2^20 lines: about
  // 4096 - 4096^2 / 2^21 = 4088 distinct.
  CHECK(distinct_lines(scattered) >= 4050);
  // Where its returns are a quarter of its far jumps or more (xz's hash table: five returns for
  // every far jump), the draws stay over the working set: 1,024 returns to the line 1 access
  // ago, 3,071 far jumps over 4,096 slots (about 2,170 lines).
  p.loops[0].regions[0].jump_reuse[0] = 1024;
  const auto hashed = replay(p);
  CHECK(distinct_lines(hashed) < 2400);
  CHECK(distinct_lines(hashed) > 1900);
}

namespace {
// A table used a part at a time (gzip's hash chain and window, docs/accuracy.md *stop 29*): a hot
// position moves one 64-byte line every 64 accesses through `lines` lines, wrapping; each access
// either steps to the next or previous line (a move) or jumps to a line within 16 of the position.
std::vector<Reference> moving_hot_part(std::uint64_t lines, std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Reference> t;
  t.reserve(n);
  const std::uint64_t base = 0x6000000;
  std::uint64_t line = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t hot = i / 64;
    if (rng() % 2 == 0) {
      line = rng() % 2 ? line + 1 : line + lines - 1;
    } else {
      line = hot + lines - 16 + rng() % 33;
    }
    line %= lines;
    t.push_back({.time = i, .address = base + line * 64 + 8 * (rng() % 8), .size = 8, .kind = Kind::Read});
  }
  return t;
}

// Of the moves (strides within +-256 bytes to another line) after the walk's first `skip`
// references: the share whose line was last touched at least `far` references earlier, or never.
double far_moves(const std::vector<Reference>& t, std::uint64_t skip, std::uint64_t far) {
  std::unordered_map<std::uint64_t, std::uint64_t> last;
  std::uint64_t moves = 0, far_ones = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const std::uint64_t l = t[i].address >> 6;
    const auto it = last.find(l);
    if (i > skip) {
      const std::int64_t d = static_cast<std::int64_t>(t[i].address - t[i - 1].address);
      if (l != (t[i - 1].address >> 6) && d >= -256 && d <= 256) {
        ++moves;
        far_ones += it == last.end() || i - it->second >= far;
      }
    }
    last[l] = i;
  }
  return moves ? static_cast<double>(far_ones) / static_cast<double>(moves) : 0.0;
}
}  // namespace

TEST_CASE("psnap replay: a long walk's moves come back from as far as the original's (a moving hot part)") {
  // 20 passes of the hot part over 1024 lines: one region of 1,310,720 accesses, whose moves return
  // to lines touched a few hundred accesses before, and 1.6 % of them to a line of the pass before.
  const auto t = moving_hot_part(1024, 5 << 18, 7);
  const auto p = profile_of(t);
  REQUIRE(p.loops.size() == 1);
  REQUIRE(p.loops[0].regions.size() == 1);
  const double orig = far_moves(t, 1000000, 4096);
  CHECK(orig > 0.014);
  CHECK(orig < 0.018);
  for (const std::uint64_t seed : {1, 2}) {
    const auto a = replay(p, 0, seed);
    REQUIRE(a.size() == t.size());
    // Steered by distance bin from the walk's 2^19th access on. Before this steering 5.7-5.9 % of
    // the moves after the 1,000,000th came from 4,096 accesses back or more, and a 256-line LRU
    // cache hit 0.9774-0.9785 against the original's 0.9844; with it, 2.1-2.2 % and 0.9839.
    CHECK(far_moves(a, 1000000, 4096) < 2 * orig);
    CHECK(std::abs(lru_hits(a, 256) - lru_hits(t, 256)) < 0.003);
  }
}

namespace {
// A table that fills as its input arrives (gzip's window): reference i reads one of the first
// 16 + (lines - 16) i / n lines, half the time the next or previous line of the one before.
std::vector<Reference> filling_table(std::uint64_t lines, std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Reference> t;
  t.reserve(n);
  std::uint64_t line = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t filled = 16 + (lines - 16) * i / n;
    if (rng() % 2 == 0) {
      line = rng() % 2 ? std::min(line + 1, filled - 1) : (line > 0 ? line - 1 : 0);
    } else {
      line = rng() % filled;
    }
    t.push_back({.time = i, .address = 0x7000000 + line * 64 + 8 * (rng() % 8), .size = 8, .kind = Kind::Read});
  }
  return t;
}
}  // namespace

TEST_CASE("psnap replay: a long walk's first touches keep to the region's growth curve") {
  const std::uint64_t n = std::uint64_t{1} << 20;
  const auto t = filling_table(2048, n, 3);
  // One loop (every window shares it): as the table grows, its windows' pages differ enough for the
  // segmentation to make four loops of them.
  PsnapKnobs one_loop;
  one_loop.loop_similarity = 0.0;
  auto p = profile_of(t, one_loop);
  REQUIRE(p.loops.size() == 1);
  REQUIRE(p.loops[0].regions.size() == 1);
  const RegionProfile& r = p.loops[0].regions[0];
  // The curve: the k-th eighth of the 2,048 lines had come when about (k - 1/8) of the run had.
  REQUIRE(r.growth.size() == RegionProfile::kGrowthPoints);
  for (std::size_t j = 0; j < RegionProfile::kGrowthPoints; ++j) {
    const double expected = (static_cast<double>(j + 1) / 8 * 2048 - 16) / 2032;
    CHECK(static_cast<double>(r.growth[j]) / RegionProfile::kGrowthScale == doctest::Approx(expected).epsilon(0.05));
  }
  auto first_quarter = [n](const std::vector<Reference>& a) {
    return distinct_lines(std::vector<Reference>(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n / 4)));
  };
  const std::size_t orig = first_quarter(t);  // about 16 + 2032 / 4
  CHECK(orig > 480);
  CHECK(orig < 560);
  const auto paced = replay(p);
  CHECK(distinct_lines(paced) > distinct_lines(t) * 9 / 10);  // 1,964 of 2,045: a few first touches never come
  CHECK(first_quarter(paced) < orig * 5 / 4);
  CHECK(first_quarter(paced) > orig * 3 / 4);
  // Without the curve the walk takes fresh lines at every far jump and has the whole table by then.
  p.loops[0].regions[0].growth.clear();
  CHECK(first_quarter(replay(p)) > 2 * orig);
}

namespace {
// Scattered loads over clusters far apart (xz's hash tables and heap, a few MB used of a 16-79 MB
// range): phase A loads every 8th line of clusters 0 and 1 (2,048 lines each, 1 MB), phase B of
// clusters 1 and 2, each in a random order, each line twice; the clusters are 1 GB apart. Lines
// 512 bytes apart are regions of their own, touched fewer than merge_below times a window: every
// loop's data is one merged region. Each phase fetches its own code, so the phases are two loops.
constexpr std::uint64_t kClusterBytes = std::uint64_t{1} << 20;
std::uint64_t cluster_base(int c) { return 0x10000000 + (std::uint64_t{1} << 30) * static_cast<std::uint64_t>(c); }
std::vector<Reference> scattered_clusters() {
  std::vector<Reference> t;
  std::mt19937_64 rng(5);
  for (int phase = 0; phase < 2; ++phase) {
    std::vector<std::uint64_t> lines;
    for (int c = phase; c < phase + 2; ++c)
      for (std::uint64_t i = 0; i < kClusterBytes / 512; ++i) lines.push_back(cluster_base(c) + 512 * i);
    for (int pass = 0; pass < 2; ++pass) {
      std::shuffle(lines.begin(), lines.end(), rng);
      for (std::size_t i = 0; i < lines.size(); ++i) {
        t.push_back(psnap_test::ref(0x400000 + 0x100000 * static_cast<std::uint64_t>(phase) + 4 * (i % 16), Kind::IFetch, 4));
        t.push_back(psnap_test::ref(lines[i]));
      }
    }
  }
  for (std::size_t i = 0; i < t.size(); ++i) t[i].time = i;
  return t;
}
// Distinct data lines in each cluster, and (last) the loads outside every cluster.
std::array<std::size_t, 4> cluster_lines(const std::vector<Reference>& t) {
  std::array<std::unordered_map<std::uint64_t, int>, 3> lines;
  std::array<std::size_t, 4> n{};
  for (const auto& x : t) {
    if (x.kind == Kind::IFetch) continue;
    bool in = false;
    for (int c = 0; c < 3; ++c)
      if (x.address >= cluster_base(c) && x.address < cluster_base(c) + kClusterBytes) {
        ++lines[static_cast<std::size_t>(c)][x.address >> 6];
        in = true;
      }
    n[3] += !in;
  }
  for (std::size_t c = 0; c < 3; ++c) n[c] = lines[c].size();
  return n;
}
}  // namespace

TEST_CASE("psnap replay: a merged region's lines come back in the blocks they were in, shared across loops") {
  const auto original = scattered_clusters();
  PsnapKnobs k;
  k.window = 8192;
  const StreamProfile p = profile_of(original, k);
  REQUIRE(p.loops.size() == 2);
  // Each loop's data is one merged region over 2 GB whose footprint is the clusters' 64 KiB
  // blocks, 128 lines in each (every 8th line).
  for (const auto& l : p.loops) {
    const RegionProfile* m = nullptr;
    for (const auto& r : l.regions)
      if (r.merged > 0 && !r.code) m = &r;
    REQUIRE(m != nullptr);
    CHECK(m->working_set == 4096);
    REQUIRE(m->footprint.size() == 32);
    std::uint64_t sum = 0;
    for (const auto& [block, lines] : m->footprint) {
      CHECK(lines == 128);
      sum += lines;
    }
    CHECK(sum == m->working_set);
    CHECK(m->last - m->base > (std::uint64_t{1} << 30));
  }
  const auto original_lines = cluster_lines(original);
  CHECK(original_lines == std::array<std::size_t, 4>{2048, 2048, 2048, 0});
  // Replayed, every load lands in a cluster: the regions' slots lie in their blocks. Laid out
  // evenly over each merged region's range (version 6 profiles, the check below) two loads in
  // three fell between the clusters.
  const auto synthetic = cluster_lines(replay(p));
  MESSAGE("lines per cluster ", synthetic[0], " ", synthetic[1], " ", synthetic[2], ", outside ", synthetic[3]);
  CHECK(synthetic[3] == 0);
  // A merged region's far jumps take its slots as first touches, each once, before any is drawn
  // again (since stop 32), so each cluster comes back with the original's 2,048 lines (drawn at
  // random, 4,096 draws found about 63 % of 4,096: 1,300-1,500 of a cluster used by one loop).
  // Cluster 1 is used by both loops, and their slots in a block are the same lines (one order of
  // the block's lines for the stream): two layouts of their own gave it nearly twice the others'
  // lines (3,052 against 1,618).
  for (std::size_t c = 0; c < 3; ++c) {
    CHECK(synthetic[c] >= original_lines[c]);
    CHECK(synthetic[c] <= original_lines[c] + 8);
  }
  StreamProfile old = p;
  for (auto& l : old.loops)
    for (auto& r : l.regions) r.footprint.clear();
  const auto spread = replay(old);
  const auto spread_lines = cluster_lines(spread);
  CHECK(spread_lines[3] > spread.size() / 4);
}

namespace {
// A hot loop (an array read again and again, with its code), 200 regions 4 KB apart each read 6
// times in one window of every 4 (1.5 accesses an instance), and 500 small regions each read 4 times
// in one window of every 20 (0.2 an instance), as xz's thousands of regions around its hash tables.
std::vector<Reference> hot_loop_and_small_regions(std::uint64_t windows) {
  std::vector<Reference> t;
  for (std::uint64_t w = 0; w < windows; ++w) {
    std::vector<Reference> cold;
    for (std::uint64_t s = w % 4; s < 200; s += 4)
      for (int i = 0; i < 6; ++i) cold.push_back(psnap_test::ref(0x30000000 + 4096 * s + 8 * static_cast<std::uint64_t>(i)));
    for (std::uint64_t s = w % 20; s < 500; s += 20)
      for (int i = 0; i < 4; ++i) cold.push_back(psnap_test::ref(0x20000000 + 4096 * s + 8 * static_cast<std::uint64_t>(i)));
    std::size_t next = 0;
    for (std::uint64_t i = 0; i < 1000 - cold.size(); ++i) {
      t.push_back(i % 2 ? psnap_test::ref(0x400000 + 4 * (i % 32), Kind::IFetch, 4) : psnap_test::ref(0x1000000 + 8 * (i % 256)));
      if (i % 3 == 0)  // a region's accesses two at a time, between the hot loop's
        for (int k = 0; k < 2 && next < cold.size(); ++k) t.push_back(cold[next++]);
    }
  }
  for (std::size_t i = 0; i < t.size(); ++i) t[i].time = i;
  return t;
}
std::uint64_t accesses_in(const std::vector<Reference>& t, std::uint64_t from, std::uint64_t to) {
  std::uint64_t n = 0;
  for (const auto& x : t) n += x.address >= from && x.address < to;
  return n;
}
std::uint64_t small_region_accesses(const std::vector<Reference>& t) { return accesses_in(t, 0x20000000, 0x20000000 + 4096 * 500); }
std::uint64_t medium_region_accesses(const std::vector<Reference>& t) { return accesses_in(t, 0x30000000, 0x30000000 + 4096 * 200); }
}  // namespace

TEST_CASE("psnap replay: a region's fractional budget per instance carries over, so small regions keep their counts") {
  const auto original = hot_loop_and_small_regions(400);
  PsnapKnobs k;
  k.window = 1000;
  const StreamProfile p = profile_of(original, k);
  REQUIRE(p.loops.size() == 1);
  std::uint64_t small_regions = 0, small_count = 0;
  for (const auto& r : p.loops[0].regions)
    if (r.base >= 0x20000000 && r.base < 0x30000000 && r.merged == 0) {
      ++small_regions;
      small_count += r.count;
    }
  CHECK(small_regions == 500);
  REQUIRE(small_count == small_region_accesses(original));  // 400 windows x 25 regions x 4
  const auto synthetic = replay(p);
  REQUIRE(synthetic.size() == original.size());
  // Each instance's budgets stop where the pattern's runs and the draws leave less than one access
  // of a region; without the carry what they left was lost with the instance, and the rest of the
  // instance went wherever a fraction remained: here the small regions got 34,973 accesses of
  // their 40,000 (xz's long run: its 4,965 small regions around the hash tables 1.29 M of 0.92 M).
  const auto got = small_region_accesses(synthetic), medium = medium_region_accesses(synthetic);
  MESSAGE("small regions: ", got, " accesses, original ", small_count, "; medium ", medium, ", original ",
          medium_region_accesses(original));
  CHECK(static_cast<double>(got) < 1.05 * static_cast<double>(small_count));
  CHECK(static_cast<double>(got) > 0.95 * static_cast<double>(small_count));
  CHECK(static_cast<double>(medium) < 1.05 * static_cast<double>(medium_region_accesses(original)));
  CHECK(static_cast<double>(medium) > 0.95 * static_cast<double>(medium_region_accesses(original)));
}

namespace {
// A table busy while the input reaches it, then touched rarely (a block of xz's binary-tree array):
// 16 windows of 65,536 references; region R (64 KiB from 0x5000000, walked in steps of 8 bytes)
// takes 8,000 references in each of the first two windows and 100 in each later one; the rest go to
// S, a 1 MiB array walked the same way, evenly.
constexpr std::uint64_t kBusyBase = 0x5000000;
std::vector<Reference> busy_then_rare() {
  std::vector<Reference> t;
  std::uint64_t r = 0, s = 0;
  for (std::uint64_t w = 0; w < 16; ++w) {
    const std::uint64_t busy = w < 2 ? 8000 : 100, every = 65536 / busy;
    for (std::uint64_t i = 0; i < 65536; ++i) {
      const bool to_r = i % every == 0 && i / every < busy;
      const std::uint64_t a = to_r ? kBusyBase + (r++ * 8) % 65536 : 0x9000000 + (s++ * 8) % (1u << 20);
      t.push_back({.time = t.size(), .address = a, .size = 8, .kind = Kind::Read});
    }
  }
  return t;
}
std::uint64_t busy_in(const std::vector<Reference>& t, std::size_t begin, std::size_t end) {
  std::uint64_t n = 0;
  for (std::size_t i = begin; i < std::min(end, t.size()); ++i) n += t[i].address >= kBusyBase && t[i].address < kBusyBase + 65536;
  return n;
}
}  // namespace

TEST_CASE("psnap replay: a region busy in its first instances gets its accesses there (activity curve)") {
  const auto t = busy_then_rare();
  PsnapKnobs one_loop;
  one_loop.loop_similarity = 0.0;
  auto p = profile_of(t, one_loop);
  REQUIRE(p.loops.size() == 1);
  REQUIRE(p.loops[0].instances == 16);
  const RegionProfile* busy = nullptr;
  for (const auto& r : p.loops[0].regions) {
    if (r.base >= kBusyBase && r.last < kBusyBase + 65536) busy = &r;
    else CHECK(r.activity.empty());  // S's accesses are even over its lifetime
  }
  REQUIRE(busy != nullptr);
  REQUIRE(busy->count == 17400);
  REQUIRE(busy->activity.size() == RegionProfile::kActivityPoints);
  // 16,000 of its 17,400 accesses (seven eighths and more) are in the first two of 16 instances;
  // the last eighth's end is the last instance's end.
  for (std::size_t j = 0; j + 1 < RegionProfile::kActivityPoints; ++j) {
    const double at = static_cast<double>(busy->activity[j]) / RegionProfile::kGrowthScale;
    const double eighth = static_cast<double>(j + 1) * 17400 / 8;
    CHECK(at == doctest::Approx(eighth / 8000 / 16).epsilon(0.02));
  }
  CHECK(busy->activity.back() > RegionProfile::kGrowthScale * 15 / 16);
  // Replayed, the first two instances get the curve's seven eighths (15,225; the original's
  // 16,000), and the last eighth is spread from there to the end (1,234 in the last eight
  // instances; the original's 800). With an even share they got 2,175, and 8,700 in the last eight
  // before S's even share was scaled to what the busy region leaves of each instance.
  const auto a = replay(p);
  CHECK(busy_in(a, 0, a.size()) == doctest::Approx(17400).epsilon(0.01));
  CHECK(busy_in(a, 0, 2 * 65536) == doctest::Approx(15225).epsilon(0.03));
  CHECK(busy_in(a, 8 * 65536, 16 * 65536) == doctest::Approx(1234).epsilon(0.1));
  // The curve survives both formats.
  auto back = from_binary(to_binary(p));
  REQUIRE(back.ok());
  CHECK(back->loops[0].regions == p.loops[0].regions);
  for (auto& r : p.loops[0].regions) r.activity.clear();
  const auto even = replay(p);
  CHECK(busy_in(even, 0, 2 * 65536) < 3000);
}

namespace {
// A table filled block by block and read at random behind its frontier (xz's binary tree): 8
// phases, in phase k two loads per instruction-fetch pair to lines (512 bytes apart, 128 per
// 64 KiB block) drawn from blocks 0 .. k. Each line is loaded a few times in all and about twice
// a window: the loads merge into one region whose footprint is the 8 blocks.
constexpr std::uint64_t kTableBase = 0x20000000;
std::vector<Reference> table_behind_frontier() {
  std::vector<Reference> t;
  std::mt19937_64 rng(9);
  for (std::uint64_t phase = 0; phase < 8; ++phase)
    for (std::uint64_t i = 0; i < 512; ++i) {
      t.push_back(psnap_test::ref(0x400000 + 4 * (i % 16), Kind::IFetch, 4));
      const std::uint64_t line = rng() % (128 * (phase + 1));
      t.push_back(psnap_test::ref(kTableBase + 512 * line));
    }
  for (std::size_t i = 0; i < t.size(); ++i) t[i].time = i;
  return t;
}
// For each 64 KiB block of the table, when its first load came, as a share of the table's loads.
std::array<double, 8> block_first_loads(const std::vector<Reference>& t) {
  std::array<double, 8> first;
  first.fill(-1.0);
  std::uint64_t loads = 0, n = 0;
  for (const auto& x : t) n += x.kind != Kind::IFetch;
  for (const auto& x : t) {
    if (x.kind == Kind::IFetch) continue;
    if (x.address >= kTableBase && x.address < kTableBase + 8 * 65536) {
      auto& f = first[static_cast<std::size_t>((x.address - kTableBase) >> 16)];
      if (f < 0.0) f = static_cast<double>(loads) / static_cast<double>(n);
    }
    ++loads;
  }
  return first;
}
}  // namespace

TEST_CASE("psnap replay: a merged region takes its first touches from blocks already open, in the order the program opened them") {
  const auto original = table_behind_frontier();
  PsnapKnobs k;
  k.window = 512;
  const StreamProfile p = profile_of(original, k);
  const RegionProfile* m = nullptr;
  for (const auto& l : p.loops)
    for (const auto& r : l.regions)
      if (r.merged > 0 && !r.code && r.footprint.size() == 8) m = &r;
  REQUIRE(m != nullptr);
  // The profile: block b opened about b/8 into the region's lifetime (its first load there).
  REQUIRE(m->footprint_open.size() == 8);
  for (std::size_t b = 0; b < 8; ++b) {
    const double open = static_cast<double>(m->footprint_open[b]) / RegionProfile::kGrowthScale;
    CHECK(std::abs(open - static_cast<double>(b) / 8.0) <= 0.03);
  }
  const auto orig = block_first_loads(original);
  // Replayed, no block is loaded before its time (drawn from all blocks, as before stop 33, each
  // block had its first load within the first 2 % of the loads), nor long after it (0.01-0.06
  // late when written: a block opens at the walk's next far jump, and then holds a share of the
  // slots left). While every open block's slots are taken, far jumps return to lines touched
  // before: opening the next block instead had blocks 1-5 loaded 0.07-0.2 early.
  const auto synthetic = block_first_loads(replay(p));
  for (std::size_t b = 0; b < 8; ++b) {
    MESSAGE("block ", b, ": first load at ", orig[b], " of the loads, replayed ", synthetic[b]);
    CHECK(synthetic[b] >= static_cast<double>(b) / 8.0 - 0.03);
    CHECK(synthetic[b] <= static_cast<double>(b) / 8.0 + 0.1);
  }
  // A profile without open times (before version 9) replays as before: every block early on.
  auto old = p;
  for (auto& l : old.loops)
    for (auto& r : l.regions) r.footprint_open.clear();
  const auto before = block_first_loads(replay(old));
  CHECK(*std::max_element(before.begin(), before.end()) < 0.1);
}
