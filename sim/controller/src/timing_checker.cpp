#include "hmtt/sim/timing_checker.h"

#include <algorithm>
#include <string>

namespace hmtt::sim {

TimingChecker::TimingChecker(const DramTiming& timing, unsigned ranks, unsigned banks) : t_(timing), ranks_(ranks) {
  for (auto& r : ranks_) r.banks.resize(banks);
}

Status TimingChecker::violation(std::uint64_t cycle, const DdrCommandWord& w, const char* rule,
                                std::int64_t need) const {
  std::string m = "timing checker: cycle " + std::to_string(cycle) + ": " + std::string(command_name(w.cmd)) +
                  " rank " + std::to_string(w.rank) + " bank " + std::to_string(w.bank) + ": " + rule;
  if (need != kNever) m += " (allowed from cycle " + std::to_string(need) + ")";
  return make_error(m);
}

// Applies auto-precharges whose time has come.
void TimingChecker::settle(RankModel& r, std::int64_t now) {
  for (auto& b : r.banks)
    if (b.auto_pre != kNever && b.auto_pre <= now) {
      b.active = false;
      b.pre = b.auto_pre;
      b.pre_all = false;
      b.auto_pre = kNever;
    }
}

Status TimingChecker::observe(std::span<const BusCycle> cycles) {
  for (const auto& c : cycles) HMTT_TRY(observe(c));
  return {};
}

Status TimingChecker::observe(const BusCycle& c) {
  const DdrCommandWord w = decode_pins(c.pins);
  if (started_ && c.cycle <= last_cycle_)
    return make_error("timing checker: cycle " + std::to_string(c.cycle) + " does not follow cycle " +
                      std::to_string(last_cycle_) + " (one command per cycle, increasing)");
  started_ = true;
  last_cycle_ = c.cycle;
  if (w.cmd == DdrCommand::Deselect) {
    if (c.pins.cs_n != 0xFF) return violation(c.cycle, w, "more than one rank selected", kNever);
    return {};
  }
  if (w.cmd == DdrCommand::Nop) return {};
  if (w.rank >= ranks_.size()) return violation(c.cycle, w, "rank does not exist", kNever);
  if (w.bank >= ranks_[w.rank].banks.size()) return violation(c.cycle, w, "bank does not exist", kNever);
  ++counts_.commands;
  const auto now = static_cast<std::int64_t>(c.cycle);
  RankModel& r = ranks_[w.rank];
  settle(r, now);
  const auto i = [](unsigned v) { return static_cast<std::int64_t>(v); };
  const std::int64_t bl2 = i(t_.burst_cycles());
  // Earliest cycle a PRE may close bank b (tRAS, read-to-precharge, write recovery).
  const auto precharge_ready = [&](const BankModel& b) {
    std::int64_t need = b.act + i(t_.tRAS);
    // JEDEC DDR2: READ to PRE = AL + BL/2 + max(tRTP, 2) - 2; DDR: BL/2.
    const std::int64_t rtp = t_.standard == DdrStandard::Ddr200 ? bl2 : bl2 + std::max<std::int64_t>(i(t_.tRTP), 2) - 2;
    need = std::max(need, b.read + rtp);
    need = std::max(need, b.write + i(t_.wl) + bl2 + i(t_.tWR));
    return need;
  };

  switch (w.cmd) {
    case DdrCommand::Active: {
      BankModel& b = r.banks[w.bank];
      if (b.active || b.auto_pre != kNever) return violation(c.cycle, w, "ACT to a bank that is not precharged", kNever);
      const std::int64_t rp = i(b.pre_all ? t_.tRPA : t_.tRP);
      if (now < b.pre + rp) return violation(c.cycle, w, b.pre_all ? "tRPA" : "tRP", b.pre + rp);
      if (now < b.act + i(t_.tRC)) return violation(c.cycle, w, "tRC", b.act + i(t_.tRC));
      if (now < r.ref + i(t_.tRFC)) return violation(c.cycle, w, "tRFC", r.ref + i(t_.tRFC));
      if (!r.acts.empty() && now < r.acts.back() + i(t_.tRRD))
        return violation(c.cycle, w, "tRRD", r.acts.back() + i(t_.tRRD));
      if (t_.tFAW != 0 && r.acts.size() >= 4 && now < r.acts[r.acts.size() - 4] + i(t_.tFAW))
        return violation(c.cycle, w, "tFAW", r.acts[r.acts.size() - 4] + i(t_.tFAW));
      b.active = true;
      b.row = w.addr;
      b.act = now;
      r.acts.push_back(now);
      if (r.acts.size() > 4) r.acts.erase(r.acts.begin());
      ++counts_.activates;
      return {};
    }
    case DdrCommand::Read:
    case DdrCommand::Write: {
      const bool write = w.cmd == DdrCommand::Write;
      BankModel& b = r.banks[w.bank];
      if (!b.active || b.auto_pre != kNever) return violation(c.cycle, w, "column command to a bank with no open row", kNever);
      if (now < b.act + i(t_.tRCD)) return violation(c.cycle, w, "tRCD", b.act + i(t_.tRCD));
      if (now < last_col_ + i(t_.tCCD)) return violation(c.cycle, w, "tCCD", last_col_ + i(t_.tCCD));
      const std::int64_t start = now + i(write ? t_.wl : t_.cl);
      if (data_end_ != kNever) {
        std::int64_t gap = 0;
        const char* rule = "data bus: bursts overlap (CL/WL, BL)";
        if (w.rank != data_rank_) {
          gap = i(t_.tRTRS);
          rule = "data bus: rank-to-rank turnaround";
        } else if (write && !data_write_) {
          gap = 1;
          rule = "data bus: read-to-write turnaround";
        }
        if (start < data_end_ + gap) return violation(c.cycle, w, rule, data_end_ + gap - (start - now));
      }
      if (!write && now < r.last_write_data_end + i(t_.tWTR))
        return violation(c.cycle, w, "tWTR", r.last_write_data_end + i(t_.tWTR));
      last_col_ = now;
      data_end_ = start + bl2;
      data_rank_ = w.rank;
      data_write_ = write;
      if (write) {
        b.write = now;
        r.last_write_data_end = data_end_;
        ++counts_.writes;
      } else {
        b.read = now;
        ++counts_.reads;
      }
      if (w.auto_precharge) {
        // The implicit precharge starts when an explicit PRE would first be allowed.
        b.auto_pre = precharge_ready(b);
        ++counts_.auto_precharges;
      }
      return {};
    }
    case DdrCommand::Precharge: {
      BankModel& b = r.banks[w.bank];
      if (b.auto_pre != kNever) return violation(c.cycle, w, "PRE during an auto-precharge", kNever);
      if (b.active) {
        const std::int64_t need = precharge_ready(b);
        if (now < need) return violation(c.cycle, w, "tRAS/tRTP/tWR before PRE", need);
        b.active = false;
        b.pre = now;
        b.pre_all = false;
      }
      ++counts_.precharges;
      return {};
    }
    case DdrCommand::PrechargeAll: {
      for (auto& b : r.banks) {
        if (b.auto_pre != kNever) return violation(c.cycle, w, "PREA during an auto-precharge", kNever);
        if (b.active) {
          const std::int64_t need = precharge_ready(b);
          if (now < need) return violation(c.cycle, w, "tRAS/tRTP/tWR before PREA", need);
        }
        // Idle banks too: PREA restarts every bank's precharge window (tRPA to ACT/REF).
        b.active = false;
        b.pre = now;
        b.pre_all = true;
      }
      ++counts_.precharge_alls;
      return {};
    }
    case DdrCommand::Refresh: {
      for (auto& b : r.banks) {
        if (b.active || b.auto_pre != kNever) return violation(c.cycle, w, "REF with a bank not precharged", kNever);
        const std::int64_t rp = i(b.pre_all ? t_.tRPA : t_.tRP);
        if (now < b.pre + rp) return violation(c.cycle, w, b.pre_all ? "tRPA before REF" : "tRP before REF", b.pre + rp);
      }
      if (now < r.ref + i(t_.tRFC)) return violation(c.cycle, w, "tRFC", r.ref + i(t_.tRFC));
      if (c.cycle > r.last_ref_or_start + 9ull * t_.tREFI)
        return violation(c.cycle, w, "refresh interval over 9 x tREFI", kNever);
      r.ref = now;
      r.last_ref_or_start = c.cycle;
      ++counts_.refreshes;
      return {};
    }
    default: return {};
  }
}

Status TimingChecker::finish(std::uint64_t end_cycle) const {
  for (std::size_t ri = 0; ri < ranks_.size(); ++ri)
    if (end_cycle > ranks_[ri].last_ref_or_start + 9ull * t_.tREFI)
      return make_error("timing checker: rank " + std::to_string(ri) + " not refreshed from cycle " +
                        std::to_string(ranks_[ri].last_ref_or_start) + " to cycle " + std::to_string(end_cycle) +
                        " (more than 9 x tREFI)");
  return {};
}

}  // namespace hmtt::sim
