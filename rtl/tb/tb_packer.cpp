// Bench of hmtt_packer against hmtt::wire::FrameEncoder: random entries
// (references, events incl. BEGIN/END, loss counts, gaps that need OVERFLOW and
// OVERFLOW chains) with random records-per-frame; the records, frame
// boundaries, base times and flags must equal the encoder's frames.
#include <doctest/doctest.h>

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
    int entries = 0;
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
    for (int cyc = 0; cyc < 30000; ++cyc) {
      b.settle();
      const bool offer = rng() % 3 != 0 && b.dut->ready_o;
      if (offer) {
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
      b.settle();
      collect();
      b.edge();
    }
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
  }
}
