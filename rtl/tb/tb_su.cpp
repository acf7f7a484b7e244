// Bench of hmtt_su (Ranks TB_RANKS, PhysW TB_PHYSW, CntW 32): random command
// streams (ACTIVE/READ/WRITE/PRECHARGE/PRECHARGE ALL/REFRESH, auto-precharge,
// ranks beyond Ranks, bursts to one open row) and references, with several
// interval lengths and rec_ready_i duty cycles. Every cycle rec_valid_o, rec_o
// and lost_o equal hmtt::board::SuModel; every report received equals the
// counts recomputed from the bench's command log for its interval.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "hmtt/board/su_model.h"
#include "tb_common.h"

#ifndef TB_RANKS
#define TB_RANKS 2
#endif
#ifndef TB_PHYSW
#define TB_PHYSW 32
#endif

using namespace hmtt;

namespace {
constexpr unsigned kRanks = TB_RANKS;
constexpr unsigned kPhysW = TB_PHYSW;
constexpr unsigned kNv = 4 + 8 * kRanks + kPhysW;

// The counts of one interval, recomputed from the command log.
struct Log {
  std::vector<std::uint64_t> v = std::vector<std::uint64_t>(kNv, 0);
};
enum class Row { Closed, Opened, Used };
}  // namespace

TEST_CASE("hmtt_su: reports equal the model record for record and the command log per interval") {
  tb::Bench<Vhmtt_su> b;
  struct Segment {
    std::uint32_t interval;
    unsigned ready_pct, cmd_pct;
    std::uint64_t cycles;
  };
  const Segment segs[] = {{1000, 100, 60, 100000}, {200, 50, 90, 60000}, {60, 100, 30, 20000},
                          {1, 100, 50, 2000},      {5000, 80, 100, 50000}};
  b.dut->interval_i = segs[0].interval;
  b.dut->cmd_valid_i = 0;
  b.dut->ref_valid_i = 0;
  b.dut->rec_ready_i = 1;
  b.reset();
  board::SuModel model(board::SuParams{kRanks, kPhysW, 32});
  std::map<std::uint64_t, Log> logs;
  std::vector<Row> rows(8 * kRanks, Row::Closed);
  std::uint64_t prev = 0, n_cur = 0, next_n = 0;
  std::uint32_t cyc = 0;
  std::vector<std::uint64_t> recs;
  std::uint64_t rec_mismatch = 0, log_mismatch = 0, reports = 0, hits = 0, misses = 0;
  std::mt19937_64 rng(7);
  const std::uint64_t addr_mask = kPhysW >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << kPhysW) - 1;
  std::uint64_t cycle = 0;
  for (const Segment& s : segs) {
    for (std::uint64_t k = 0; k < s.cycles; ++k, ++cycle) {
      board::SuInputs in;
      in.cmd_valid = rng() % 100 < s.cmd_pct;
      const unsigned r = static_cast<unsigned>(rng() % 100);
      in.cmd = r < 20 ? 1 : r < 55 ? 2 : r < 85 ? 3 : r < 93 ? 4 : r < 97 ? 5 : r < 99 ? 6 : 7;
      in.rank = rng() % 16 == 0 ? static_cast<unsigned>(rng() % 8) : static_cast<unsigned>(rng() % kRanks);
      in.bank = static_cast<unsigned>(rng() % (rng() % 2 ? 2 : 8));  // bursts on banks 0-1
      in.ap = rng() % 8 == 0;
      in.ref_valid = rng() % 100 < 40;
      // Mostly nearby addresses (low bits toggle), now and then far ones.
      in.ref_addr = (rng() % 4 ? (prev ^ (rng() & 0xFFF)) : rng()) & addr_mask & ~std::uint64_t{0x3F};
      const bool ready = rng() % 100 < s.ready_pct;
      b.dut->interval_i = s.interval;
      b.dut->cmd_valid_i = in.cmd_valid;
      b.dut->cmd_i = in.cmd;
      b.dut->rank_i = in.rank;
      b.dut->bank_i = in.bank;
      b.dut->ap_i = in.ap;
      b.dut->ref_valid_i = in.ref_valid;
      b.dut->ref_addr_i = in.ref_addr;
      b.dut->rec_ready_i = ready;
      bool ok = (b.dut->rec_valid_o != 0) == model.rec_valid() && b.dut->lost_o == model.lost();
      if (ok && model.rec_valid()) ok = b.dut->rec_o == model.rec();
      if (!ok && rec_mismatch++ < 5)
        MESSAGE("cycle " << cycle << ": rtl rec 0x" << std::hex << static_cast<std::uint64_t>(b.dut->rec_o)
                         << ", model 0x" << model.rec() << std::dec);
      if (b.dut->rec_valid_o && ready) {
        recs.push_back(b.dut->rec_o);
        if (recs.size() == 1 + kNv) {
          ++reports;
          const std::uint64_t snum = recs[0] & 0xFFFF;
          if (recs[0] >> 16 != ((std::uint64_t{0xB0} << 16) | kNv)) ++log_mismatch;
          while ((next_n & 0xFFFF) != snum) ++next_n;
          const Log& l = logs[next_n];
          for (unsigned i = 0; i < kNv; ++i)
            if ((recs[1 + i] & ((std::uint64_t{1} << 36) - 1)) != l.v[i]) ++log_mismatch;
          logs.erase(logs.begin(), logs.upper_bound(next_n));
          ++next_n;
          recs.clear();
        }
      }
      // The command log's counts for the current interval.
      Log& l = logs[n_cur];
      if (in.cmd_valid && in.rank < kRanks) {
        Row& row = rows[in.rank * 8 + in.bank];
        if (in.cmd == 1) {
          row = Row::Opened;
          ++l.v[4 + in.rank * 8 + in.bank];
        } else if (in.cmd == 2 || in.cmd == 3) {
          ++l.v[in.cmd == 2 ? 0 : 1];
          if (row != Row::Closed) {
            ++l.v[row == Row::Used ? 2 : 3];
            ++(row == Row::Used ? hits : misses);
            row = in.ap ? Row::Closed : Row::Used;
          }
        } else if (in.cmd == 4) {
          row = Row::Closed;
        } else if (in.cmd == 5 || in.cmd == 6) {
          for (unsigned j = 0; j < 8; ++j) rows[in.rank * 8 + j] = Row::Closed;
        }
      }
      if (in.ref_valid) {
        for (unsigned j = 0; j < kPhysW; ++j) l.v[4 + 8 * kRanks + j] += ((in.ref_addr ^ prev) >> j) & 1;
        prev = in.ref_addr;
      }
      if (std::uint64_t{cyc} + 1 >= s.interval) {
        ++n_cur;
        cyc = 0;
      } else {
        ++cyc;
      }
      model.edge(in, ready, s.interval);
      b.edge();
    }
  }
  MESSAGE(cycle << " cycles, " << reports << " reports checked, " << hits << " row hits, " << misses
                << " row misses, " << model.lost() << " reports lost");
  CHECK(rec_mismatch == 0);
  CHECK(log_mismatch == 0);
  CHECK(reports > 300);
  CHECK(hits > 1000);
  CHECK(misses > 1000);
  CHECK(model.lost() > 100);
}
