// The command scheduler of one memory channel: bank and rank state, the queue
// of bursts waiting for the DRAM, the page policy and refresh.
//
// Pure logic, no SystemC: ControllerSimulation's channel process asks it for
// the next command (`next`), waits in simulated time until that cycle (or until
// a new burst arrives and it asks again), and then `commit`s it. Commands obey
// every constraint of DramTiming; the TimingChecker verifies that from the pins.
//
// Open-page (FR-FCFS): column commands to open rows (row hits) go first, oldest
// first; otherwise the oldest ready ACT or PRE. A row with queued hits is not
// closed, unless the oldest burst has waited `starvation_cycles`, in which case
// only it (and refresh) may issue. A READ never passes an older WRITE to the
// same burst (nor a WRITE an older access to it).
// Close-page: every column command auto-precharges (A10 = 1).
// Refresh: when a rank's refresh is due (every tREFI), it stops taking new
// commands, gets a PRECHARGE ALL as soon as every bank allows it, then a
// REFRESH tRPA later; nothing reaches it again until tRFC has passed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "hmtt/sim/address_map.h"
#include "hmtt/sim/ddr_bus.h"
#include "hmtt/sim/dram_timing.h"

namespace hmtt::sim {

enum class PagePolicy : std::uint8_t { OpenPage, ClosePage };

// One burst of a memory request, as queued in a channel.
struct Burst {
  std::uint64_t request = 0;  // id of the memory request
  std::uint64_t address = 0;  // physical byte address of the burst (burst-aligned)
  DramCoordinates where;
  std::uint64_t arrival = 0;  // cycle it entered the queue
  bool write = false;
  bool config_space = false;
  bool opened_row = false;  // set by the scheduler when it activated a row for this burst
  std::uint32_t older_conflicts = 0;  // set by the scheduler: older queued bursts it must not pass
};

// A command the scheduler chose, at the cycle it may issue.
struct PlannedCommand {
  std::uint64_t cycle = 0;
  DdrCommandWord word;
  int burst = -1;  // index in the queue for READ/WRITE (and ACT/PRE on its behalf), -1 for refresh
};

struct SchedulerCounters {
  std::uint64_t activates = 0, reads = 0, writes = 0, precharges = 0, precharge_alls = 0, refreshes = 0;
  std::uint64_t row_hits = 0;     // column commands that found their row already open
  std::uint64_t row_misses = 0;   // column commands whose row was activated for their burst
  std::uint64_t row_conflicts = 0;  // PREs closing a row another burst needed
};

class ChannelScheduler {
 public:
  ChannelScheduler(const DramTiming& timing, PagePolicy policy, unsigned ranks, unsigned banks,
                   unsigned queue_depth, std::uint64_t starvation_cycles = 2000);

  bool has_room() const { return queue_.size() < depth_; }
  bool empty() const { return queue_.empty(); }
  std::size_t queued() const { return queue_.size(); }
  void enqueue(const Burst& b);

  // The first cycle at or after `now` on which a command may issue (one per cycle).
  std::uint64_t earliest(std::uint64_t now) const { return any_cmd_ ? std::max(now, last_cmd_ + 1) : now; }
  // The next command that can issue at or after `now`, chosen by the policy.
  // There always is one: with an empty queue it is the next refresh.
  PlannedCommand next(std::uint64_t now) const;
  // Issues `c` (as returned by next()); for a READ/WRITE returns the burst it served.
  std::optional<Burst> commit(const PlannedCommand& c);

  const SchedulerCounters& counters() const { return counters_; }
  const DramTiming& timing() const { return t_; }

 private:
  struct Bank {
    bool open = false;
    std::uint32_t row = 0;
    std::uint64_t act_at = 0;
    std::uint64_t ready_act = 0;  // tRP after (auto-)precharge, tRC after ACT, tRFC after REF
    std::uint64_t ready_col = 0;  // tRCD after ACT
    std::uint64_t ready_pre = 0;  // tRAS after ACT, read/write to precharge
    std::uint32_t queued_hits = 0;  // queued bursts for the open row
  };
  struct Rank {
    std::vector<Bank> banks;
    std::uint64_t act_window[4] = {0, 0, 0, 0};  // last four ACTs (tFAW), ring
    unsigned act_count = 0;
    std::uint64_t ready_act_rrd = 0;
    std::uint64_t refresh_due = 0;
    bool prea_done = false;      // refresh pending: PREA issued, REF next
    std::uint64_t ready_ref = 0; // tRFC after the previous REF
    std::uint64_t write_data_end = 0;  // for tWTR
    bool wrote = false;
  };

  bool refresh_pending(const Rank& r, std::uint64_t now) const { return now >= r.refresh_due; }
  std::uint64_t ready_activate(const Rank& r, const Bank& b) const;
  std::uint64_t ready_column(unsigned rank, const Bank& b, bool write) const;

  DramTiming t_;
  PagePolicy policy_;
  std::size_t depth_;
  std::uint64_t starvation_;
  std::vector<Rank> ranks_;
  std::vector<Burst> queue_;  // oldest first (at most queue_depth: erase is a short move)
  std::uint64_t last_cmd_ = 0;
  bool any_cmd_ = false;
  std::uint64_t last_col_ = 0;
  bool any_col_ = false;
  std::uint64_t data_end_ = 0;
  unsigned data_rank_ = 0;
  bool data_write_ = false;
  SchedulerCounters counters_;
  // Scratch for next(), per rank x bank: row commands taken by the bank's oldest burst,
  // and (bank, direction) pairs already offered a column command.
  mutable std::vector<std::uint8_t> claimed_;
  mutable std::vector<std::uint8_t> column_seen_;
  void close_row(Bank& b) {
    b.open = false;
    b.queued_hits = 0;
  }
};

}  // namespace hmtt::sim
