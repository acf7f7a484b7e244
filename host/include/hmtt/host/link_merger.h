// The k-way merge by time of the decoded frames of all links of all boards
// (HMTT paper, section 4.5: "the trace merge operation is simplified to be a
// merge sort problem").
//
// Each stream (one board/link) holds its frames in sequence order; within a
// stream record times never decrease (a frame's base_time is the time of the
// last record the board sent before it, over all links). The merger emits
// references in order of (time, board, link), in runs: the stream with the
// smallest head gives all its records up to the next stream's head at once.
//
// Memory is bounded. References are released when they are safe (earlier
// than the watermark: the least time any blocking stream can still deliver)
// or, beyond the horizon (more than `horizon_refs` buffered), regardless.
// The time of the last reference released is the frontier: a frame that
// arrives later with a reference earlier than the frontier is too late and
// is not merged (the receiver counts it and treats its sequence as lost).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "hmtt/result.h"
#include "hmtt/wire/frame.h"

namespace hmtt::host {

// A decoded frame the merge holds. Its references are in `room` (from the merger's FrameRooms);
// frame.refs stays empty.
struct PendingFrame {
  wire::DecodedFrame frame;  // header, events, losses, reports, end_time
  std::span<Reference> room;  // wire::kMaxRecords references' room
  std::size_t count = 0;      // references decoded into room
  std::uint64_t ext = 0;      // widened sequence number
  std::size_t next = 0;       // next reference to release

  std::span<const Reference> refs() const { return room.first(count); }
};

// Room for the references of the frames the merge holds: blocks of whole 2 MiB pages
// (store::scratch_allocate: uninitialised, advised for transparent huge pages), each cut into
// rooms of wire::kMaxRecords references. A room lasts as long as the FrameRooms; frames are pooled
// and reuse theirs.
//
// Why: in a file, the merge holds its 4 M-reference horizon (96 MiB) before it releases anything.
// Held in each frame's std::vector, that memory was malloc'd, zero-filled and faulted in 4 KiB at a
// time; about 25,000 page faults, a fifth of a 50 M-reference pcap ingest's main thread on a
// paravirtualised VM (docs/benchmarks.md, "Receiver", stop 44).
//
// The first block is small (32 rooms, 216 KiB, plain malloc): a short capture, a test or a fuzz
// input takes a few frames, and a 2 MiB huge page is zeroed whole when first touched.
class FrameRooms {
 public:
  static constexpr std::size_t kRoomBytes = wire::kMaxRecords * sizeof(Reference);
  static constexpr std::size_t kBlockBytes = std::size_t{2} << 20;
  static constexpr std::size_t kRoomsPerBlock = kBlockBytes / kRoomBytes;
  static constexpr std::size_t kFirstBlockRooms = 32;

  std::span<Reference> take();
  std::size_t blocks() const { return blocks_.size(); }

 private:
  struct Free {
    void operator()(Reference* p) const;
  };
  std::vector<std::unique_ptr<Reference, Free>> blocks_;
  std::size_t rooms_ = 0;  // rooms in the last block
  std::size_t used_ = 0;   // rooms taken from it
};

// Where the merge goes: references in order, and each frame once all its references are out
// (its events, losses and reports go to the side tables then).
class MergeOutput {
 public:
  virtual ~MergeOutput() = default;
  virtual Status on_references(std::span<const Reference> refs) = 0;
  virtual Status on_frame_done(const PendingFrame& frame) = 0;
};

class LinkMerger {
 public:
  explicit LinkMerger(std::size_t horizon_refs) : horizon_(horizon_refs) {}

  // Stream id = 4·board + link.
  static std::uint16_t stream_id(std::uint32_t board, std::uint32_t link) {
    return static_cast<std::uint16_t>(4 * board + link);
  }
  // True if the frame's first reference is earlier than the frontier.
  bool too_late(const PendingFrame& f) const {
    return released_any_ && f.count > 0 && f.room[0].time < frontier_;
  }
  // Queues a frame (not too late) of stream `id`, in sequence order.
  void push(std::uint16_t id, std::unique_ptr<PendingFrame> frame);
  // Releases what is safe below `watermark`, and anything over the horizon.
  Status release(std::uint64_t watermark, MergeOutput& out);
  // Releases everything (end of capture).
  Status release_all(MergeOutput& out);

  std::uint64_t frontier() const { return frontier_; }
  std::size_t buffered_refs() const { return buffered_; }
  // True once more than the horizon has been buffered (and the merge forced to release).
  bool reached_horizon() const { return reached_horizon_; }
  // A reusable frame (from a pool of released ones, else a new one with a new room).
  std::unique_ptr<PendingFrame> take_frame();
  // Blocks of room taken so far.
  std::size_t room_blocks() const { return rooms_.blocks(); }

 private:
  struct Stream {
    std::deque<std::unique_ptr<PendingFrame>> queue;
  };
  Status run(std::uint64_t watermark, bool force_all, MergeOutput& out);
  Status pop_done(Stream& s, MergeOutput& out);

  std::size_t horizon_;
  FrameRooms rooms_;  // before the frames, which point into it
  std::vector<std::unique_ptr<Stream>> streams_;
  std::vector<std::uint16_t> active_;  // ids with a non-empty queue
  std::vector<std::unique_ptr<PendingFrame>> pool_;
  std::size_t buffered_ = 0;
  std::uint64_t frontier_ = 0;
  bool released_any_ = false;
  bool reached_horizon_ = false;
};

}  // namespace hmtt::host
