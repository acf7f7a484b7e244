// The timing checker catches each rule it claims to check (hand-made streams
// with one violation each), and accepts the same streams made legal.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "hmtt/sim/timing_checker.h"

using namespace hmtt::sim;

namespace {

BusCycle cmd(std::uint64_t cycle, DdrCommand c, unsigned rank = 0, unsigned bank = 0, unsigned addr = 0,
             bool ap = false) {
  DdrCommandWord w;
  w.cmd = c;
  w.rank = static_cast<std::uint8_t>(rank);
  w.bank = static_cast<std::uint8_t>(bank);
  w.addr = static_cast<std::uint16_t>(addr);
  w.auto_precharge = ap;
  return BusCycle{cycle, encode_pins(w)};
}

DramTiming ddr2_400() { return *dram_timing(DdrStandard::Ddr2_400, 8); }

// Feeds the stream; returns "" when legal, the error message otherwise.
std::string run(const std::vector<BusCycle>& s, unsigned ranks = 1, DramTiming t = ddr2_400()) {
  TimingChecker c(t, ranks, 8);
  auto st = c.observe(s);
  return st.ok() ? "" : st.error().message;
}

}  // namespace

TEST_CASE("a legal DDR2-400 open-page sequence passes") {
  // ACT, RD at tRCD, RD at +BL/2, PRE at max(tRAS, RD + BL/2 + tRTP - 2), ACT at tRP / tRC.
  CHECK(run({cmd(0, DdrCommand::Active, 0, 1, 7), cmd(3, DdrCommand::Read, 0, 1, 0), cmd(7, DdrCommand::Read, 0, 1, 8),
             cmd(11, DdrCommand::Precharge, 0, 1), cmd(14, DdrCommand::Active, 0, 1, 9)}) == "");
}

