// The host receiver: link frames in, one merged, loss-accounted trace out.
//
//   frames ─> decode (checks, timestamps) ─> per-link sequence accounting ─> k-way merge ─> CaptureSink
//
// Every frame ends in exactly one counter of its link:
//   frames      accepted and merged (its references are in the trace);
//   bad         rejected by a check (Ethernet/IP/UDP, length, version, field, CRC);
//   duplicate   its sequence number was received before; dropped;
//   too_late    it arrived after the merge had passed its first reference (see LinkMerger); its
//               references are dropped and counted (too_late_refs), its events, LOSS and
//               REPORT records are still stored;
// and late counts the accepted or too-late frames that arrived after a later one (reordered).
// gap_frames counts the sequence numbers whose references are not in the trace: never received
// (lost on the way, or rejected as bad), or too late. Each final gap is stored as one
// SequenceGap event at the base_time of the frame that revealed it, with the number of frames.
// LOSS records (the board's TX FIFO overflowed) are stored as FifoLoss events with their counts.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hmtt/host/capture_sink.h"
#include "hmtt/host/link_merger.h"
#include "hmtt/host/link_source.h"
#include "hmtt/host/sequence_tracker.h"

namespace hmtt::host {

struct ReceiverOptions {
  // References the merge may hold before it releases regardless of slow links (24 bytes each).
  std::size_t horizon_refs = std::size_t{1} << 22;
  // Live links: release by watermark; a link silent for `idle_ns` no longer holds the merge.
  // Files: release only beyond the horizon and at the end (arrival order is already final).
  bool live = false;
  std::uint64_t idle_ns = 500'000'000;
  // Live links: a sequence gap holds the merge this long for a reordered frame to fill it.
  std::uint64_t reorder_ns = 20'000'000;
  PortRange ports;
};

struct LinkCounters {
  std::uint32_t board = 0;
  std::uint32_t link = 0;
  std::uint16_t port = 0;              // UDP port it last arrived on
  std::uint64_t frames = 0;            // accepted and merged
  std::uint64_t records = 0;           // records in accepted frames
  std::uint64_t references = 0;        // references in accepted frames
  std::uint64_t bad_frames = 0;
  std::uint64_t duplicate_frames = 0;
  std::uint64_t late_frames = 0;       // arrived after a later frame of the link
  std::uint64_t too_late_frames = 0;   // arrived after the merge passed them; references dropped
  std::uint64_t too_late_refs = 0;     // references dropped with them
  std::uint64_t gap_frames = 0;        // final: sequence numbers whose references are not in the trace
  std::uint64_t open_gap_frames = 0;   // missing, not yet final (a reordered frame may still come)
  std::uint64_t fifo_loss_markers = 0; // LOSS records seen
  std::uint64_t fifo_lost_records = 0; // their counts summed
  std::uint64_t events = 0;            // EVENT records
  std::uint64_t reports = 0;           // REPORT records
  std::uint64_t wraps = 0;             // sequence wrap-arounds
  std::uint64_t last_time = 0;         // latest record time seen

  store::LinkStats to_store() const;
};

struct ReceiverTotals {
  std::uint64_t frames = 0;
  std::uint64_t references_out = 0;    // references released to the sink
  std::uint64_t bad_frames = 0;
  std::uint64_t unattributed_bad_frames = 0;  // bad, on a port that names no link
  std::uint64_t fifo_loss_markers = 0;
  std::uint64_t fifo_lost_records = 0;
  std::uint64_t gap_frames = 0;
  std::uint64_t too_late_refs = 0;
  std::uint64_t bytes = 0;             // frame bytes accepted
};

class Receiver final : private MergeOutput {
 public:
  Receiver(CaptureSink& sink, const ReceiverOptions& options);
  ~Receiver() override;
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  // Live: these ports hold the merge until they deliver, or until `idle_ns` after the first frame
  // of any link (a link that never starts does not stall the capture).
  void expect_ports(std::span<const std::uint16_t> ports, std::uint64_t now_ns);
  // Files: the streams (LinkMerger::stream_id) of the files' first horizon of references, read
  // ahead (LinkSource::streams_ahead). Once each has delivered a frame, the merge releases what
  // every link has passed, as it does after holding a horizon: no link can first appear before
  // the horizon that these do not include.
  void expect_file_streams(std::span<const std::uint16_t> streams);
  const ReceiverOptions& options() const { return options_; }
  // Takes a batch of frames (`now_ns`: a monotonic clock, for idle detection).
  Status accept(const FrameBatch& batch, std::uint64_t now_ns);
  // Releases what is safe, finalizes gaps, stores events and link statistics.
  Status tick(std::uint64_t now_ns);
  // Releases everything, finalizes every gap, stores events and statistics, finishes the sink.
  Status finish();

  std::vector<LinkCounters> links() const;
  const ReceiverTotals& totals() const { return totals_; }
  std::uint64_t frontier() const { return merger_.frontier(); }
  std::size_t buffered_refs() const { return merger_.buffered_refs(); }
  // Blocks of room the merge has taken for frames' references (see FrameRooms).
  std::size_t room_blocks() const { return merger_.room_blocks(); }
  // Board clock (kHz) of the first accepted frame; 0 before any.
  std::uint32_t clock_khz() const { return clock_khz_; }
  CaptureSink& sink() { return sink_; }
  // The first few reasons frames were rejected, for the summary.
  const std::vector<std::string>& bad_samples() const { return bad_samples_; }

 private:
  struct StreamState {
    bool known = false;
    LinkCounters counters;
    SequenceTracker tracker;
    std::uint64_t watermark = 0;
    std::uint64_t last_arrival_ns = 0;
  };

  Status on_references(std::span<const Reference> refs) override;
  Status on_frame_done(const PendingFrame& frame) override;
  StreamState& stream(std::uint32_t board, std::uint32_t link);
  void count_bad(std::uint16_t port, std::span<const std::uint8_t> bytes, const std::string& reason);
  std::uint64_t watermark(std::uint64_t now_ns) const;
  void side_items(const wire::DecodedFrame& f);
  Status finalize_gaps(bool all);
  Status flush_side();

  CaptureSink& sink_;
  ReceiverOptions options_;
  LinkMerger merger_;
  std::unique_ptr<PendingFrame> spare_;  // the frame the next one decodes into
  std::vector<StreamState> streams_;                  // by stream id
  std::vector<std::int32_t> port_stream_;             // port -> stream id learned from good frames, -1
  std::vector<std::uint16_t> expected_unseen_;
  bool file_streams_known_ = false;              // expect_file_streams was told them
  std::vector<std::uint16_t> file_streams_unseen_;  // of those, the ones without a frame yet
  std::uint64_t start_ns_ = 0;
  std::vector<store::Event> events_;
  std::vector<store::Report> reports_;
  std::vector<std::string> bad_samples_;
  ReceiverTotals totals_;
  std::uint32_t clock_khz_ = 0;
  bool finished_ = false;
};

}  // namespace hmtt::host
