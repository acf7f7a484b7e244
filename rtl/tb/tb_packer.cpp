// Bench of hmtt_packer against hmtt::wire::FrameEncoder: random entries
// (references, events incl. BEGIN/END, loss counts, gaps that need OVERFLOW and
// OVERFLOW chains) with random records-per-frame; the records, frame
// boundaries, base times and flags must equal the encoder's frames.
// Report entries (kind 3: an online unit's report, docs/board.md 13) of 2 to
// rpf records, with and without a loss count: the packer takes their records
// from rep_rec_i exactly in the cycles it raises rep_ready_o, with rep_unit_o
// naming the unit, and the frames still equal FrameEncoder::add_report's.
#include <doctest/doctest.h>

#include <algorithm>
#include <deque>
#include <random>

#include "hmtt/wire/frame.h"
#include "tb_common.h"

using namespace hmtt;

TEST_CASE("hmtt_packer packs exactly like FrameEncoder") {
  for (int round = 0; round < 6; ++round) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(round) + 11);
    const std::uint16_t rpf = static_cast<std::uint16_t>(round == 0 ? 288 : 8 + rng() % 40);
    const bool on_reset = round % 2 == 0;
    CAPTURE(rpf);
    wire::EncoderConfig ec;
    ec.records_per_frame = rpf;
    auto enc = *wire::FrameEncoder::create(ec);
    enc.set_tracing(on_reset);
    tb::Bench<Vhmtt_packer> b;
    b.dut->rpf_i = rpf;
    b.dut->trace_on_reset_i = on_reset;
    b.dut->flush_i = 0;
    b.dut->fifo_idle_i = 0;
    b.dut->ent_valid_i = 0;
    b.reset();
    std::vector<std::vector<std::uint8_t>> got;  // frames as header(base,flags) + records
    std::vector<std::uint8_t> cur;
    std::uint64_t cur_base = 0;
    unsigned cur_flag = 0;
    std::vector<std::uint64_t> bases;
    std::vector<unsigned> flags;
    std::uint64_t t = 0;
    int entries = 0, reports = 0, report_losses = 0;
    std::deque<std::uint64_t> rep_q;  // records of the reports offered, not yet taken
    std::deque<unsigned> rep_unit_q;  // their unit, per record
    auto collect = [&]() {
      if (b.dut->rec_valid_o) {
        if (cur.empty()) {
          cur_base = b.dut->base_o;
          cur_flag = b.dut->flag_o;
        }
        std::uint8_t r[5];
        wire::put_record(b.dut->rec_o, r);
        cur.insert(cur.end(), r, r + 5);
      }
      if (b.dut->close_o) {
        REQUIRE_FALSE(cur.empty());
        got.push_back(cur);
        bases.push_back(cur_base);
        flags.push_back(cur_flag);
        cur.clear();
      }
    };
    // 30 000 cycles of entries, then 400 without, in which the last report's records leave.
    for (int cyc = 0; cyc < 30400; ++cyc) {
      b.settle();
      const bool offer = rng() % 3 != 0 && b.dut->ready_o && cyc < 30000;
      if (offer && rng() % 12 == 0) {
        // A report: no time (t stays), a garbage gap and time that the packer must ignore.
        const unsigned unit = static_cast<unsigned>(rng() & 1);
        // Mostly short reports, 1 in 8 up to a whole frame (rpf records).
        const std::size_t nv = 1 + rng() % (rng() % 8 == 0 ? rpf - 1u : std::min(rpf - 1u, 20u));
        std::vector<std::uint64_t> values(nv);
        for (auto& v : values) v = rng() & wire::kPayloadMask;
        const auto interval = static_cast<std::uint16_t>(rng());
        const std::uint64_t loss = rng() % 4 == 0 ? 1 + rng() % 5000 : 0;
        b.dut->ent_valid_i = 1;
        b.dut->ent_kind_i = 3;
        b.dut->ent_write_i = unit;
        b.dut->ent_data_i = static_cast<std::uint32_t>(nv + 1);
        b.dut->ent_time_i = rng();
        b.dut->ent_gap_i = rng();
        b.dut->ent_loss_i = loss;
        if (loss) {
          enc.add_loss(loss);
          ++report_losses;
        }
        REQUIRE(enc.add_report(static_cast<std::uint8_t>(unit), interval, values).ok());
        rep_q.push_back(wire::control_record(wire::Opcode::Report, (std::uint64_t{unit} << 32) |
                                                                       (std::uint64_t{nv} << 16) | interval));
        for (auto v : values) rep_q.push_back(wire::control_record(wire::Opcode::ReportValue, v));
        rep_unit_q.insert(rep_unit_q.end(), nv + 1, unit);
        ++entries;
        ++reports;
      } else if (offer) {
        const unsigned r = static_cast<unsigned>(rng() % 1000);
        std::uint64_t gap = rng() % 50;
        if (r < 60) gap = 4096 + rng() % 100000;
        if (r < 3) gap = (std::uint64_t{1} << 36) + rng() % (std::uint64_t{3} << 36);  // OVERFLOW chain
        // A chain whose low 36 bits reach all ones within a few OVERFLOW records (the remainder's
        // low half wraps to 0 there and its high half stays).
        if (r == 3) gap = (std::uint64_t{1} << 36) * (1 + rng() % 3) + (std::uint64_t{1} << 36) - 1 - rng() % 3;
        const std::uint64_t prev_t = t;
        t += gap;
        const std::uint64_t loss = rng() % 20 == 0 ? 1 + rng() % 5000 : 0;
        const unsigned kind = rng() % 10 == 0 ? 1 : 0;
        const bool w = rng() & 1;
        std::uint32_t data;
        if (kind == 0) data = static_cast<std::uint32_t>(rng()) & ~63u;
        else data = static_cast<std::uint32_t>(rng() % 4 == 0 ? rng() % 2 : 64 + rng() % 100000);
        b.dut->ent_valid_i = 1;
        b.dut->ent_kind_i = kind;
        b.dut->ent_write_i = w;
        b.dut->ent_data_i = data;
        b.dut->ent_time_i = t;
        b.dut->ent_gap_i = t - prev_t;  // every offered entry is packed: the TFU's gap
        b.dut->ent_loss_i = loss;
        if (loss) enc.add_loss(loss);
        if (kind == 0) {
          REQUIRE(enc.add_reference(t, data, w).ok());
        } else {
          REQUIRE(enc.add_event(t, data, w).ok());
          if (data <= 1) {
            enc.set_tracing(data == 0);
            if (data == 1) enc.flush();
          }
        }
        ++entries;
      } else {
        b.dut->ent_valid_i = 0;
      }
      b.dut->rep_rec_i = rep_q.empty() ? 0 : rep_q.front();
      b.settle();
      if (b.dut->rep_ready_o) {
        REQUIRE_FALSE(rep_q.empty());
        CHECK(b.dut->rec_valid_o);
        CHECK(b.dut->rep_unit_o == rep_unit_q.front());
        rep_q.pop_front();
        rep_unit_q.pop_front();
      }
      collect();
      b.edge();
    }
    CHECK(rep_q.empty());
    // Flush.
    b.dut->ent_valid_i = 0;
    b.dut->flush_i = 1;
    b.dut->fifo_idle_i = 1;
    for (int i = 0; i < 20; ++i) {
      b.settle();
      collect();
      b.edge();
    }
    CHECK(b.dut->idle_o);
    enc.flush();
    std::size_t n = 0;
    while (enc.has_frame()) {
      auto f = enc.pop_frame();
      REQUIRE(n < got.size());
      auto h = *wire::parse_header(f.bytes);
      const std::vector<std::uint8_t> recs(f.bytes.begin() + wire::kHeaderBytes, f.bytes.end() - wire::kCrcBytes);
      CHECK(recs == got[n]);
      CHECK(h.base_time == bases[n]);
      CHECK(h.flags == flags[n]);
      ++n;
    }
    CHECK(n == got.size());
    CHECK(entries > 5000);
    CHECK(reports > 500);
    CHECK(report_losses > 100);
    MESSAGE("rpf " << rpf << ": " << entries << " entries, " << reports << " reports (" << report_losses
                   << " after a LOSS), " << got.size() << " frames");
  }
}
