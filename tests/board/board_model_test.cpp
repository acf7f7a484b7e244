// The C++ board model against hand-built command sequences (docs/board.md):
// each test decodes the frames the board sends with the host-side decoder and
// checks addresses, kinds, times, events and loss counts against values
// computed by hand or by an independent oracle.
#include <doctest/doctest.h>

#include <algorithm>
#include <deque>
#include <random>

#include "hmtt/board/access_sequencer.h"
#include "hmtt/board/board_model.h"

using namespace hmtt;
using namespace hmtt::board;
using sim::DdrCommand;

namespace {

sim::AddressMap open_page() { return *sim::AddressMap::builtin("open-page"); }

BoardConfig config(const sim::AddressMap& map) {
  BoardConfig c;
  c.map = map;
  c.config_base = default_config_base(map);
  c.config_size = kDefaultConfigSize;
  return c;
}

struct Bus {
  std::vector<sim::BusCycle> cycles;
  void cmd(std::uint64_t cycle, DdrCommand cmd, unsigned rank, unsigned bank, unsigned addr, bool ap = false) {
    sim::DdrCommandWord w;
    w.cmd = cmd;
    w.rank = static_cast<std::uint8_t>(rank);
    w.bank = static_cast<std::uint8_t>(bank);
    w.addr = static_cast<std::uint16_t>(addr);
    w.auto_precharge = ap;
    cycles.push_back(sim::BusCycle{cycle, sim::encode_pins(w)});
  }
};

struct Decoded {
  std::vector<Reference> refs;
  std::vector<wire::DecodedEvent> events;
  std::vector<wire::DecodedLoss> losses;
  std::vector<wire::FrameHeader> headers;
};

Decoded run(BoardModel& m, const std::vector<sim::BusCycle>& bus) {
  REQUIRE(m.consume(bus).ok());
  REQUIRE(m.finish().ok());
  Decoded d;
  wire::DecodedFrame f;
  while (m.has_frame()) {
    auto ef = m.pop_frame();
    REQUIRE(wire::decode_frame(ef.bytes, f).ok());
    // The Ethernet packet carries the frame unchanged and checks out.
    auto pkt = m.packet(ef);
    auto payload = wire::udp_payload(pkt, true);
    REQUIRE(payload.ok());
    CHECK(std::vector<std::uint8_t>(payload->begin(), payload->end()) == ef.bytes);
    d.headers.push_back(f.header);
    d.refs.insert(d.refs.end(), f.refs.begin(), f.refs.end());
    d.events.insert(d.events.end(), f.events.begin(), f.events.end());
    d.losses.insert(d.losses.end(), f.losses.begin(), f.losses.end());
  }
  return d;
}

std::uint64_t addr(const sim::AddressMap& map, unsigned rank, unsigned bank, unsigned row, unsigned col) {
  sim::DramCoordinates c;
  c.rank = rank;
  c.bank = bank;
  c.row = row;
  c.column = col;
  return map.compose(c);
}

}  // namespace

TEST_CASE("one read: address rebuilt from ACTIVE row and READ column, time = READ cycle") {
  auto map = open_page();
  auto m = *BoardModel::create(config(map));
  Bus b;
  b.cmd(10, DdrCommand::Active, 0, 3, 0x1234);
  b.cmd(13, DdrCommand::Read, 0, 3, 0x48);
  auto d = run(m, b.cycles);
  REQUIRE(d.refs.size() == 1);
  CHECK(d.refs[0].address == addr(map, 0, 3, 0x1234, 0x48));
  // By hand: row 0x1234 << 17 | bank 3 << 13 | col 0x48 << 3 = 0x2468_6240.
  CHECK(d.refs[0].address == 0x24686240u);
  CHECK(d.refs[0].time == 13);
  CHECK(d.refs[0].kind == Kind::Read);
  CHECK(m.counters().commands == 2);
  CHECK(m.counters().fifo_high_water == 1);
  REQUIRE(d.headers.size() == 1);
  CHECK(d.headers[0].base_time == 0);
  CHECK(d.headers[0].flags == 1);
}

