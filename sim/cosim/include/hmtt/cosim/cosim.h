// Co-simulation: one command bus through the C++ board model and (optionally)
// the Verilated RTL board, scored record by record against the controller's
// ground truth (hmtt::sim::IssuedAccess) and frame by frame RTL against model.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "hmtt/board/board_model.h"
#include "hmtt/cosim/rtl_board.h"
#include "hmtt/result.h"
#include "hmtt/sim/command_stream.h"

namespace hmtt::cosim {

struct CosimScore {
  std::uint64_t cycles = 0;           // DDR clock cycles simulated (RTL) or spanned (model)
  std::uint64_t bus_commands = 0;     // BusCycles given
  std::uint64_t issued_rw = 0;        // READ/WRITE commands issued (ground truth)
  std::uint64_t expected_refs = 0;    // issued accesses outside the config space while tracing
  std::uint64_t expected_events = 0;  // issued config-space accesses
  std::uint64_t refs = 0;             // reference records decoded
  std::uint64_t events = 0;           // event records decoded
  std::uint64_t wrong_address = 0;
  std::uint64_t wrong_rw = 0;
  std::uint64_t wrong_event = 0;      // event with a wrong index or write bit
  std::uint64_t unmatched = 0;        // records with no issued access at their time
  std::uint64_t missing = 0;          // expected items not in the trace
  std::uint64_t lost_by_loss = 0;     // sum of LOSS payloads
  std::uint64_t frames = 0;
  std::uint64_t reports = 0;          // REPORT records decoded (online units)
  std::uint64_t reports_after_loss = 0;  // REPORT records right after a LOSS record
  std::uint64_t rtl_bytes = 0;        // bytes the RTL's links sent
  std::uint64_t rtl_frames = 0;
  std::uint64_t rtl_mismatched_frames = 0;  // per link, RTL packet != model packet (or missing/extra)
  bool rtl_ran = false;
  bool rtl_overrun = false;
  board::BoardCounters model;
  double model_seconds = 0;  // thread CPU time
  double rtl_seconds = 0;    // thread CPU time

  // Zero wrong records, every expected item present or accounted for by LOSS records.
  bool perfect() const;
  std::string summary() const;
};

// Runs `bus` through the model (and the RTL when `with_rtl`) and scores it.
// `issued` is the ground truth for the same bus.
// The RTL board's settings for a C++ model configuration (the same board).
RtlSettings rtl_settings(const board::BoardConfig& config);

Result<CosimScore> run_cosim(const board::BoardConfig& config, std::span<const sim::BusCycle> bus,
                             std::span<const sim::IssuedAccess> issued, bool with_rtl);

}  // namespace hmtt::cosim
