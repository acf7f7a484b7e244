#include "hmtt/sim/channel_scheduler.h"

#include <algorithm>
#include <array>

namespace hmtt::sim {

ChannelScheduler::ChannelScheduler(const DramTiming& timing, PagePolicy policy, unsigned ranks, unsigned banks,
                                   unsigned queue_depth, std::uint64_t starvation_cycles)
    : t_(timing), policy_(policy), depth_(queue_depth), starvation_(starvation_cycles), ranks_(ranks) {
  queue_.reserve(queue_depth);
  claimed_.assign(std::size_t{ranks} * banks, 0);
  column_seen_.assign(2 * std::size_t{ranks} * banks, 0);
  for (unsigned r = 0; r < ranks; ++r) {
    ranks_[r].banks.resize(banks);
    // Stagger the ranks' refreshes so they do not stall the channel together.
    ranks_[r].refresh_due = t_.tREFI + std::uint64_t{r} * t_.tREFI / ranks;
  }
}

// Same burst address and at least one of the two a write: program order must hold.
static bool conflicts(const Burst& older, const Burst& younger) {
  return older.address == younger.address && (older.write || younger.write);
}

void ChannelScheduler::enqueue(const Burst& b) {
  Burst q = b;
  q.opened_row = false;
  q.older_conflicts = 0;
  for (const Burst& o : queue_) q.older_conflicts += conflicts(o, q) ? 1 : 0;
  Bank& bank = ranks_[q.where.rank].banks[q.where.bank];
  if (bank.open && bank.row == q.where.row) ++bank.queued_hits;
  queue_.push_back(q);
}

std::uint64_t ChannelScheduler::ready_activate(const Rank& r, const Bank& b) const {
  std::uint64_t c = std::max(b.ready_act, r.ready_act_rrd);
  if (t_.tFAW != 0 && r.act_count >= 4) c = std::max(c, r.act_window[r.act_count % 4] + t_.tFAW);
  return c;
}

std::uint64_t ChannelScheduler::ready_column(unsigned rank, const Bank& b, bool write) const {
  std::uint64_t c = b.ready_col;
  if (any_col_) {
    c = std::max(c, last_col_ + t_.tCCD);
    const unsigned latency = write ? t_.wl : t_.cl;
    unsigned gap = 0;
    if (rank != data_rank_) {
      gap = t_.tRTRS;
    } else if (!data_write_ && write) {
      gap = 1;  // read-to-write bus turnaround
    }
    const std::uint64_t start = data_end_ + gap;  // earliest first data beat
    if (start > latency) c = std::max(c, start - latency);
  }
  const Rank& r = ranks_[rank];
  if (!write && r.wrote) c = std::max(c, r.write_data_end + t_.tWTR);
  return c;
}

PlannedCommand ChannelScheduler::next(std::uint64_t now) const {
  const std::uint64_t base = earliest(now);
  PlannedCommand best;
  int best_prio = 99;
  bool found = false;
  auto consider = [&](std::uint64_t cycle, int prio, const DdrCommandWord& w, int burst) {
    cycle = std::max(cycle, base);
    if (!found || cycle < best.cycle || (cycle == best.cycle && prio < best_prio)) {
      best = PlannedCommand{cycle, w, burst};
      best_prio = prio;
      found = true;
    }
  };

  // Refresh: PREA once the refresh is due and every bank allows it, REF tRPA later.
  for (unsigned ri = 0; ri < ranks_.size(); ++ri) {
    const Rank& r = ranks_[ri];
    DdrCommandWord w;
    w.rank = static_cast<std::uint8_t>(ri);
    if (!r.prea_done) {
      std::uint64_t c = r.refresh_due;
      for (const Bank& b : r.banks) c = std::max(c, b.ready_pre);
      w.cmd = DdrCommand::PrechargeAll;
      consider(c, 0, w, -1);
    } else {
      std::uint64_t c = r.ready_ref;
      for (const Bank& b : r.banks) c = std::max(c, b.ready_act);
      w.cmd = DdrCommand::Refresh;
      consider(c, 0, w, -1);
    }
  }

  if (!queue_.empty()) {
    const bool starving = base >= queue_.front().arrival + starvation_;
    const std::size_t nbanks = ranks_[0].banks.size();
    // Per call: banks whose row commands the oldest burst has taken, and (bank, direction)
    // pairs already offered a column command (a younger one at the same cycle cannot win).
    std::vector<std::uint8_t>& claimed = claimed_;
    std::vector<std::uint8_t>& column_seen = column_seen_;
    std::fill(claimed.begin(), claimed.end(), 0);
    std::fill(column_seen.begin(), column_seen.end(), 0);
    const std::size_t limit = starving ? 1 : queue_.size();
    for (std::size_t i = 0; i < limit; ++i) {
      const Burst& b = queue_[i];
      const Rank& r = ranks_[b.where.rank];
      if (refresh_pending(r, base)) continue;
      const Bank& bank = r.banks[b.where.bank];
      const std::size_t key = b.where.rank * nbanks + b.where.bank;
      DdrCommandWord w;
      w.rank = static_cast<std::uint8_t>(b.where.rank);
      w.bank = static_cast<std::uint8_t>(b.where.bank);
      if (bank.open && bank.row == b.where.row) {
        if (b.older_conflicts != 0) continue;
        if (column_seen[2 * key + b.write]) continue;
        column_seen[2 * key + b.write] = 1;
        w.cmd = b.write ? DdrCommand::Write : DdrCommand::Read;
        w.addr = static_cast<std::uint16_t>(b.where.column);
        w.auto_precharge = policy_ == PagePolicy::ClosePage;
        consider(ready_column(b.where.rank, bank, b.write), 1, w, static_cast<int>(i));
        if (best.cycle == base && best_prio <= 1) break;  // nothing later in the queue can win
        continue;
      }
      if (claimed[key]) continue;  // the oldest burst of a bank drives its row commands
      claimed[key] = 1;
      if (bank.open) {
        if (bank.queued_hits != 0 && !starving) continue;  // keep a row open while hits wait
        w.cmd = DdrCommand::Precharge;
        consider(bank.ready_pre, 2, w, static_cast<int>(i));
      } else {
        w.cmd = DdrCommand::Active;
        w.addr = static_cast<std::uint16_t>(b.where.row);
        consider(ready_activate(r, bank), 2, w, static_cast<int>(i));
      }
    }
  }
  return best;
}

std::optional<Burst> ChannelScheduler::commit(const PlannedCommand& c) {
  const std::uint64_t now = c.cycle;
  last_cmd_ = now;
  any_cmd_ = true;
  Rank& r = ranks_[c.word.rank];
  switch (c.word.cmd) {
    case DdrCommand::Active: {
      Bank& b = r.banks[c.word.bank];
      b.open = true;
      b.row = c.word.addr;
      b.queued_hits = 0;
      for (const Burst& q : queue_)
        if (q.where.rank == c.word.rank && q.where.bank == c.word.bank && q.where.row == b.row) ++b.queued_hits;
      b.act_at = now;
      b.ready_col = now + t_.tRCD;
      b.ready_pre = now + t_.tRAS;
      b.ready_act = now + t_.tRC;
      r.ready_act_rrd = now + t_.tRRD;
      r.act_window[r.act_count % 4] = now;
      ++r.act_count;
      ++counters_.activates;
      queue_[static_cast<std::size_t>(c.burst)].opened_row = true;
      return std::nullopt;
    }
    case DdrCommand::Precharge: {
      Bank& b = r.banks[c.word.bank];
      close_row(b);
      b.ready_act = std::max(b.ready_act, now + t_.tRP);
      ++counters_.precharges;
      ++counters_.row_conflicts;
      return std::nullopt;
    }
    case DdrCommand::Read:
    case DdrCommand::Write: {
      const bool write = c.word.cmd == DdrCommand::Write;
      Bank& b = r.banks[c.word.bank];
      const std::uint64_t start = now + (write ? t_.wl : t_.cl);
      data_end_ = start + t_.burst_cycles();
      data_rank_ = c.word.rank;
      data_write_ = write;
      last_col_ = now;
      any_col_ = true;
      if (write) {
        r.write_data_end = data_end_;
        r.wrote = true;
        b.ready_pre = std::max(b.ready_pre, now + t_.write_to_precharge());
        ++counters_.writes;
      } else {
        b.ready_pre = std::max(b.ready_pre, now + t_.read_to_precharge());
        ++counters_.reads;
      }
      --b.queued_hits;  // the served burst was a hit on this row
      if (c.word.auto_precharge) {
        close_row(b);
        b.ready_act = std::max(b.ready_act, b.ready_pre + t_.tRP);
      }
      const auto it = queue_.begin() + c.burst;
      Burst served = *it;
      for (auto y = it + 1; y != queue_.end(); ++y)
        if (conflicts(served, *y)) --y->older_conflicts;
      queue_.erase(it);
      if (served.opened_row) {
        ++counters_.row_misses;
      } else {
        ++counters_.row_hits;
      }
      return served;
    }
    case DdrCommand::PrechargeAll:
      for (Bank& b : r.banks) {
        close_row(b);
        b.ready_act = std::max(b.ready_act, now + t_.tRPA);
      }
      r.prea_done = true;
      ++counters_.precharge_alls;
      return std::nullopt;
    case DdrCommand::Refresh:
      for (Bank& b : r.banks) b.ready_act = std::max(b.ready_act, now + t_.tRFC);
      r.ready_ref = now + t_.tRFC;
      r.refresh_due += t_.tREFI;
      r.prea_done = false;
      ++counters_.refreshes;
      return std::nullopt;
    default: return std::nullopt;
  }
}

}  // namespace hmtt::sim
