// Bench of hmtt_dcbu: random and directed pins against hmtt::sim::decode_pins
// (the JEDEC truth table shared with the controller and the C++ model).
#include <doctest/doctest.h>

#include <random>

#include "hmtt/sim/ddr_bus.h"
#include "tb_common.h"

using namespace hmtt;
using sim::DdrCommand;

#ifndef HMTT_TB_TIMEW
#define HMTT_TB_TIMEW 64  // the DUT's TimeW (-GTimeW)
#endif

namespace {
constexpr std::uint64_t kTimeMask = HMTT_TB_TIMEW >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (HMTT_TB_TIMEW % 64)) - 1;

unsigned code_of(DdrCommand c) {
  switch (c) {
    case DdrCommand::Active: return 1;
    case DdrCommand::Read: return 2;
    case DdrCommand::Write: return 3;
    case DdrCommand::Precharge: return 4;
    case DdrCommand::PrechargeAll: return 5;
    case DdrCommand::Refresh: return 6;
    default: return 0;
  }
}
}  // namespace

TEST_CASE("hmtt_dcbu decodes every cycle like decode_pins, one cycle later, with the sample time") {
  tb::Bench<Vhmtt_dcbu> b;
  b.dut->cs_n_i = 3;
  b.reset();
  std::mt19937_64 rng(1);
  sim::DdrPins prev;
  bool have_prev = false;
  std::uint64_t checked = 0, commands = 0;
  for (std::uint64_t cyc = 0; cyc < 20000; ++cyc) {
    sim::DdrPins p;
    if (rng() % 3 == 0) {
      // Fully random pins: NOP, MRS, BST, DESELECT, two ranks selected...
      p.cs_n = static_cast<std::uint8_t>(rng() & 3);
      p.ras_n = rng() & 1;
      p.cas_n = rng() & 1;
      p.we_n = rng() & 1;
      p.ba = static_cast<std::uint8_t>(rng() & 7);
      p.a = static_cast<std::uint16_t>(rng());
    } else {
      sim::DdrCommandWord w;
      w.cmd = static_cast<DdrCommand>(rng() % 9);
      w.rank = static_cast<std::uint8_t>(rng() & 1);
      w.bank = static_cast<std::uint8_t>(rng() & 7);
      w.addr = static_cast<std::uint16_t>(rng() & 0x3FFF);
      w.auto_precharge = rng() & 1;
      p = sim::encode_pins(w);
      p.cs_n |= 0xFC;
    }
    b.dut->cs_n_i = p.cs_n & 3;
    b.dut->ras_n_i = p.ras_n;
    b.dut->cas_n_i = p.cas_n;
    b.dut->we_n_i = p.we_n;
    b.dut->ba_i = p.ba;
    b.dut->a_i = p.a;
    b.settle();
    if (have_prev) {
      sim::DdrPins q = prev;
      q.cs_n |= 0xFC;
      const sim::DdrCommandWord w = sim::decode_pins(q);
      const unsigned code = code_of(w.cmd);
      CHECK(b.dut->cmd_valid_o == (code != 0));
      if (code != 0) {
        ++commands;
        CHECK(b.dut->cmd_o == code);
        CHECK(b.dut->rank_o == w.rank);
        CHECK(b.dut->time_o == ((cyc - 1) & kTimeMask));
        if (w.cmd == DdrCommand::Active || w.cmd == DdrCommand::Read || w.cmd == DdrCommand::Write) {
          CHECK(b.dut->addr_o == w.addr);
          CHECK(b.dut->bank_o == w.bank);
        }
        if (w.cmd == DdrCommand::Read || w.cmd == DdrCommand::Write) CHECK(b.dut->ap_o == w.auto_precharge);
        if (w.cmd == DdrCommand::Precharge) CHECK(b.dut->bank_o == w.bank);
      }
      ++checked;
    }
    b.edge();
    prev = p;
    have_prev = true;
  }
  CHECK(checked == 19999);
  CHECK(commands > 8000);
}