TEST_CASE("multi-bank interleaving keeps one open row per bank") {
  auto map = open_page();
  auto m = *BoardModel::create(config(map));
  Bus b;
  b.cmd(10, DdrCommand::Active, 0, 0, 100);
  b.cmd(12, DdrCommand::Active, 0, 1, 200);
  b.cmd(14, DdrCommand::Active, 0, 2, 300);
  b.cmd(16, DdrCommand::Read, 0, 0, 8);
  b.cmd(20, DdrCommand::Write, 0, 1, 16);
  b.cmd(24, DdrCommand::Read, 0, 2, 24);
  b.cmd(28, DdrCommand::Write, 0, 0, 32);
  b.cmd(30, DdrCommand::Precharge, 0, 1, 0);
  b.cmd(33, DdrCommand::Active, 0, 1, 201);
  b.cmd(36, DdrCommand::Read, 0, 1, 40);
  auto d = run(m, b.cycles);
  REQUIRE(d.refs.size() == 5);
  const std::uint64_t want[] = {addr(map, 0, 0, 100, 8), addr(map, 0, 1, 200, 16), addr(map, 0, 2, 300, 24),
                                addr(map, 0, 0, 100, 32), addr(map, 0, 1, 201, 40)};
  const bool wr[] = {false, true, false, true, false};
  const std::uint64_t t[] = {16, 20, 24, 28, 36};
  for (int i = 0; i < 5; ++i) {
    CHECK(d.refs[i].address == want[i]);
    CHECK((d.refs[i].kind == Kind::Write) == wr[i]);
    CHECK(d.refs[i].time == t[i]);
  }
}

TEST_CASE("auto-precharge closes the row: a later READ without ACTIVE is an orphan") {
  auto map = open_page();
  auto m = *BoardModel::create(config(map));
  Bus b;
  b.cmd(10, DdrCommand::Active, 0, 5, 7);
  b.cmd(13, DdrCommand::Read, 0, 5, 64, true);
  b.cmd(20, DdrCommand::Read, 0, 5, 72);
  b.cmd(25, DdrCommand::Active, 0, 5, 9);
  b.cmd(28, DdrCommand::Write, 0, 5, 80);
  auto d = run(m, b.cycles);
  REQUIRE(d.refs.size() == 2);
  CHECK(d.refs[0].address == addr(map, 0, 5, 7, 64));
  CHECK(d.refs[1].address == addr(map, 0, 5, 9, 80));
  CHECK(m.counters().orphans == 1);
  CHECK(m.counters().reads == 1);
  CHECK(m.counters().writes == 1);
}

TEST_CASE("refresh and precharge-all close the banks of their rank only") {
  auto map = open_page();
  auto m = *BoardModel::create(config(map));
  Bus b;
  b.cmd(10, DdrCommand::Active, 0, 1, 11);
  b.cmd(11, DdrCommand::Active, 1, 1, 22);  // rank switch, same bank number
  b.cmd(14, DdrCommand::Read, 0, 1, 8);
  b.cmd(18, DdrCommand::Read, 1, 1, 8);
  b.cmd(20, DdrCommand::PrechargeAll, 0, 0, 0);
  b.cmd(23, DdrCommand::Refresh, 0, 0, 0);
  b.cmd(60, DdrCommand::Read, 0, 1, 16);  // rank 0 closed: orphan
  b.cmd(64, DdrCommand::Write, 1, 1, 16); // rank 1 still open
  auto d = run(m, b.cycles);
  REQUIRE(d.refs.size() == 3);
  CHECK(d.refs[0].address == addr(map, 0, 1, 11, 8));
  CHECK(d.refs[1].address == addr(map, 1, 1, 22, 8));
  CHECK(d.refs[2].address == addr(map, 1, 1, 22, 16));
  CHECK(d.refs[2].kind == Kind::Write);
  CHECK(m.counters().orphans == 1);
}

TEST_CASE("NOP, DESELECT, MRS and two ranks selected carry nothing") {
  auto map = open_page();
  auto m = *BoardModel::create(config(map));
  Bus b;
  b.cmd(10, DdrCommand::Active, 0, 0, 1);
  b.cmd(11, DdrCommand::Nop, 0, 0, 0);
  b.cmd(12, DdrCommand::ModeRegister, 0, 0, 0x33);
  sim::DdrPins two = sim::encode_pins(sim::DdrCommandWord{DdrCommand::Read, 0, 0, 8, false});
  two.cs_n = 0xFC;  // ranks 0 and 1 both selected: illegal, decodes as DESELECT
  b.cycles.push_back(sim::BusCycle{13, two});
  b.cmd(14, DdrCommand::Read, 0, 0, 8);
  auto d = run(m, b.cycles);
  CHECK(d.refs.size() == 1);
  CHECK(m.counters().commands == 2);  // ACT, RD (the DCBU drops MRS)
}

