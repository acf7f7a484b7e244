// The pieces of a METRIC compressed trace (Marathe, Mueller, de Supinski:
// "METRIC: Memory Tracing via Dynamic Binary Rewriting to Identify Cache
// Inefficiencies"): reference points, event keys, regular section descriptors
// (RSDs), power RSDs (PRSDs) and irregular access descriptors (IADs).
//
// Every event of the original stream has a sequence id (its position, from 0).
// An event is (sequence id, key, address, time); the key carries everything
// else of the hmtt::Reference (kind, size, origin, source) plus the reference
// point the event was attributed to. A Descriptor covers events whose sequence
// id, address and time all advance by constant steps:
//
//   levels[0]   = the RSD:  length, address stride, sequence-id stride, time stride
//   levels[1..] = the PRSD: repetition count, base address shift, sequence-id shift,
//                           time shift, from the innermost level outwards.
//
// Event (i0, i1, ..., iD) of a descriptor is at
//   seq  = start_seq  + i0*levels[0].seq  + i1*levels[1].seq  + ...
//   addr = start_addr + i0*levels[0].addr + i1*levels[1].addr + ...   (mod 2^64)
//   time = start_time + i0*levels[0].time + ...                       (mod 2^64)
// Each level's sequence-id step exceeds the sequence span of the level below,
// so the events come in increasing sequence order when enumerated outer-first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hmtt/reference.h"

namespace hmtt::metric {

// A place in the program the analysis reports on: in METRIC an access
// instruction ("xz_Read_1" at mm.c:63, source reference "xz[k][j]"); in hmtt
// an I-Code event region, a named address range, or both.
struct ReferencePoint {
  std::string name;        // e.g. "xz_Read_1"
  std::string file;        // e.g. "mm.c" (empty when unknown)
  std::uint32_t line = 0;  // 0 when unknown
  std::string source_ref;  // e.g. "xz[k][j]" (empty when unknown)
  friend bool operator==(const ReferencePoint&, const ReferencePoint&) = default;
};

// Everything of an event except its position (sequence id, address, time).
struct EventKey {
  std::uint32_t point = 0;
  Kind kind = Kind::Read;
  Origin origin = Origin::Unknown;
  std::uint16_t source = 0;
  std::uint32_t size = 0;
  friend bool operator==(const EventKey&, const EventKey&) = default;
};

// One level of a descriptor: `count` repetitions, each `seq`, `addr` and `time`
// further on than the previous one. addr and time are two's-complement steps.
struct Step {
  std::uint64_t count = 0;
  std::uint64_t addr = 0;
  std::uint64_t seq = 0;
  std::uint64_t time = 0;
  friend bool operator==(const Step&, const Step&) = default;
};

struct Descriptor {
  std::uint32_t key = 0;
  std::uint64_t start_seq = 0;
  std::uint64_t start_addr = 0;
  std::uint64_t start_time = 0;
  std::vector<Step> levels;  // levels[0] is the RSD; one more per PRSD level

  bool is_prsd() const { return levels.size() > 1; }
  // Number of events covered (saturates at UINT64_MAX).
  std::uint64_t events() const;
  // Sequence id distance between the first and the last event (saturates).
  std::uint64_t seq_span() const;
  friend bool operator==(const Descriptor&, const Descriptor&) = default;
};

// An event no regular pattern absorbed.
struct Iad {
  std::uint64_t seq = 0;
  std::uint32_t key = 0;
  std::uint64_t addr = 0;
  std::uint64_t time = 0;
  friend bool operator==(const Iad&, const Iad&) = default;
};

}  // namespace hmtt::metric
