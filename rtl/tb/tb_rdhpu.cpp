// Bench of hmtt_rdhpu (Depth TB_DEPTH, TagWidth TB_TAGW, K TB_K, CntW TB_CNTW):
// page streams of several shapes, interval lengths and rec_ready duty cycles.
// Two checks:
//   1. every cycle, rec_valid_o / rec_o / lost_o equal the cycle-exact model
//      hmtt::board::RdhpuModel (records bit for bit, back-pressure and losses);
//   2. every report received equals an independent software computation over
//      the same page stream: the histogram exactly (a naive LRU stack capped at
//      Depth, each access in the interval holding cycle t+Depth), and the hot
//      pages against exact counting with the Space-Saving guarantees (count-err
//      <= accesses <= count; err 0 = exact; every page with more than N/K
//      accesses present; at most K distinct pages = the table is exact).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <unordered_map>

#include "hmtt/board/lru_stack_distance.h"
#include "hmtt/board/rdhpu_model.h"
#include "hmtt/sim/workload.h"
#include "tb_common.h"

#ifndef TB_DEPTH
#define TB_DEPTH 128
#endif
#ifndef TB_TAGW
#define TB_TAGW 24
#endif
#ifndef TB_K
#define TB_K 8
#endif
#ifndef TB_CNTW
#define TB_CNTW 32
#endif

using namespace hmtt;

