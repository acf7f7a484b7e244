// Bench of hmtt_tfu (Depth 8, burst 40 bytes): random pushes against a
// cycle-by-cycle model of docs/board.md section 5, with a packer that takes one
// cycle per record (two when the entry carries a loss). Checks every pop, the
// loss counts, the flush's loss-only entry, drops and the high-water mark.
// The report port (docs/board.md 13): a unit's report item is offered until it
// is taken; the CU's item wins the edge, a full FIFO makes it wait (never a
// drop), it takes the pending loss count, leaves the gap base alone, and the
// flush's loss-only entry yields to it.
#include <doctest/doctest.h>

#include <deque>
#include <random>

#include "tb_common.h"

using namespace hmtt;

namespace {
struct Ent {
  unsigned kind;
  bool write;
  std::uint32_t data;
  std::uint64_t time;
  std::uint64_t loss;
  std::uint64_t gap = 0;
};
}  // namespace

TEST_CASE("hmtt_tfu: pushes, drops, LOSS counts, link-rate pops, report items and flush") {
  for (std::uint32_t rate : {5000u, 40000u, 65536u, 327680u}) {
    CAPTURE(rate);
    tb::Bench<Vhmtt_tfu> b;
    b.dut->rate_i = rate;
    b.dut->flush_i = 0;
    b.dut->item_valid_i = 0;
    b.dut->pack_ready_i = 1;
    b.dut->emit_i = 0;
    b.reset();
    std::mt19937_64 rng(rate);
    std::deque<Ent> fifo;
    std::int64_t tokens = 0;
    const std::int64_t cap = 40 << 16;
    std::uint64_t drop = 0, dropped = 0, hwm = 0, pops = 0, losses = 0, acc_time = 0;
    int actions = 0;  // packer actions left (incl. this cycle)
    bool rep_on = false;  // a report item on offer
    bool rep_unit = false;
    unsigned rep_len = 0;
    std::uint64_t reps = 0, rep_waits = 0, rep_losses = 0, rep_over_flush = 0;
    // 40 000 cycles, then on until the FIFO has drained (reports take many record cycles at slow rates).
    for (std::uint64_t cyc = 0; cyc < 40000 || ((!fifo.empty() || drop > 0) && cyc < 400000); ++cyc) {
      const bool flushing = cyc >= 38000;
      const bool iv = !flushing && rng() % 100 < (cyc / 3000 % 2 ? 70 : 10);
      Ent in{static_cast<unsigned>(rng() & 1), (rng() & 1) != 0, static_cast<std::uint32_t>(rng()), cyc, 0, 0};
      const bool emit = actions > 0;
      const bool ready = actions <= 1;
      // Reports: at the slow rates a few short ones (a record costs 13-65 cycles of tokens there).
      if (!rep_on && cyc < 39000 && rng() % 1000 < (rate < 65536 ? 1u : 30u)) {
        rep_on = true;
        rep_unit = (rng() & 1) != 0;
        rep_len = 2 + static_cast<unsigned>(rng() % (rate < 65536 ? 4 : 60));
      }
      b.dut->rep_valid_i = rep_on;
      b.dut->rep_unit_i = rep_unit;
      b.dut->rep_len_i = rep_len;
      b.dut->flush_i = flushing;
      b.dut->item_valid_i = iv;
      b.dut->item_event_i = in.kind;
      b.dut->item_write_i = in.write;
      b.dut->item_data_i = in.data;
      b.dut->item_time_i = in.time;
      b.dut->pack_ready_i = ready;
      b.dut->emit_i = emit;
      b.settle();
      // Model of this cycle.
      const std::size_t count = fifo.size();
      const bool pop = count > 0 && tokens >= 0 && ready;
      CHECK(b.dut->ent_valid_o == pop);
      CHECK(b.dut->idle_o == (count == 0 && drop == 0));
      if (emit) --actions;
      if (pop) {
        const Ent& h = fifo.front();
        CHECK(b.dut->ent_kind_o == h.kind);
        CHECK(b.dut->ent_loss_o == h.loss);
        if (h.kind == 3) {
          CHECK(b.dut->ent_write_o == h.write);
          CHECK(b.dut->ent_data_o == h.data);
        } else if (h.kind != 2) {
          CHECK(b.dut->ent_write_o == h.write);
          CHECK(b.dut->ent_data_o == h.data);
          CHECK(b.dut->ent_time_o == h.time);
          CHECK(b.dut->ent_gap_o == h.gap);
        }
        actions = (h.kind == 2) ? 1 : (h.loss > 0 ? 2 : 1);
        if (h.kind == 3) actions = static_cast<int>(h.data) + (h.loss > 0 ? 1 : 0);
        if (h.loss > 0) ++losses;
        fifo.pop_front();
        ++pops;
      }
      bool pushed = false;
      if (iv) {
        if (count < 8) {
          in.loss = drop;
          in.gap = in.time - acc_time;
          acc_time = in.time;
          drop = 0;
          fifo.push_back(in);
          pushed = true;
        } else {
          ++drop;
          ++dropped;
        }
      } else if (rep_on && count < 8) {
        fifo.push_back(Ent{3, rep_unit, rep_len, 0, drop, 0});
        if (drop > 0) ++rep_losses;
        if (flushing && drop > 0) ++rep_over_flush;
        drop = 0;
        pushed = true;
      } else if (flushing && drop > 0 && count < 8) {
        fifo.push_back(Ent{2, false, 0, 0, drop, 0});
        drop = 0;
        pushed = true;
      }
      const bool rep_take = rep_on && !iv && count < 8;
      CHECK(b.dut->rep_taken_o == rep_take);
      if (rep_on && !rep_take) ++rep_waits;
      if (rep_take) {
        rep_on = false;
        ++reps;
      }
      hwm = std::max<std::uint64_t>(hwm, count + (pushed ? 1 : 0));
      tokens = std::min(cap, tokens + rate) - (emit ? 5 << 16 : 0);
      b.edge();
    }
    CHECK(fifo.empty());
    CHECK(b.dut->idle_o);
    CHECK(b.dut->dropped_o == dropped);
    CHECK(b.dut->high_water_o == hwm);
    CHECK(pops > 300);
    CHECK(reps > 20);
    CHECK(rep_waits > 100);
    MESSAGE("rate " << rate << ": " << pops << " pops, " << reps << " reports (" << rep_waits << " cycles waiting, "
                    << rep_losses << " with a loss count, " << rep_over_flush << " ahead of the flush's loss-only entry)");
    if (rate < 65536) {
      CHECK(dropped > 100);
      CHECK(losses > 10);
      CHECK(rep_losses > 0);
    }
  }
}
