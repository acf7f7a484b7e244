// An independent timing checker for a DDR command bus.
//
// It sees only the pins (BusCycle: cycle number and DdrPins), decodes each
// command with the JEDEC truth table and keeps its own model of every bank:
// open row, and the cycle of the last ACT, PRE (explicit, PRECHARGE ALL or the
// implicit one of an auto-precharge), READ, WRITE and REFRESH. It shares
// nothing with the scheduler except the parameter table (DramTiming) and fails
// on the first command that breaks a rule, naming the cycle, the command and the
// rule: tRCD, CL/WL data-bus overlap and turnaround, tRP, tRPA, tRAS, tRC, tRRD, tFAW,
// tCCD, tWR, tWTR, tRTP, tRFC, refresh with every bank precharged, the refresh
// interval (at most 9 x tREFI between REFs of a rank: 8 may be postponed),
// column commands only to an open row, ACT only to a precharged bank, one rank
// selected at a time, ranks that exist, strictly increasing cycles.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hmtt/result.h"
#include "hmtt/sim/command_stream.h"
#include "hmtt/sim/dram_timing.h"

namespace hmtt::sim {

struct CheckerCounts {
  std::uint64_t commands = 0, activates = 0, reads = 0, writes = 0, precharges = 0, precharge_alls = 0,
                refreshes = 0, auto_precharges = 0;
};

class TimingChecker {
 public:
  TimingChecker(const DramTiming& timing, unsigned ranks, unsigned banks);

  Status observe(const BusCycle& c);
  Status observe(std::span<const BusCycle> cycles);
  // At the end of the stream (last cycle simulated): checks the refresh interval up to `end_cycle`.
  Status finish(std::uint64_t end_cycle) const;

  const CheckerCounts& counts() const { return counts_; }

 private:
  static constexpr std::int64_t kNever = -(std::int64_t{1} << 40);
  struct BankModel {
    bool active = false;
    std::uint32_t row = 0;
    std::int64_t act = kNever;
    std::int64_t pre = kNever;         // explicit or implicit precharge start
    bool pre_all = false;              // that precharge was a PRECHARGE ALL (tRPA)
    std::int64_t read = kNever;
    std::int64_t write = kNever;
    std::int64_t auto_pre = kNever;    // pending auto-precharge takes effect at this cycle
  };
  struct RankModel {
    std::vector<BankModel> banks;
    std::vector<std::int64_t> acts;    // every ACT, last 4 kept
    std::int64_t ref = kNever;
    std::int64_t last_write_data_end = kNever;
    std::uint64_t last_ref_or_start = 0;
  };
  void settle(RankModel& r, std::int64_t now);
  Status violation(std::uint64_t cycle, const DdrCommandWord& w, const char* rule, std::int64_t need) const;

  DramTiming t_;
  std::vector<RankModel> ranks_;
  bool started_ = false;
  std::uint64_t last_cycle_ = 0;
  std::int64_t last_col_ = kNever;
  // Data bus: the last burst's beats [start, end) in half-cycles are not needed:
  // bursts are whole cycles, so cycles suffice.
  std::int64_t data_end_ = kNever;
  unsigned data_rank_ = 0;
  bool data_write_ = false;
  CheckerCounts counts_;
};

}  // namespace hmtt::sim
