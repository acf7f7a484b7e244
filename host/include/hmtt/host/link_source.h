// Link sources: pull streams of raw HMTT frames (UDP payloads) from the wire.
//
// A source hands out batches of frames, each with where it came from (the
// UDP destination port, which names board and link by the default addressing
// of docs/wire-format.md section 1) and the capture time. Packets that are not
// HMTT frames (other protocols, other ports) are skipped and counted; packets
// on an HMTT port that fail the Ethernet/IPv4/UDP checks are handed on as
// rejected frames so the receiver can count them against their link.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hmtt/result.h"
#include "hmtt/wire/ethernet.h"

namespace hmtt::host {

// The UDP ports HMTT links use: base + 4·board + link (64 ports: boards 0-15).
struct PortRange {
  std::uint16_t base = wire::kDefaultBasePort;
  std::uint16_t count = 64;
  bool contains(std::uint16_t port) const { return port >= base && port - base < count; }
  // Board and link a port stands for (by the default addressing).
  std::uint32_t board_of(std::uint16_t port) const { return static_cast<std::uint32_t>(port - base) / 4; }
  std::uint32_t link_of(std::uint16_t port) const { return static_cast<std::uint32_t>(port - base) % 4; }
};

struct RawFrame {
  std::uint32_t offset = 0;   // into FrameBatch::bytes
  std::uint32_t size = 0;
  std::uint16_t port = 0;     // UDP destination port
  std::uint64_t time_ns = 0;  // capture time (pcap timestamp or receive time)
  bool rejected = false;      // failed the Ethernet/IPv4/UDP checks; `reason` says why
  bool crc_ok = false;        // frame_crc_ok(payload), taken by add() (false: not known)
  std::string reason;
};

// A batch of frames whose bytes live in one arena (reused between reads).
struct FrameBatch {
  std::vector<std::uint8_t> bytes;
  std::vector<RawFrame> frames;
  void clear() {
    bytes.clear();
    frames.clear();
  }
  std::span<const std::uint8_t> payload(const RawFrame& f) const {
    return std::span<const std::uint8_t>(bytes.data() + f.offset, f.size);
  }
  void add(std::span<const std::uint8_t> payload, std::uint16_t port, std::uint64_t time_ns);
  void add_rejected(std::uint16_t port, std::uint64_t time_ns, std::string reason);
};

enum class ReadState { Frames, Idle, End };

struct SourceCounters {
  std::uint64_t packets = 0;       // packets seen
  std::uint64_t bytes = 0;         // bytes seen (captured length / datagram size)
  std::uint64_t non_hmtt = 0;      // skipped: not IPv4/UDP, or not an HMTT port
  std::uint64_t kernel_drops = 0;  // drops the kernel reports (pcap_stats ps_drop, SO_RXQ_OVFL)
};

class LinkSource {
 public:
  virtual ~LinkSource() = default;
  // Appends up to about `max_frames` frames to `batch`. Waits at most `timeout` for a live source;
  // returns Idle if nothing arrived, End when a file is exhausted.
  virtual Result<ReadState> read(FrameBatch& batch, std::size_t max_frames, std::chrono::milliseconds timeout) = 0;
  virtual const SourceCounters& counters() const = 0;
  virtual std::string name() const = 0;
  // Stop taking new input; reads then return what was already taken, then End (reader threads).
  virtual void close_input() {}
  // The (board, link) streams this source expects (UDP ports), empty if unknown in advance.
  virtual std::vector<std::uint16_t> expected_ports() const { return {}; }
  // A file: the streams (LinkMerger::stream_id) of the good frames among its first `refs`
  // references, found by reading that far ahead without taking anything (read() still starts at
  // the beginning). std::nullopt where that cannot be known (live input, standard input, pipes).
  virtual std::optional<std::vector<std::uint16_t>> streams_ahead(std::size_t /*refs*/) { return std::nullopt; }
};

// Classifies one Ethernet frame (with or without FCS; one VLAN tag allowed):
// returns false if it is not an HMTT packet (skip and count), true otherwise,
// with the frame added to `batch` (or added as rejected with the reason).
// Without `check_udp_checksum` a wrong UDP checksum is not a rejection: packets
// captured on the sending host carry unfinished checksums (checksum offload);
// the frame's own CRC-32 still covers the HMTT payload end to end.
bool classify_ethernet(std::span<const std::uint8_t> packet, const PortRange& ports, std::uint64_t time_ns,
                       FrameBatch& batch, bool check_udp_checksum = true);

}  // namespace hmtt::host