namespace {

constexpr unsigned kDepth = TB_DEPTH;
constexpr unsigned kK = TB_K;
constexpr std::uint64_t kTagMask = (std::uint64_t{1} << TB_TAGW) - 1;

enum class Shape { Hot, Boundary, Few, Zipf, Large };

struct Segment {
  Shape shape;
  std::uint32_t interval;
  unsigned ready_pct;
  unsigned idle_pct;
  std::uint64_t cycles;
};

struct Expected {
  std::vector<std::uint64_t> bins;
  std::unordered_map<std::uint64_t, std::uint64_t> counts;
  std::uint64_t n = 0;
};

std::uint64_t next_page(Shape s, std::mt19937_64& rng) {
  std::uint64_t p = 0;
  switch (s) {
    case Shape::Hot: p = rng() % 10 < 8 ? 3 * (rng() % 12) : rng(); break;
    case Shape::Boundary: p = rng() % (kDepth + kDepth / 2); break;
    case Shape::Few: p = 0x100 + rng() % (kK > 2 ? kK - 2 : 1); break;
    case Shape::Zipf: {
      const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
      p = static_cast<std::uint64_t>(std::exp(u * std::log(4.0 * kDepth)));
      break;
    }
    case Shape::Large: p = rng(); break;
  }
  return p & kTagMask;
}

using PageGen = std::function<std::uint64_t(const Segment&, std::mt19937_64&)>;

// Runs the segments through the RTL, the model and the independent computation; checks everything.
void run_and_check(const std::vector<Segment>& segs, const PageGen& gen, std::uint64_t min_reports,
                   std::uint64_t min_exact, std::uint64_t min_lost) {
  tb::Bench<Vhmtt_rdhpu> b;
  b.dut->interval_i = segs[0].interval;
  b.dut->acc_valid_i = 0;
  b.dut->acc_page_i = 0;
  b.dut->rec_ready_i = 1;
  b.reset();
  board::RdhpuParams params{kDepth, TB_TAGW, kK, TB_CNTW};
  board::RdhpuModel model(params);
  const unsigned nb = model.num_bins(), nv = model.num_values();

  // The independent computation.
  board::LruStackDistance ref(kDepth);
  struct Access {
    std::uint64_t due, page;
    board::StackAccess r;
  };
  std::deque<Access> in_flight;
  std::map<std::uint64_t, Expected> expected;
  std::uint64_t n_cur = 0;   // interval of the current cycle
  std::uint32_t cyc = 0;     // cycle within it

  // Report reassembly.
  std::vector<std::uint64_t> recs;
  std::uint64_t next_n = 0;
  std::uint64_t rec_mismatch = 0, hist_mismatch = 0, hot_violation = 0, reports = 0, exact_tables = 0,
                bad_framing = 0, accesses = 0;
  auto check_report = [&]() {
    ++reports;
    const std::uint64_t hdr = recs[0];
    const std::uint64_t snum = hdr & 0xFFFF;
    if (((hdr >> 16) & 0xFFFF) != nv || ((hdr >> 32) & 0xF) != 1 || ((hdr >> 36) & 0xF) != 0xB) ++bad_framing;
    while ((next_n & 0xFFFF) != snum) ++next_n;
    const std::uint64_t n = next_n++;
    Expected& e = expected[n];
    if (e.bins.empty()) e.bins.assign(nb, 0);
    for (unsigned i = 0; i < nb; ++i)
      if ((recs[1 + i] & ((std::uint64_t{1} << 36) - 1)) != e.bins[i]) ++hist_mismatch;
    std::set<std::uint64_t> in_table;
    bool table_exact = true;
    for (unsigned j = 0; j < kK; ++j) {
      const std::uint64_t page = recs[1 + nb + 3 * j] & ((std::uint64_t{1} << 36) - 1);
      const std::uint64_t cnt = recs[2 + nb + 3 * j] & ((std::uint64_t{1} << 36) - 1);
      const std::uint64_t err = recs[3 + nb + 3 * j] & ((std::uint64_t{1} << 36) - 1);
      if (cnt == 0) continue;  // empty entry
      if (!in_table.insert(page).second) ++hot_violation;
      const auto it = e.counts.find(page);
      const std::uint64_t truth = it == e.counts.end() ? 0 : it->second;
      if (truth > cnt || cnt - err > truth) ++hot_violation;
      if (err == 0 && cnt != truth) ++hot_violation;
      if (cnt != truth) table_exact = false;
    }
    for (const auto& [page, c] : e.counts)
      if (c * kK > e.n && !in_table.count(page)) ++hot_violation;
    if (e.counts.size() <= kK) {
      if (in_table.size() != e.counts.size() || !table_exact) ++hot_violation;
      ++exact_tables;
    }
    expected.erase(expected.begin(), expected.upper_bound(n));
  };

  std::mt19937_64 rng(2026);
  std::uint64_t cycle = 0;
  for (const Segment& s : segs) {
    for (std::uint64_t k = 0; k < s.cycles; ++k, ++cycle) {
      const bool v = rng() % 100 >= s.idle_pct;
      const std::uint64_t page = gen(s, rng) & kTagMask;
      const bool ready = rng() % 100 < s.ready_pct;
      b.dut->interval_i = s.interval;
      b.dut->acc_valid_i = v;
      b.dut->acc_page_i = page;
      b.dut->rec_ready_i = ready;
      // All outputs are registered: compare before the edge.
      bool ok = (b.dut->rec_valid_o != 0) == model.rec_valid() && b.dut->lost_o == model.lost();
      if (ok && model.rec_valid()) ok = b.dut->rec_o == model.rec();
      if (!ok && rec_mismatch++ < 5)
        MESSAGE("cycle " << cycle << ": rtl valid " << int(b.dut->rec_valid_o) << " rec 0x" << std::hex
                         << static_cast<std::uint64_t>(b.dut->rec_o) << ", model valid " << model.rec_valid()
                         << " rec 0x" << model.rec() << std::dec);
      if (b.dut->rec_valid_o && ready) {
        recs.push_back(b.dut->rec_o);
        if (recs.size() == 1 + nv) {
          check_report();
          recs.clear();
        }
      }
      // Independent: the access whose result leaves in this cycle counts in interval n_cur.
      if (!in_flight.empty() && in_flight.front().due == cycle) {
        const Access& a = in_flight.front();
        Expected& e = expected[n_cur];
        if (e.bins.empty()) e.bins.assign(nb, 0);
        ++e.bins[board::RdhpuModel::bin_of(a.r.hit, a.r.distance, model.dist_bits())];
        ++e.counts[a.page];
        ++e.n;
        in_flight.pop_front();
      }
      if (v) {
        in_flight.push_back(Access{cycle + kDepth, page, ref.access(page)});
        ++accesses;
      }
      if (std::uint64_t{cyc} + 1 >= s.interval) {
        ++n_cur;
        cyc = 0;
      } else {
        ++cyc;
      }
      model.edge(v, page, ready, s.interval);
      b.edge();
    }
  }
  MESSAGE("depth " << kDepth << ", K " << kK << ": " << accesses << " accesses, " << cycle << " cycles, "
                   << reports << " reports checked (" << exact_tables << " with <= K pages), "
                   << model.lost() << " lost");
  CHECK(rec_mismatch == 0);
  CHECK(bad_framing == 0);
  CHECK(hist_mismatch == 0);
  CHECK(hot_violation == 0);
  CHECK(reports >= min_reports);
  CHECK(exact_tables >= min_exact);
  CHECK(model.lost() >= min_lost);
}

// HMTT_TB_SCALE=n repeats the random run n times (the 10 M accesses: n = 19).
std::uint64_t scale() {
  const char* e = std::getenv("HMTT_TB_SCALE");
  const long v = e ? std::atol(e) : 1;
  return v > 0 ? static_cast<std::uint64_t>(v) : 1;
}

}  // namespace

