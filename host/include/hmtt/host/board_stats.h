// The board's online reports, read back: the Statistic Unit's (unit 0) and the
// RDHPU's (unit 1) REPORT records as the receiver stored them (store table
// `report`), interpreted by position (docs/wire-format.md 3.2, docs/board.md
// 11, 12) and summed over the capture: a per-interval timeline, ACTIVEs per
// bank, row-buffer hits and misses, the reuse-distance histogram and the hot
// pages. `hmtt stats` prints this; it holds no knowledge of how the store was
// made beyond the report layouts.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "hmtt/result.h"
#include "hmtt/store/store.h"

namespace hmtt::host {

struct BoardStatsOptions {
  unsigned su_phys_bits = 32;     // the SU's address bits (its report has 4 + 8*ranks + bits values)
  unsigned rdhpu_depth = 128;     // the RDHPU's stack depth (its report has log2(depth) + 2 + 3K values)
  std::uint32_t interval_cycles = 0;  // board cycles per interval; 0: estimated from the report times
};

struct SuInterval {
  std::uint64_t interval = 0;  // unwrapped interval number (the wire carries it mod 2^16)
  std::uint64_t time = 0;      // time stamp of the report in the stream
  std::uint64_t reads = 0, writes = 0, row_hits = 0, row_misses = 0, activates = 0;
};

struct SuSummary {
  unsigned ranks = 0;
  std::vector<SuInterval> timeline;               // in interval order
  std::uint64_t missing = 0;                      // interval numbers skipped (reports lost on the board)
  std::uint64_t reads = 0, writes = 0, row_hits = 0, row_misses = 0;
  std::vector<std::uint64_t> bank_activates;      // index rank*8 + bank
  std::vector<std::uint64_t> bit_toggles;         // per physical-address bit
};

struct HotPageTotal {
  std::uint64_t page = 0;
  std::uint64_t count = 0;  // sum over the intervals of the table's counts (an upper bound)
  std::uint64_t err = 0;    // sum of the error bounds: count - err <= accesses in those intervals <= count
  std::uint64_t intervals = 0;  // intervals in which the page was in the table
};

struct RdhpuSummary {
  unsigned depth = 0, hot_k = 0;
  std::uint64_t intervals = 0;
  std::uint64_t missing = 0;
  std::vector<std::uint64_t> histogram;  // bin 0: distance 0; b: 2^(b-1)..2^b-1; last: beyond depth
  std::vector<HotPageTotal> hot_pages;   // by count - err (guaranteed accesses), then count, descending
};

struct BoardStats {
  std::uint32_t board = 0;
  bool has_su = false, has_rdhpu = false;
  SuSummary su;
  RdhpuSummary rdhpu;
  std::uint32_t interval_cycles = 0;  // of the SU (else of the RDHPU)
  bool interval_estimated = false;
};

// One summary per board that sent reports, by board number. A report whose value count fits neither
// layout is an error naming the board, unit, interval and count.
Result<std::vector<BoardStats>> summarize_reports(std::span<const store::Report> reports,
                                                  const BoardStatsOptions& options);

// The label of histogram bin `b` of `bins` bins: "0", "1", "2-3", ..., ">=128".
std::string distance_bin_label(unsigned b, unsigned bins);

}  // namespace hmtt::host