TEST_CASE("config space: events, BEGIN/END gate references, END closes the frame") {
  auto map = open_page();
  auto cfg = config(map);
  cfg.trace_on_reset = false;
  auto m = *BoardModel::create(cfg);
  const auto base = cfg.config_base;
  const auto cs = map.decompose(base);
  const auto user5 = map.decompose(base + 0x1000 + 5 * 0x40);
  const auto endc = map.decompose(base + 0x40);
  REQUIRE(cs.bank == 0);
  Bus b;
  b.cmd(10, DdrCommand::Active, 0, 1, 50);
  b.cmd(13, DdrCommand::Read, 0, 1, 0);  // not traced yet
  b.cmd(15, DdrCommand::Active, cs.rank, cs.bank, cs.row);
  b.cmd(18, DdrCommand::Read, cs.rank, cs.bank, cs.column);  // BEGIN
  b.cmd(22, DdrCommand::Read, 0, 1, 8);
  b.cmd(26, DdrCommand::Write, user5.rank, user5.bank, user5.column);  // user event 5 (same row as BEGIN)
  b.cmd(30, DdrCommand::Write, 0, 1, 16);
  b.cmd(34, DdrCommand::Read, endc.rank, endc.bank, endc.column);  // END
  b.cmd(38, DdrCommand::Read, 0, 1, 24);  // not traced
  REQUIRE(cs.row == user5.row);
  auto d = run(m, b.cycles);
  REQUIRE(d.refs.size() == 2);
  CHECK(d.refs[0].time == 22);
  CHECK(d.refs[1].time == 30);
  REQUIRE(d.events.size() == 3);
  CHECK(d.events[0].index == wire::kBeginTracing);
  CHECK(d.events[0].time == 18);
  CHECK(d.events[1].index == wire::kFirstUserEvent + 5);
  CHECK(d.events[1].write);
  CHECK(d.events[2].index == wire::kEndTracing);
  CHECK(d.events[2].time == 34);
  CHECK(m.counters().events == 3);
  CHECK(m.counters().references == 2);
  // END closes the frame at once; the frame was opened before BEGIN took effect.
  REQUIRE(d.headers.size() == 1);
  CHECK(d.headers[0].count == 5);
  CHECK(d.headers[0].flags == 0);
}

TEST_CASE("durations, OVERFLOW and frame boundaries equal a FrameEncoder fed the same items") {
  auto map = open_page();
  auto cfg = config(map);
  cfg.encoder.records_per_frame = 8;
  cfg.encoder.links = 3;
  auto m = *BoardModel::create(cfg);
  auto ref = *wire::FrameEncoder::create(cfg.encoder);
  Bus b;
  b.cmd(1, DdrCommand::Active, 0, 0, 3);
  std::uint64_t t = 5;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100; ++i) {
    t += 4 + rng() % (i % 10 == 0 ? 20000 : 300);  // some gaps beyond 4095: OVERFLOW
    const bool w = rng() & 1;
    const unsigned col = static_cast<unsigned>(rng() % 128) * 8;
    b.cmd(t, w ? DdrCommand::Write : DdrCommand::Read, 0, 0, col);
    REQUIRE(ref.add_reference(t, addr(map, 0, 0, 3, col), w).ok());
  }
  REQUIRE(m.consume(b.cycles).ok());
  REQUIRE(m.finish().ok());
  ref.flush();
  int frames = 0;
  while (ref.has_frame()) {
    REQUIRE(m.has_frame());
    auto a = m.pop_frame();
    auto e = ref.pop_frame();
    CHECK(a.link == e.link);
    CHECK(a.sequence == e.sequence);
    CHECK(a.bytes == e.bytes);
    ++frames;
  }
  CHECK_FALSE(m.has_frame());
  CHECK(frames > 12);
  CHECK(m.counters().frames == static_cast<std::uint64_t>(frames));
}

