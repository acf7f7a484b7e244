// A synthetic board: random reference streams packed into link frames by the
// wire codec's FrameEncoder, with the ground truth kept beside them. Used by the
// receiver's fault-injection tests, the benchmarks, and `hmtt capture`'s
// loopback sender (bring-up of a host without a board).
//
// Reference times strictly increase on a board (one DDR command bus issues at
// most one command per cycle), so the merged trace has one right order.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "hmtt/reference.h"
#include "hmtt/result.h"
#include "hmtt/wire/frame.h"

namespace hmtt::host {

struct SyntheticConfig {
  std::uint8_t board = 0;
  std::uint8_t links = 3;
  std::uint64_t seed = 1;
  std::uint64_t start_time = 0;
  std::uint16_t records_per_frame = wire::kMaxRecords;
  double long_gap_rate = 0.001;  // share of gaps beyond the 12-bit duration (OVERFLOW records)
  double event_rate = 0.0005;    // EVENT records per reference
  double loss_rate = 0.0002;     // LOSS records per reference
  double report_rate = 0.0001;   // REPORTs per reference
  std::uint64_t address_bytes = std::uint64_t{1} << 32;
};

struct SyntheticTruth {
  std::vector<Reference> refs;             // in time order
  std::vector<wire::DecodedEvent> events;
  std::uint64_t lost_records = 0;          // sum of LOSS counts
  std::uint64_t loss_markers = 0;
  std::uint64_t reports = 0;
};

class SyntheticBoard {
 public:
  static Result<SyntheticBoard> create(const SyntheticConfig& config);
  // Generates `references` more references; appends the completed frames to `frames`
  // and, if given, the ground truth to `truth`. `flush` closes the open frame.
  Status generate(std::size_t references, std::vector<wire::EncodedFrame>& frames, SyntheticTruth* truth,
                  bool flush = true);
  std::uint64_t time() const { return time_; }

 private:
  SyntheticBoard(const SyntheticConfig& c, wire::FrameEncoder e) : config_(c), encoder_(std::move(e)), rng_(c.seed) {}
  SyntheticConfig config_;
  wire::FrameEncoder encoder_;
  std::mt19937_64 rng_;
  std::uint64_t time_ = 0;
  std::uint64_t address_ = 0;
};

// Rewrites a frame's sequence number (and its CRC), e.g. to start near the wrap.
void set_sequence(std::vector<std::uint8_t>& frame, std::uint32_t sequence);

}  // namespace hmtt::host
