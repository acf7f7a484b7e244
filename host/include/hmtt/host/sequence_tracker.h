// Per-link frame sequence accounting (docs/wire-format.md section 2, "Loss").
//
// Sequence numbers are 32 bits and wrap from 2^32-1 to 0; the tracker widens
// them to 64 bits by serial-number arithmetic (RFC 1982: a frame within 2^31
// ahead of the expected number is ahead, anything else is behind). A frame is
//   - in order: the expected number;
//   - ahead: later than expected; the numbers skipped become a missing range;
//   - late: behind, and in a missing range (it was reordered on the way);
//   - stale: behind, in a range already declared lost (arrived too late);
//   - duplicate: behind, and not missing (received before).
// Missing ranges stay open until the merge has passed the time of the frame
// that revealed them (a late frame could still be merged until then); they are
// then final, counted as gap frames and reported as one SequenceGap event.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

namespace hmtt::host {

enum class SequenceVerdict { First, InOrder, Ahead, Late, Stale, Duplicate };

struct SequenceGap {
  std::uint64_t first = 0;   // widened sequence number of the first missing frame
  std::uint64_t count = 0;   // frames missing
  std::uint64_t time = 0;    // base_time of the frame that revealed the gap (the hole ends before it)
  std::uint64_t low_time = 0;   // end_time of the link's frames before the gap (the hole starts after it)
  std::uint64_t opened_ns = 0;  // receive clock when the gap was revealed
  std::uint32_t first_seq() const { return static_cast<std::uint32_t>(first); }
};

class SequenceTracker {
 public:
  // Classifies frame `seq` (base_time `time`); `ext` receives the widened number.
  // `low_time` is the link's latest end_time before this frame, `now_ns` the receive clock.
  SequenceVerdict observe(std::uint32_t seq, std::uint64_t time, std::uint64_t& ext, std::uint64_t low_time = 0,
                          std::uint64_t now_ns = 0);
  // The least low_time of the gaps opened after `since_ns`: a reordered frame of such a gap may still
  // come, so the live merge holds below it. UINT64_MAX if none.
  std::uint64_t hold(std::uint64_t since_ns) const;
  // A late frame was merged after all: it is no longer missing.
  void fill(std::uint64_t ext);
  // A frame that arrived in order could not be merged (beyond the merge horizon): treat it as lost.
  void mark_lost(std::uint64_t ext, std::uint64_t time);
  // Moves the missing ranges revealed before `frontier` (all with `all`) to final; returns them.
  std::vector<SequenceGap> finalize(std::uint64_t frontier, bool all);
  // Frames currently missing but not final.
  std::uint64_t open_missing() const;
  // Times the 32-bit sequence wrapped from 2^32-1 to 0.
  std::uint64_t wraps() const { return started_ ? ((next_ - 1) >> 32) - (low_ >> 32) : 0; }

 private:
  bool in_final(std::uint64_t ext) const;
  bool started_ = false;
  std::uint64_t next_ = 0;  // widened number expected next
  std::uint64_t low_ = 0;   // lowest widened number seen
  std::map<std::uint64_t, SequenceGap> missing_;  // by first
  std::deque<SequenceGap> final_;                 // recent final ranges, to tell stale from duplicate
};

}  // namespace hmtt::host