TEST_CASE("FIFO overflow: a stalled link keeps 4 items, the LOSS record counts every dropped one") {
  // Depth 2 and a rate of 1/65536 byte per cycle. Tokens are 14/65536 bytes at
  // cycle 14: item 0 (pushed at edge 13) leaves in cycle 14, its record is
  // written in cycle 15 (tokens go negative after edge 15), so item 1 (edge 14)
  // can still leave in cycle 15. Items 2 (edge 15) and 3 (edge 16) fill the
  // FIFO; from edge 17 every item is dropped.
  auto map = open_page();
  auto cfg = config(map);
  cfg.fifo_depth = 2;
  cfg.rate_q16 = 1;
  auto m = *BoardModel::create(cfg);
  Bus b;
  for (unsigned bank = 0; bank < 8; ++bank) b.cmd(bank, DdrCommand::Active, 0, bank, 1);
  const unsigned n = 40;
  for (unsigned i = 0; i < n; ++i) b.cmd(10 + i, DdrCommand::Read, 0, i % 8, 8 * i);
  auto d = run(m, b.cycles);
  REQUIRE(d.refs.size() == 4);
  CHECK(d.refs[3].time == 13);
  REQUIRE(d.losses.size() == 1);
  CHECK(d.losses[0].count == n - 4);
  CHECK(d.losses[0].time == 13);
  CHECK(m.counters().dropped == n - 4);
  CHECK(m.counters().loss_records == 1);
  CHECK(m.counters().fifo_high_water == 2);
}

namespace {

// An independent, cycle-by-cycle simulation of the TFU + packer timing rules of
// docs/board.md section 5-6, for items with one record each (no OVERFLOW, no
// frame closes before an item): which items survive, and the loss count carried
// by each survivor.
struct CycleOracle {
  std::size_t depth;
  std::int64_t rate, cap;
  std::vector<std::uint64_t> survivors;  // item numbers
  std::vector<std::uint64_t> loss_before;
  std::uint64_t tail_loss = 0;

  void run(const std::vector<std::uint64_t>& push_edges) {
    std::deque<std::pair<std::uint64_t, std::uint64_t>> fifo;  // item, loss
    std::int64_t tokens = 0;
    std::uint64_t drop = 0;
    int busy = 0;  // actions left for the packer's current entry, incl. this cycle
    std::size_t next = 0;
    for (std::int64_t cyc = 0; next < push_edges.size() || !fifo.empty() || busy > 0; ++cyc) {
      // Packer action in this cycle.
      bool emit = false;
      if (busy > 0) {
        emit = true;
        --busy;
      }
      const bool ready = busy == 0;
      const bool pop = !fifo.empty() && tokens >= 0 && ready;
      const std::size_t count_q = fifo.size();
      if (pop) {
        survivors.push_back(fifo.front().first);
        loss_before.push_back(fifo.front().second);
        busy = fifo.front().second > 0 ? 2 : 1;
        fifo.pop_front();
      }
      if (next < push_edges.size() && static_cast<std::int64_t>(push_edges[next]) == cyc) {
        if (count_q < depth) {
          fifo.emplace_back(next, drop);
          drop = 0;
        } else {
          ++drop;
        }
        ++next;
      }
      tokens = std::min(cap, tokens + rate) - (emit ? 5 * 65536 : 0);
    }
    tail_loss = drop;
  }
};

}  // namespace

TEST_CASE("FIFO drops and LOSS records agree with a cycle-by-cycle oracle over random bursts") {
  auto map = open_page();
  for (std::uint32_t rate : {20000u, 65536u, 100000u, 200000u}) {
    for (std::size_t depth : {4u, 16u, 64u}) {
      CAPTURE(rate);
      CAPTURE(depth);
      auto cfg = config(map);
      cfg.fifo_depth = depth;
      cfg.rate_q16 = rate;
      cfg.burst_bytes = 40;
      cfg.encoder.records_per_frame = 288;
      auto m = *BoardModel::create(cfg);
      Bus b;
      for (unsigned bank = 0; bank < 8; ++bank) b.cmd(bank, DdrCommand::Active, 0, bank, 1);
      std::mt19937_64 rng(rate + depth);
      std::uint64_t t = 20;
      std::vector<std::uint64_t> edges, times;
      for (int i = 0; i < 3000; ++i) {
        t += (i / 200) % 2 ? 1 + rng() % 2 : 2 + rng() % 30;  // bursty phases
        b.cmd(t, DdrCommand::Read, 0, i % 8, static_cast<unsigned>(i % 128) * 8);
        edges.push_back(t + 3);
        times.push_back(t);
      }
      CycleOracle o{depth, rate, std::int64_t{40} << 16, {}, {}, 0};
      o.run(edges);
      REQUIRE(m.consume(b.cycles).ok());
      REQUIRE(m.finish().ok());
      std::vector<Reference> refs;
      std::vector<wire::DecodedLoss> losses;
      wire::DecodedFrame f;
      while (m.has_frame()) {
        auto ef = m.pop_frame();
        REQUIRE(wire::decode_frame(ef.bytes, f).ok());
        refs.insert(refs.end(), f.refs.begin(), f.refs.end());
        losses.insert(losses.end(), f.losses.begin(), f.losses.end());
      }
      REQUIRE(refs.size() == o.survivors.size());
      std::uint64_t want_losses = 0, lost = 0;
      for (std::size_t i = 0; i < refs.size(); ++i) {
        CHECK(refs[i].time == times[o.survivors[i]]);
        if (o.loss_before[i] > 0) ++want_losses;
      }
      if (o.tail_loss > 0) ++want_losses;
      for (const auto& l : losses) lost += l.count;
      CHECK(losses.size() == want_losses);
      CHECK(lost + refs.size() == times.size());
      CHECK(m.counters().dropped == lost);
    }
  }
}

