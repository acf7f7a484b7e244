// Bench of hmtt_unit_ctl: the run-time control of one online unit in the board
// top. Scenarios from docs/board.md 13 (a unit switched off, a report offered
// and taken, a flush with and without a report on offer), then 200 000 random
// cycles against a cycle model written from the module's header comment.
#include <doctest/doctest.h>

#include <random>

#include "tb_common.h"

namespace {
constexpr std::uint32_t kNever = 0xFFFFFFFFu;

using Bench = hmtt::tb::Bench<Vhmtt_unit_ctl>;

void drive(Bench& b, std::uint32_t interval, bool flush, bool valid, bool taken) {
  b.dut->interval_i = interval;
  b.dut->flush_i = flush;
  b.dut->rec_valid_i = valid;
  b.dut->taken_i = taken;
  b.settle();
}
}  // namespace

TEST_CASE("hmtt_unit_ctl: off, the unit is never timed, offers nothing and is done") {
  Bench b;
  drive(b, 0, false, false, false);
  b.reset();
  for (int cyc = 0; cyc < 8; ++cyc) {
    drive(b, 0, cyc >= 4, cyc & 1, cyc & 2);
    CHECK(b.dut->interval_o == kNever);
    CHECK(b.dut->on_o == 0);
    CHECK(b.dut->want_o == 0);
    CHECK(b.dut->done_o == 1);
    b.edge();
  }
}

TEST_CASE("hmtt_unit_ctl: a report is wanted until taken, then not while the unit keeps offering it") {
  Bench b;
  drive(b, 100, false, false, false);
  b.reset();
  CHECK(b.dut->interval_o == 100);
  CHECK(b.dut->want_o == 0);
  CHECK(b.dut->done_o == 0);  // on and not finished
  b.edge();
  drive(b, 100, false, true, false);  // offered, the TFU busy
  CHECK(b.dut->want_o == 1);
  b.edge();
  drive(b, 100, false, true, true);  // taken this cycle
  CHECK(b.dut->want_o == 1);
  b.edge();
  for (int cyc = 0; cyc < 3; ++cyc) {  // the packer sends the records; still offered, no longer wanted
    drive(b, 100, false, true, false);
    CHECK(b.dut->want_o == 0);
    b.edge();
  }
  drive(b, 100, false, false, false);  // the unit drops it
  CHECK(b.dut->want_o == 0);
  b.edge();
  drive(b, 100, false, true, false);  // the next interval's report
  CHECK(b.dut->want_o == 1);
}

TEST_CASE("hmtt_unit_ctl: a flush ends the open interval once, and done waits for its report") {
  Bench b;
  drive(b, 500, false, false, false);
  b.reset();
  b.edge();
  drive(b, 500, true, false, false);  // flush, nothing on offer: end the interval now
  CHECK(b.dut->interval_o == 1);
  CHECK(b.dut->done_o == 0);
  b.edge();
  drive(b, 500, true, false, false);  // finished: never timed again
  CHECK(b.dut->interval_o == kNever);
  CHECK(b.dut->done_o == 1);  // (the unit has not raised its last report yet in this bench)
  b.edge();
  drive(b, 500, true, true, false);  // the last report comes: not done until it is in the TFU
  CHECK(b.dut->want_o == 1);
  CHECK(b.dut->done_o == 0);
  b.edge();
  drive(b, 500, true, true, true);
  CHECK(b.dut->done_o == 0);
  b.edge();
  drive(b, 500, true, true, false);
  CHECK(b.dut->want_o == 0);
  CHECK(b.dut->done_o == 1);
  CHECK(b.dut->interval_o == kNever);
}

TEST_CASE("hmtt_unit_ctl: a flush while a report is on offer waits for the unit to drop it") {
  Bench b;
  drive(b, 300, false, false, false);
  b.reset();
  drive(b, 300, true, true, false);  // flush with a report on offer: no fire yet
  CHECK(b.dut->interval_o == 300);
  CHECK(b.dut->done_o == 0);
  b.edge();
  drive(b, 300, true, true, true);
  b.edge();
  drive(b, 300, true, false, false);  // dropped: the open interval ends now
  CHECK(b.dut->interval_o == 1);
  b.edge();
  drive(b, 300, true, false, false);
  CHECK(b.dut->interval_o == kNever);
}

TEST_CASE("hmtt_unit_ctl: 200 000 random cycles against the cycle model") {
  Bench b;
  drive(b, 0, false, false, false);
  b.reset();
  std::mt19937_64 rng(13);
  bool pushed = false, fin = false;  // the model's registers
  std::uint64_t wrong = 0, fired = 0, wanted = 0;
  std::uint32_t interval = 0;
  bool flush = false;
  for (int cyc = 0; cyc < 200000; ++cyc) {
    // A run: switched on or off now and then, flushed now and then, reset sometimes.
    if (rng() % 5000 == 0) {
      drive(b, interval, false, false, false);
      b.reset();
      pushed = fin = false;
      flush = false;
    }
    if (rng() % 2000 == 0) interval = rng() % 4 == 0 ? 0u : static_cast<std::uint32_t>(1 + rng() % 1000);
    if (rng() % 700 == 0) flush = !flush;
    const bool valid = rng() % 3 != 0;
    const bool taken = rng() % 2 == 0;
    drive(b, interval, flush, valid, taken);
    const bool on = interval != 0;
    const bool fire = flush && on && !fin && !valid;
    const std::uint32_t want_interval = (!on || fin) ? kNever : (fire ? 1u : interval);
    const bool want = on && valid && !pushed;
    const bool done = !on || (fin && !want);
    fired += fire;
    wanted += want;
    if (b.dut->interval_o != want_interval || b.dut->want_o != want || b.dut->done_o != done ||
        b.dut->on_o != on) {
      if (++wrong <= 5) {
        FAIL_CHECK("cycle " << cyc << ": interval " << b.dut->interval_o << " (model " << want_interval << "), want "
                            << int(b.dut->want_o) << " (" << want << "), done " << int(b.dut->done_o) << " (" << done
                            << ")");
      }
    }
    b.edge();
    pushed = (pushed || taken) && valid;
    fin = fin || fire;
  }
  CHECK(wrong == 0);
  CHECK(fired > 10);     // the random run did exercise the flush
  CHECK(wanted > 1000);  // and the report port
}
