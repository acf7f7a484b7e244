// The bit-exact, cycle-exact C++ model of the Statistic Unit (rtl/hmtt_su.v,
// docs/board.md section 12): per interval, READ/WRITE counts, row-buffer hits
// and misses, ACTIVEs per bank and per-address-bit toggles, reported as REPORT
// unit 0 + REPORT_VALUE records with the RTL's back-pressure and loss rule.
#pragma once

#include "hmtt/board/report_sender.h"

#include <cstdint>
#include <vector>

namespace hmtt::board {

struct SuParams {
  unsigned ranks = 2;
  unsigned phys_bits = 32;
  unsigned cnt_width = 32;
};

// One cycle's inputs (command codes of hmtt_dcbu: 1 ACT, 2 RD, 3 WR, 4 PRE, 5 PREA, 6 REF).
struct SuInputs {
  bool cmd_valid = false;
  unsigned cmd = 0, rank = 0, bank = 0;
  bool ap = false;
  bool ref_valid = false;
  std::uint64_t ref_addr = 0;
};

class SuModel {
 public:
  explicit SuModel(const SuParams& p);
  unsigned num_values() const { return 4 + 8 * p_.ranks + p_.phys_bits; }

  bool rec_valid() const { return sender_.busy(); }
  std::uint64_t rec() const;
  std::uint32_t lost() const { return sender_.lost(); }
  // The report being sent (valid while rec_valid()): its interval number and values.
  std::uint16_t report_interval() const { return snum_; }
  const std::vector<std::uint64_t>& report_values() const { return snap_; }

  void edge(const SuInputs& in, bool rec_ready, std::uint32_t interval);

 private:
  SuParams p_;
  std::uint64_t cnt_mask_;
  std::vector<bool> open_, used_;
  std::vector<std::uint64_t> live_, snap_;
  std::uint64_t prev_ = 0;
  std::uint32_t cyc_ = 0;
  std::uint16_t interval_ = 0, snum_ = 0;
  ReportSender sender_;
};

}  // namespace hmtt::board
