// Co-simulation of the RTL board with the online units built in
// (hmtt_board_top -GWithSu=1 -GWithRdhpu=1, docs/board.md 13) against the C++
// board model with BoardConfig::units set: the links' Ethernet frames must be
// equal byte for byte, and the counters (reports pushed and lost included)
// equal. Two kinds of input: the built-in workloads through the access
// sequencer (scored against the ground truth as well), and random command
// streams straight on the pins (every command kind, orphans, auto-precharge,
// PRECHARGE ALL, REFRESH, config-space events, dense bursts that keep the
// CU's item on every push edge, long silences that need OVERFLOW records),
// which are scored RTL against model only. HMTT_COSIM_LONG=1 adds a long tier
// (12 random streams of 150 000 commands).
#include <doctest/doctest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "hmtt/cosim/cosim.h"
#include "workloads.h"

using namespace hmtt;
using namespace hmtt::cosim_test;

namespace {

struct Totals {
  std::uint64_t runs = 0, frames = 0, bytes = 0, reports = 0, lost = 0, mismatched = 0, cycles = 0;
};
Totals totals;  // over the test cases of this file (doctest runs them in file order)

board::BoardConfig base_config(std::uint8_t links, std::uint16_t rpf, double rate_share, int standard) {
  auto map = *sim::AddressMap::builtin("open-page");
  board::BoardConfig c;
  c.map = map;
  c.config_base = board::default_config_base(map);
  c.config_size = board::kDefaultConfigSize;
  c.encoder.links = links;
  c.encoder.records_per_frame = rpf;
  c.encoder.clock_khz = ddr_standard(standard).clock_khz;
  // A link sends 78 + 5n bytes per frame of n records after a pass 1 of 30 + n cycles (docs/board.md 7).
  const double per_link = 5.0 * rpf / (6.0 * rpf + 108.0);
  c.rate_q16 = static_cast<std::uint32_t>(rate_share * per_link * links * 65536);
  return c;
}

cosim::CosimScore check_rtl(const board::BoardConfig& c, std::span<const sim::BusCycle> bus,
                            std::span<const sim::IssuedAccess> issued, const std::string& what) {
  CAPTURE(what);
  auto s = cosim::run_cosim(c, bus, issued, true);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  MESSAGE(what << " (su " << c.units.su_interval << ", rdhpu " << c.units.rdhpu_interval << "): " << s->summary()
               << ", reports " << s->model.reports << " sent / " << s->model.reports_lost << " lost, "
               << s->rtl_bytes << " RTL bytes");
  CHECK(s->rtl_ran);
  CHECK(s->rtl_mismatched_frames == 0);
  CHECK(s->rtl_frames == s->frames);
  CHECK(s->frames > 0);
  CHECK_FALSE(s->rtl_overrun);
  // Every report item pushed leaves the board as one REPORT record.
  CHECK(s->reports == s->model.reports);
  if (c.units.any()) CHECK(s->model.reports > 0);
  ++totals.runs;
  totals.frames += s->rtl_frames;
  totals.bytes += s->rtl_bytes;
  totals.reports += s->model.reports;
  totals.lost += s->model.reports_lost;
  totals.mismatched += s->rtl_mismatched_frames;
  totals.cycles += s->cycles;
  return *s;
}

// A random command stream on the pins of the open-page map (2 ranks x 8 banks,
// config space in rows 16320-16383).
std::vector<sim::BusCycle> random_bus(std::uint64_t seed, std::size_t commands) {
  std::mt19937_64 rng(seed);
  std::vector<sim::BusCycle> bus;
  std::uint64_t t = 0;
  for (std::size_t i = 0; i < commands; ++i) {
    // Phases of 3000 commands: dense (a command in most cycles), then sparse; now and then a long silence.
    const bool dense = (i / 3000) % 2 == 0;
    t += dense ? 1 + (rng() % 8 == 0 ? rng() % 3 : 0) : 1 + rng() % 30;
    if (rng() % 4000 == 0) t += 4096 + rng() % 20000;
    sim::DdrPins p;
    const unsigned rank = static_cast<unsigned>(rng() % 2);
    p.cs_n = static_cast<std::uint8_t>(~(1u << rank));
    p.ba = static_cast<std::uint8_t>(rng() % 8);
    p.a = static_cast<std::uint16_t>(rng());
    const unsigned r = static_cast<unsigned>(rng() % 100);
    auto set = [&](bool ras, bool cas, bool we) {
      p.ras_n = ras;
      p.cas_n = cas;
      p.we_n = we;
    };
    if (r < 60) {  // READ / WRITE, auto-precharge 1 in 16
      set(true, false, (rng() & 1) != 0);
      p.a = static_cast<std::uint16_t>(p.a & ~(1u << sim::kAutoPrechargeBit));
      if (rng() % 16 == 0) p.a = static_cast<std::uint16_t>(p.a | (1u << sim::kAutoPrechargeBit));
    } else if (r < 80) {  // ACTIVE; 1 in 40 opens a config-space row (events, BEGIN/END TRACING)
      set(false, true, true);
      p.a = static_cast<std::uint16_t>(rng() % 40 == 0 ? 16320 : rng() % 16384);
    } else if (r < 88) {  // PRECHARGE
      set(false, true, false);
      p.a = static_cast<std::uint16_t>(p.a & ~(1u << sim::kAutoPrechargeBit));
    } else if (r < 91) {  // PRECHARGE ALL
      set(false, true, false);
      p.a = static_cast<std::uint16_t>(p.a | (1u << sim::kAutoPrechargeBit));
    } else if (r < 93) {  // REFRESH
      set(false, false, true);
    } else if (r < 95) {  // MRS, BST, NOP: dropped by the DCBU
      const unsigned k = static_cast<unsigned>(rng() % 3);
      set(k != 0, k != 0, k != 1);
    } else if (r < 97) {  // DESELECT or both ranks selected: dropped
      p.cs_n = static_cast<std::uint8_t>(rng() & 1 ? 0xFF : 0xFC);
      set(true, false, true);
    } else {  // a READ to the config row's first columns: BEGIN (0), END (8), SYNC (16) TRACING
      set(true, false, true);
      p.a = static_cast<std::uint16_t>(8 * (rng() % 3));
    }
    bus.push_back(sim::BusCycle{t, p});
  }
  return bus;
}

}  // namespace

