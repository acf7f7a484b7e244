// The report hand-off of the board's online units (hmtt_su, hmtt_rdhpu), cycle by
// cycle as the RTL does it: at an interval's end the counters are snapshotted if the
// previous report has left (otherwise that interval's report is lost and counted);
// a snapshot leaves as one REPORT record and then its values, one record in every
// cycle the record stream accepts (docs/board.md 11, 12).
#pragma once

#include <cstdint>

namespace hmtt::board {

class ReportSender {
 public:
  // One cycle. Returns true when this cycle's interval end takes a snapshot (the
  // caller copies its counters then). `values`: REPORT_VALUE records per report.
  bool step(bool interval_end, bool rec_ready, unsigned values) {
    const bool take = interval_end && !busy_;
    const bool last = busy_ && rec_ready && idx_ == values;
    if (take) {
      idx_ = 0;
      busy_ = true;
    } else {
      if (busy_ && rec_ready) ++idx_;
      if (last) busy_ = false;
    }
    if (interval_end && !take) ++lost_;
    return take;
  }
  bool busy() const { return busy_; }        // a record is offered this cycle
  unsigned index() const { return idx_; }    // 0: the REPORT record; k: value k-1
  std::uint32_t lost() const { return lost_; }

 private:
  bool busy_ = false;
  unsigned idx_ = 0;
  std::uint32_t lost_ = 0;
};

}  // namespace hmtt::board