TEST_CASE("each timing rule is caught") {
  const auto has = [](const std::string& msg, const char* rule) {
    INFO(msg);
    return msg.find(rule) != std::string::npos;
  };
  CHECK(has(run({cmd(0, DdrCommand::Active, 0, 1, 7), cmd(2, DdrCommand::Read, 0, 1)}), "tRCD"));
  CHECK(has(run({cmd(0, DdrCommand::Active, 0, 1, 7), cmd(3, DdrCommand::Read, 0, 1), cmd(5, DdrCommand::Read, 0, 1, 8)}),
            "data bus"));
  CHECK(has(run({cmd(0, DdrCommand::Active, 0, 1, 7), cmd(7, DdrCommand::Precharge, 0, 1)}), "tRAS"));
  CHECK(has(run({cmd(0, DdrCommand::Active, 0, 1, 7), cmd(8, DdrCommand::Precharge, 0, 1),
                 cmd(10, DdrCommand::Active, 0, 1, 3)}),
            "tRP"));
  CHECK(has(run({cmd(0, DdrCommand::Active, 0, 1, 7), cmd(1, DdrCommand::Active, 0, 2, 7)}), "tRRD"));
  // DDR2-800: tRRD 3, tFAW 15: the fifth ACT at 12 is legal for tRRD, not for tFAW.
  const DramTiming t800 = *dram_timing(DdrStandard::Ddr2_800, 8);
  CHECK(has(run({cmd(0, DdrCommand::Active, 0, 0, 1), cmd(3, DdrCommand::Active, 0, 1, 1),
                 cmd(6, DdrCommand::Active, 0, 2, 1), cmd(9, DdrCommand::Active, 0, 3, 1),
                 cmd(12, DdrCommand::Active, 0, 4, 1)},
                1, t800),
            "tFAW"));
  CHECK(run({cmd(0, DdrCommand::Active, 0, 0, 1), cmd(3, DdrCommand::Active, 0, 1, 1), cmd(6, DdrCommand::Active, 0, 2, 1),
             cmd(9, DdrCommand::Active, 0, 3, 1), cmd(15, DdrCommand::Active, 0, 4, 1)},
            1, t800) == "");
  CHECK(has(run({cmd(0, DdrCommand::Active, 0, 1, 7), cmd(3, DdrCommand::Write, 0, 1), cmd(10, DdrCommand::Precharge, 0, 1)}),
            "tWR"));
  CHECK(has(run({cmd(0, DdrCommand::Active, 0, 1, 7), cmd(3, DdrCommand::Write, 0, 1), cmd(9, DdrCommand::Read, 0, 1, 8)}),
            "tWTR"));
  CHECK(has(run({cmd(0, DdrCommand::Active, 0, 1, 7), cmd(3, DdrCommand::Read, 0, 1), cmd(8, DdrCommand::Write, 0, 1, 8)}),
            "read-to-write"));
  CHECK(run({cmd(0, DdrCommand::Active, 0, 1, 7), cmd(3, DdrCommand::Read, 0, 1)}, 2) == "");
  CHECK(has(run({cmd(0, DdrCommand::Active, 0, 1, 7), cmd(3, DdrCommand::Read, 0, 1), cmd(4, DdrCommand::Active, 1, 1, 7),
                 cmd(7, DdrCommand::Read, 1, 1, 0)},
                2),
            "rank-to-rank"));
  CHECK(has(run({cmd(0, DdrCommand::Read, 0, 1)}), "no open row"));
  CHECK(has(run({cmd(0, DdrCommand::Active, 0, 1, 7), cmd(20, DdrCommand::Active, 0, 1, 8)}), "not precharged"));
  CHECK(has(run({cmd(0, DdrCommand::Active, 0, 1, 7), cmd(20, DdrCommand::Refresh)}), "REF with a bank"));
  CHECK(has(run({cmd(0, DdrCommand::PrechargeAll), cmd(4, DdrCommand::Refresh), cmd(20, DdrCommand::Active, 0, 0, 1)}),
            "tRFC"));
  CHECK(has(run({cmd(0, DdrCommand::Active, 0, 3, 1), cmd(8, DdrCommand::PrechargeAll), cmd(10, DdrCommand::Refresh)}),
            "tRPA before REF"));
  CHECK(has(run({cmd(0, DdrCommand::Active, 0, 3, 1), cmd(8, DdrCommand::PrechargeAll), cmd(11, DdrCommand::Active, 0, 3, 1)}),
            "tRPA"));
  CHECK(run({cmd(0, DdrCommand::Active, 0, 3, 1), cmd(8, DdrCommand::PrechargeAll), cmd(12, DdrCommand::Active, 0, 3, 1)}) ==
        "");
  CHECK(has(run({cmd(0, DdrCommand::Active, 2, 0, 1)}), "rank does not exist"));
  CHECK(has(run({cmd(5, DdrCommand::Nop), cmd(5, DdrCommand::Nop)}), "does not follow"));
  // Auto-precharge: the bank closes at max(ACT + tRAS, RD + BL/2 + tRTP - 2) = 8; ACT from 8 + tRP = 11.
  CHECK(has(run({cmd(0, DdrCommand::Active, 0, 1, 7), cmd(3, DdrCommand::Read, 0, 1, 0, true),
                 cmd(10, DdrCommand::Active, 0, 1, 8)}),
            "tRP"));
  CHECK(run({cmd(0, DdrCommand::Active, 0, 1, 7), cmd(3, DdrCommand::Read, 0, 1, 0, true),
             cmd(11, DdrCommand::Active, 0, 1, 8)}) == "");
}

TEST_CASE("a missing refresh is caught at the end") {
  TimingChecker c(ddr2_400(), 1, 8);
  REQUIRE(c.observe(cmd(0, DdrCommand::Active, 0, 1, 7)).ok());
  CHECK(c.finish(9 * 1560).ok());
  CHECK_FALSE(c.finish(9 * 1560 + 1).ok());
}
