// Bench of hmtt_dsmu: random command sequences over 2 ranks x 8 banks against
// a per-bank reference model and hmtt::sim::AddressMap::compose (both maps).
#include <doctest/doctest.h>

#include <random>

#include "hmtt/sim/address_map.h"
#include "tb_common.h"

using namespace hmtt;

TEST_CASE("hmtt_dsmu: four-state banks, address rebuild, orphans (open-page map parameters)") {
  const auto map = *sim::AddressMap::builtin("open-page");
  tb::Bench<Vhmtt_dsmu> b;
  b.dut->channel_i = 0;
  b.dut->cmd_valid_i = 0;
  b.reset();
  std::mt19937_64 rng(2);
  bool open[16] = {};
  std::uint32_t row[16] = {};
  struct Want {
    bool valid = false, write = false, orphan = false;
    std::uint64_t addr = 0, time = 0;
  } want;
  std::uint64_t refs = 0, orphans = 0;
  for (std::uint64_t cyc = 0; cyc < 50000; ++cyc) {
    const bool valid = rng() % 4 != 0;
    const unsigned cmd = static_cast<unsigned>(rng() % 100 < 50 ? 2 + rng() % 2 : 1 + rng() % 6);
    const unsigned rank = rng() & 1, bank = rng() & 7;
    const unsigned addr = static_cast<unsigned>(rng() % (cmd == 1 ? 16384 : 1024));
    const bool ap = rng() % 8 == 0;
    b.dut->cmd_valid_i = valid;
    b.dut->cmd_i = cmd;
    b.dut->rank_i = rank;
    b.dut->bank_i = bank;
    b.dut->addr_i = addr;
    b.dut->ap_i = ap;
    b.dut->time_i = cyc;
    b.settle();
    CHECK(b.dut->ref_valid_o == want.valid);
    CHECK(b.dut->orphan_o == want.orphan);
    if (want.valid) {
      CHECK(b.dut->ref_addr_o == want.addr);
      CHECK(b.dut->ref_write_o == want.write);
      CHECK(b.dut->ref_time_o == want.time);
    }
    want = Want{};
    if (valid) {
      const unsigned i = rank * 8 + bank;
      switch (cmd) {
        case 1: open[i] = true; row[i] = addr; break;
        case 2:
        case 3:
          if (open[i]) {
            sim::DramCoordinates c;
            c.rank = rank;
            c.bank = bank;
            c.row = row[i];
            c.column = addr;
            want.valid = true;
            want.write = cmd == 3;
            want.addr = map.compose(c);
            want.time = cyc;
            ++refs;
            if (ap) open[i] = false;
          } else {
            want.orphan = true;
            ++orphans;
          }
          break;
        case 4: open[i] = false; break;
        case 5:
        case 6:
          for (unsigned k = 0; k < 8; ++k) open[rank * 8 + k] = false;
          break;
        default: break;
      }
    }
    b.edge();
  }
  CHECK(refs > 1000);
  CHECK(orphans > 1000);
}