TEST_CASE("RTL with the online units = model, byte for byte: the built-in workloads") {
  struct Case {
    Pattern pattern;
    std::uint32_t unit;
    std::uint32_t su, rdhpu;
    std::uint8_t links;
    std::uint16_t rpf;
    double rate_share;
    int standard;
  };
  // Intervals from 53 cycles (the SU's report just fits) to 7000; SU alone, RDHPU alone, both;
  // records per frame from the smallest that holds an SU report (53) to 288.
  const Case cases[] = {
      {Pattern::SeqRead, 64, 1000, 1500, 1, 288, 0.9, 1},
      {Pattern::SeqWrite, 256, 2000, 0, 2, 100, 0.9, 0},
      {Pattern::ReadAfterWrite, 1024, 0, 700, 3, 77, 0.9, 2},
      {Pattern::RandomRead, 4096, 53, 34, 4, 53, 0.9, 1},
      {Pattern::Mixed, 64, 3000, 3000, 1, 200, 0.5, 1},
      {Pattern::Mixed, 512, 7000, 2500, 2, 288, 0.9, 0},
  };
  int i = 0;
  for (const Case& k : cases) {
    board::BoardConfig c = base_config(k.links, k.rpf, k.rate_share, k.standard);
    c.units.su_interval = k.su;
    c.units.rdhpu_interval = k.rdhpu;
    WorkloadSpec w;
    w.pattern = k.pattern;
    w.unit = k.unit;
    w.accesses = 4000;
    w.seed = static_cast<std::uint64_t>(300 + i++);
    w.config_base = c.config_base;
    auto timing = ddr_standard(k.standard).timing;
    timing.auto_precharge_every = i % 2 ? 7 : 0;
    board::AccessSequencer seq(c.map, timing);
    generate(w, c.map.capacity_bytes(), seq);
    seq.mark_config_space(c.config_base, c.config_size);
    const auto s = check_rtl(c, seq.bus(), seq.issued(), std::string(pattern_name(k.pattern)));
    // The ground truth too: every reference and event, nothing lost.
    CHECK(s.perfect());
    CHECK(s.lost_by_loss == 0);
    CHECK(s.refs == s.expected_refs);
    CHECK(s.events == s.expected_events);
    if (k.su == 53) CHECK(s.model.reports_lost > 0);  // intervals shorter than a report's trip lose reports
  }
}

