// The bit-exact, cycle-exact C++ model of the Reuse Distance & Hot Pages Unit
// (rtl/hmtt_rdhpu.v, docs/board.md section 11): the LRU stack (LruStackDistance,
// results Depth cycles after their access), the per-interval log-spaced
// reuse-distance histogram, the K-entry Space-Saving hot-page table (ties: the
// lowest index) and the REPORT/REPORT_VALUE records (docs/wire-format.md) with
// the same back-pressure and loss rule as the RTL.
#pragma once

#include "hmtt/board/report_sender.h"

#include <cstdint>
#include <deque>
#include <vector>

#include "hmtt/board/lru_stack_distance.h"

namespace hmtt::board {

struct RdhpuParams {
  unsigned depth = 128;
  unsigned tag_width = 24;
  unsigned hot_k = 8;
  unsigned cnt_width = 32;
};

struct HotPage {
  bool valid = false;
  std::uint64_t page = 0;
  std::uint64_t count = 0;  // over-estimates the accesses in the interval by at most err
  std::uint64_t err = 0;
};

class RdhpuModel {
 public:
  explicit RdhpuModel(const RdhpuParams& p);

  // Number of distance bits, histogram bins (distance bins + "beyond depth") and values per report.
  unsigned dist_bits() const { return dist_w_; }
  unsigned num_bins() const { return dist_w_ + 2; }
  unsigned num_values() const { return num_bins() + 3 * p_.hot_k; }
  // The histogram bin of one access (docs/board.md 11.2).
  static unsigned bin_of(bool hit, unsigned distance, unsigned dist_bits);

  // The record output of the current cycle (registered: valid before the edge).
  bool rec_valid() const { return sender_.busy(); }
  std::uint64_t rec() const;
  std::uint32_t lost() const { return sender_.lost(); }
  // The report being sent (valid while rec_valid()): its interval number and values.
  std::uint16_t report_interval() const { return snum_; }
  std::vector<std::uint64_t> report_values() const;

  // Ends the current cycle with these inputs (the RTL's clock edge).
  void edge(bool acc_valid, std::uint64_t page, bool rec_ready, std::uint32_t interval);

 private:
  struct Result {
    std::uint64_t due;
    std::uint64_t page;
    bool hit;
    unsigned distance;
  };
  struct Counters {
    std::vector<std::uint64_t> bins;
    std::vector<HotPage> hot;
  };
  void clear(Counters& c) const;

  RdhpuParams p_;
  unsigned dist_w_;
  std::uint64_t tag_mask_, cnt_mask_;
  LruStackDistance stack_;
  std::deque<Result> pending_;
  std::uint64_t cycle_ = 0;
  std::uint32_t cyc_ = 0;
  std::uint16_t interval_ = 0;
  Counters live_, snap_;
  std::uint16_t snum_ = 0;
  ReportSender sender_;
};

}  // namespace hmtt::board