TEST_CASE("hmtt_rdhpu: reports equal the model record for record and an exact software count per interval") {
  const std::vector<Segment> base = {
      {Shape::Hot, 1000, 100, 5, 150000},  {Shape::Boundary, 300, 60, 10, 120000},
      {Shape::Few, 500, 100, 20, 60000},   {Shape::Zipf, 5000, 90, 0, 150000},
      {Shape::Large, 40, 100, 30, 40000},  {Shape::Zipf, 1, 100, 0, 3000},
      {Shape::Hot, 2000, 30, 0, 60000},
  };
  std::vector<Segment> segs;
  for (std::uint64_t i = 0; i < scale(); ++i) segs.insert(segs.end(), base.begin(), base.end());
  // The short intervals (1 and 40 cycles) lose reports.
  run_and_check(segs, [](const Segment& s, std::mt19937_64& rng) { return next_page(s.shape, rng); }, 500, 50,
                100);
}

TEST_CASE("hmtt_rdhpu: the built-in workloads (micro-benchmarks, Appendix A sweep), 4 KB pages") {
  // Each workload's request addresses >> 12 as the page stream, back to back.
  std::vector<std::unique_ptr<sim::RequestSource>> parts;
  const sim::MicroPattern pats[] = {sim::MicroPattern::SequentialRead, sim::MicroPattern::SequentialWrite,
                                    sim::MicroPattern::ReadAfterWrite, sim::MicroPattern::RandomRead};
  for (const auto pat : pats) {
    for (const std::uint32_t unit : {64u, 512u, 4096u}) {
      sim::MicroBenchmarkConfig c;
      c.pattern = pat;
      c.unit = unit;
      c.requests = 20000;
      c.region = std::uint64_t{kDepth} * 4096 * 3 / 2;  // 1.5 x the stack's reach, in pages
      auto w = sim::MicroBenchmark::create(c);
      REQUIRE(w);
      parts.push_back(std::move(*w));
    }
  }
  auto sweep = sim::appendix_a_sweep(100000, 4 << 20, 3);
  REQUIRE(sweep);
  parts.push_back(std::move(*sweep));
  sim::ConcatenatedWorkload all(std::move(parts));
  std::vector<std::uint64_t> pages;
  std::vector<sim::MemoryRequest> buf(4096);
  for (;;) {
    auto n = all.read(buf);
    REQUIRE(n);
    if (*n == 0) break;
    for (std::size_t i = 0; i < *n; ++i) pages.push_back((buf[i].address >> 12) & kTagMask);
  }
  MESSAGE(pages.size() << " workload accesses");
  REQUIRE(pages.size() > 300000);
  const std::vector<Segment> segs = {{Shape::Hot, 700, 100, 0, pages.size() / 2},
                                     {Shape::Hot, 3000, 70, 0, pages.size() - pages.size() / 2 + kDepth + 200}};
  std::size_t at = 0;
  run_and_check(segs, [&](const Segment&, std::mt19937_64&) { return at < pages.size() ? pages[at++] : 0; }, 100,
                0, 0);
}

TEST_CASE("hmtt_rdhpu: known answer of one interval") {
  tb::Bench<Vhmtt_rdhpu> b;
  const std::uint32_t interval = 200;
  b.dut->interval_i = interval;
  b.dut->acc_valid_i = 0;
  b.dut->rec_ready_i = 1;
  b.reset();
  // Pages a b a c a b (cycles 0..5): distances miss miss 1 miss 1 2; counts a 3, b 2, c 1.
  const std::uint64_t pages[] = {5, 6, 5, 7, 5, 6};
  std::vector<std::uint64_t> recs;
  for (unsigned c = 0; c < interval + 60; ++c) {
    b.dut->acc_valid_i = c < 6;
    b.dut->acc_page_i = c < 6 ? pages[c] : 0;
    if (b.dut->rec_valid_o) recs.push_back(b.dut->rec_o);
    b.edge();
  }
  board::RdhpuModel m(board::RdhpuParams{kDepth, TB_TAGW, kK, TB_CNTW});
  const unsigned nb = m.num_bins();
  REQUIRE(recs.size() == 1 + m.num_values());
  CHECK(recs[0] == ((std::uint64_t{0xB1} << 32) | (std::uint64_t{m.num_values()} << 16) | 0));
  const std::uint64_t v = std::uint64_t{0xC} << 36;
  std::vector<std::uint64_t> bins(nb, 0);
  bins[1] = 2;       // distance 1, twice
  bins[2] = 1;       // distance 2
  bins[nb - 1] = 3;  // three first accesses
  for (unsigned i = 0; i < nb; ++i) CHECK(recs[1 + i] == (v | bins[i]));
  // Table order: a, b, c in entries 0, 1, 2, exact (err 0).
  const std::uint64_t hot[3][2] = {{5, 3}, {6, 2}, {7, 1}};
  for (unsigned j = 0; j < 3 && j < kK; ++j) {
    CHECK(recs[1 + nb + 3 * j] == (v | hot[j][0]));
    CHECK(recs[2 + nb + 3 * j] == (v | hot[j][1]));
    CHECK(recs[3 + nb + 3 * j] == v);
  }
}