TEST_CASE("RTL with the online units = model, byte for byte: random command streams") {
  struct Case {
    std::uint64_t seed;
    std::size_t commands;
    std::uint32_t su, rdhpu;
    std::uint8_t links;
    std::uint16_t rpf;
    double rate_share;
  };
  const Case cases[] = {
      {1, 20000, 500, 800, 4, 288, 0.9},
      {2, 20000, 4000, 0, 1, 60, 0.9},
      {3, 20000, 0, 1000, 2, 97, 0.9},
      {4, 20000, 60, 60, 3, 150, 0.9},
  };
  for (const Case& k : cases) {
    board::BoardConfig c = base_config(k.links, k.rpf, k.rate_share, 1);
    c.units.su_interval = k.su;
    c.units.rdhpu_interval = k.rdhpu;
    const auto bus = random_bus(k.seed, k.commands);
    const auto s = check_rtl(c, bus, {}, "random pins seed " + std::to_string(k.seed));
    CHECK(s.model.references > 2500);
    CHECK(s.model.events > 10);
  }
}

TEST_CASE("a slow link fills the FIFO: report items wait for room, carry LOSS counts, and still match") {
  // Dense random commands (about 3 references per 4 cycles) against 0.94 record bytes per cycle on
  // 4 links: the 16K FIFO fills, items are dropped, and a report item finds the FIFO full and waits.
  board::BoardConfig c = base_config(4, 288, 0.3, 1);
  c.units.su_interval = 2000;
  c.units.rdhpu_interval = 3000;
  std::vector<sim::BusCycle> bus;
  {
    std::mt19937_64 rng(77);
    std::uint64_t t = 0;
    // Open every bank of rank 0 once, then READ/WRITE almost every cycle.
    for (unsigned b = 0; b < 8; ++b) {
      sim::DdrPins p;
      p.cs_n = 0xFE;
      p.ras_n = false;
      p.ba = static_cast<std::uint8_t>(b);
      p.a = static_cast<std::uint16_t>(rng() % 16000);
      bus.push_back(sim::BusCycle{t++, p});
    }
    for (int i = 0; i < 80000; ++i) {
      sim::DdrPins p;
      p.cs_n = 0xFE;
      p.cas_n = false;
      p.we_n = (rng() & 1) != 0;
      p.ba = static_cast<std::uint8_t>(rng() % 8);
      p.a = static_cast<std::uint16_t>(rng() & 0x3FF);
      t += 1 + (rng() % 3 == 0 ? 1 : 0);
      bus.push_back(sim::BusCycle{t, p});
    }
  }
  const auto s = check_rtl(c, bus, {}, "slow link");
  CHECK(s.model.dropped > 1000);
  CHECK(s.model.fifo_high_water == 16384);
  CHECK(s.model.loss_records > 0);
  CHECK(s.model.reports_lost > 0);
  CHECK(s.reports_after_loss > 0);  // a report item took a drop count
}

TEST_CASE("long tier: 12 random streams of 150 000 commands with the units (HMTT_COSIM_LONG=1)") {
  if (std::getenv("HMTT_COSIM_LONG") == nullptr) return;
  const std::uint32_t su[] = {100, 777, 5000, 0};
  const std::uint32_t rd[] = {0, 300, 2222, 64};
  const std::uint16_t rpf[] = {288, 120, 60};
  for (int i = 0; i < 12; ++i) {
    const auto links = static_cast<std::uint8_t>(1 + i % 4);
    // 0.6 of the links' full-frame rate: END events and reports close frames early, and short frames carry less.
    board::BoardConfig c = base_config(links, rpf[i % 3], i % 5 == 4 ? 0.3 : 0.6, i % 3);
    c.units.su_interval = su[i % 4] == 0 && rd[i % 4] == 0 ? 1000 : su[i % 4];
    c.units.rdhpu_interval = rd[i % 4];
    const auto bus = random_bus(1000 + static_cast<std::uint64_t>(i), 150000);
    check_rtl(c, bus, {}, "long random pins " + std::to_string(i));
  }
}

TEST_CASE("totals of the units co-simulation") {
  MESSAGE("units cosim: " << totals.runs << " runs, " << totals.frames << " frames (" << totals.bytes
                          << " bytes) compared RTL against model, " << totals.mismatched << " differ; "
                          << totals.reports << " reports sent, " << totals.lost << " lost; " << totals.cycles
                          << " RTL cycles");
  CHECK(totals.runs == (std::getenv("HMTT_COSIM_LONG") != nullptr ? 23u : 11u));
  CHECK(totals.mismatched == 0);
}