TEST_CASE("the access sequencer's bus rebuilds every issued address (both built-in maps)") {
  for (const char* name : {"open-page", "interleaved"}) {
    auto map = *sim::AddressMap::builtin(name);
    auto m = *BoardModel::create(config(map));
    SequencerTiming timing;
    timing.t_refi = 300;
    timing.auto_precharge_every = 7;
    AccessSequencer seq(map, timing);
    std::mt19937_64 rng(3);
    for (int i = 0; i < 5000; ++i) {
      const std::uint64_t a = (rng() % (map.capacity_bytes() - kDefaultConfigSize)) & ~std::uint64_t{63};
      seq.add(a, (rng() & 3) == 0, static_cast<std::uint32_t>(rng() % 8));
    }
    auto d = run(m, seq.bus());
    REQUIRE(d.refs.size() == seq.issued().size());
    for (std::size_t i = 0; i < d.refs.size(); ++i) {
      CHECK(d.refs[i].address == seq.issued()[i].address);
      CHECK((d.refs[i].kind == Kind::Write) == seq.issued()[i].write);
      CHECK(d.refs[i].time == seq.issued()[i].cycle);
    }
    CHECK(m.counters().orphans == 0);
  }
}

TEST_CASE("bad settings and out-of-order cycles are errors") {
  auto map = open_page();
  auto cfg = config(map);
  cfg.rate_q16 = 0;
  CHECK_FALSE(BoardModel::create(cfg).ok());
  cfg = config(map);
  cfg.encoder.links = 5;
  CHECK_FALSE(BoardModel::create(cfg).ok());
  auto m = *BoardModel::create(config(map));
  Bus b;
  b.cmd(10, DdrCommand::Active, 0, 0, 1);
  b.cmd(10, DdrCommand::Read, 0, 0, 1);
  auto s = m.consume(b.cycles);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("cycle 10") != std::string::npos);
}

TEST_CASE("link rate: the paper's set-ups") {
  // DDR-200 (100 MHz) with 1 Gb/s: 125e6/100e6 * 1440/1538 = 1.1704 bytes/cycle.
  CHECK(link_rate_q16(1e9, 1, 100000) == 76700);
  // DDR2-400 (200 MHz) with 3 links of 1 Gb/s: 3 * 0.625 * 1440/1538 = 1.7555 bytes/cycle.
  CHECK(link_rate_q16(1e9, 3, 200000) == 115050);
}

namespace {

struct WithReports {
  std::vector<Reference> refs;
  std::vector<wire::DecodedReport> reports;
};

WithReports run_with_reports(BoardModel& m, const std::vector<sim::BusCycle>& bus) {
  REQUIRE(m.consume(bus).ok());
  REQUIRE(m.finish().ok());
  WithReports d;
  wire::DecodedFrame f;
  while (m.has_frame()) {
    auto ef = m.pop_frame();
    REQUIRE(wire::decode_frame(ef.bytes, f).ok());  // a report split over two frames would not decode
    d.refs.insert(d.refs.end(), f.refs.begin(), f.refs.end());
    d.reports.insert(d.reports.end(), f.reports.begin(), f.reports.end());
  }
  return d;
}

}  // namespace

