// Access streams for the co-simulation tests, after the HMTT paper's
// micro-benchmarks (Appendix A): sequential read, sequential write,
// read-after-write and random read in units from 64 B to 4 KB, in bursty
// phases, with config-space accesses (BEGIN/END TRACING, user events) mixed in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hmtt/board/access_sequencer.h"

namespace hmtt::cosim_test {

enum class Pattern { SeqRead, SeqWrite, ReadAfterWrite, RandomRead, Mixed };
inline const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::SeqRead: return "seq-read";
    case Pattern::SeqWrite: return "seq-write";
    case Pattern::ReadAfterWrite: return "read-after-write";
    case Pattern::RandomRead: return "random-read";
    case Pattern::Mixed: return "mixed";
  }
  return "?";
}

struct WorkloadSpec {
  Pattern pattern = Pattern::Mixed;
  std::uint32_t unit = 64;          // bytes per unit (64..4096)
  std::size_t accesses = 1000;      // READ/WRITE bursts (64 B each)
  std::uint64_t seed = 1;
  std::uint64_t config_base = 0;
  bool begin_end = true;            // BEGIN first, END before the last tenth
  unsigned user_event_every = 500;  // a user event every n accesses (0 = none)
  bool bursty = true;               // alternate dense and sparse phases
};

// Command timings (in command-clock cycles) of the DDR standards, JEDEC-like:
// DDR-200 (100 MHz), DDR2-400 (200 MHz), DDR2-800 (400 MHz); BL8 = 4 cycles.
struct DdrStandard {
  const char* name;
  std::uint32_t clock_khz;
  board::SequencerTiming timing;
};
inline DdrStandard ddr_standard(int i) {
  board::SequencerTiming t;
  switch (i) {
    case 0: t.t_rcd = 2; t.t_rp = 2; t.t_ccd = 4; t.t_rfc = 8; t.t_refi = 780; return {"DDR-200", 100000, t};
    case 1: t.t_rcd = 3; t.t_rp = 3; t.t_ccd = 4; t.t_rfc = 21; t.t_refi = 1560; return {"DDR2-400", 200000, t};
    default: t.t_rcd = 5; t.t_rp = 5; t.t_ccd = 4; t.t_rfc = 51; t.t_refi = 3120; return {"DDR2-800", 400000, t};
  }
}

// Appends the workload's accesses to `seq`.
void generate(const WorkloadSpec& w, std::uint64_t capacity, board::AccessSequencer& seq);

}  // namespace hmtt::cosim_test