TEST_CASE("online units: the SU and RDHPU reports join the stream, every reference stays, counts are exact") {
  auto map = open_page();
  SequencerTiming timing;
  timing.t_refi = 700;
  timing.auto_precharge_every = 5;
  AccessSequencer seq(map, timing);
  std::mt19937_64 rng(11);
  // 200 pages: the stack (128) sees hits at every distance and misses.
  for (int i = 0; i < 6000; ++i) {
    const std::uint64_t page = (rng() % 4 == 0) ? rng() % 200 : rng() % 12;
    seq.add(page * 4096 + (rng() % 64) * 64, (rng() & 3) == 0, static_cast<std::uint32_t>(rng() % 6));
  }
  auto off = *BoardModel::create(config(map));
  const auto plain = run_with_reports(off, seq.bus());
  CHECK(plain.reports.empty());
  for (std::uint16_t rpf : {std::uint16_t{288}, std::uint16_t{60}}) {
    auto cfg = config(map);
    cfg.encoder.records_per_frame = rpf;
    cfg.units.su_interval = 700;
    cfg.units.rdhpu_interval = 450;
    cfg.units.hot_k = 4;
    auto m = *BoardModel::create(cfg);
    const auto d = run_with_reports(m, seq.bus());
    // Unlimited link rate: the reports delay records but drop none.
    REQUIRE(d.refs.size() == plain.refs.size());
    for (std::size_t i = 0; i < d.refs.size(); ++i) CHECK(d.refs[i] == plain.refs[i]);
    // Interval numbers 0, 1, ... per unit; the last one (the partial interval) covers the end of the run.
    const std::uint64_t end_su = (seq.bus().back().cycle + 1) / 700, end_rd = (seq.bus().back().cycle + 2 + 128) / 450;
    std::vector<const wire::DecodedReport*> su, rd;
    for (const auto& r : d.reports) (r.unit == 0 ? su : rd).push_back(&r);
    // (finish() ends each unit's interval at the first cycle after the stack's last result: at most one
    // more, empty, interval.)
    REQUIRE(su.size() >= end_su + 1);
    REQUIRE(su.size() <= end_su + 2);
    REQUIRE(rd.size() >= end_rd + 1);
    REQUIRE(rd.size() <= end_rd + 2);
    // The SU: READ/WRITE commands per interval from the issued accesses (no orphans here: the sequencer opens rows).
    std::vector<std::uint64_t> rw(su.size(), 0);
    for (const auto& a : seq.issued()) ++rw[(a.cycle + 1) / 700];
    for (std::size_t i = 0; i < su.size(); ++i) {
      CHECK(su[i]->interval == i);
      REQUIRE(su[i]->values.size() == 52);
      CHECK(su[i]->values[0] + su[i]->values[1] == rw[i]);
      CHECK(su[i]->values[2] + su[i]->values[3] == rw[i]);  // every READ/WRITE hits an open row
    }
    // The RDHPU: an independent exact LRU stack over the page stream, binned by the interval of cycle c+2+128.
    std::vector<std::uint64_t> stack;
    std::vector<std::vector<std::uint64_t>> hist(rd.size(), std::vector<std::uint64_t>(9, 0));
    for (const auto& a : seq.issued()) {
      const std::uint64_t p = a.address >> 12;
      auto it = std::find(stack.begin(), stack.end(), p);
      unsigned bin = 8;
      if (it != stack.end()) {
        const auto dist = static_cast<unsigned>(it - stack.begin());
        bin = 0;
        for (unsigned v = dist; v != 0; v >>= 1) ++bin;
        stack.erase(it);
      } else if (stack.size() == 128) {
        stack.pop_back();
      }
      stack.insert(stack.begin(), p);
      ++hist[(a.cycle + 2 + 128) / 450][bin];
    }
    for (std::size_t i = 0; i < rd.size(); ++i) {
      CHECK(rd[i]->interval == i);
      REQUIRE(rd[i]->values.size() == 9 + 3 * 4);
      CHECK(std::vector<std::uint64_t>(rd[i]->values.begin(), rd[i]->values.begin() + 9) == hist[i]);
    }
    CHECK(m.counters().reports == su.size() + rd.size());
    CHECK(m.counters().reports_lost == 0);
  }
  // A frame too small for a report is refused.
  auto cfg = config(map);
  cfg.encoder.records_per_frame = 40;
  cfg.units.su_interval = 100;
  CHECK_FALSE(BoardModel::create(cfg).ok());
}
