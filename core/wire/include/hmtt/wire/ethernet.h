// Ethernet II / IPv4 / UDP encapsulation of HMTT frames (docs/wire-format.md
// section 1), and a pcap file writer for the links' packets.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hmtt/result.h"

namespace hmtt::wire {

inline constexpr std::size_t kEthHeaderBytes = 14;
inline constexpr std::size_t kIpv4HeaderBytes = 20;
inline constexpr std::size_t kUdpHeaderBytes = 8;
inline constexpr std::size_t kFcsBytes = 4;
inline constexpr std::uint16_t kDefaultBasePort = 7400;

// Where a board's links send to (the board configuration).
struct LinkAddressing {
  std::array<std::uint8_t, 6> host_mac{0x02, 0x48, 0x4d, 0x54, 0xff, 0x00};
  std::uint32_t host_ip = 0x0A48FF01;  // 10.72.255.1
  std::uint16_t base_port = kDefaultBasePort;

  std::uint16_t port(std::uint8_t board, std::uint8_t link) const {
    return static_cast<std::uint16_t>(base_port + 4 * board + link);
  }
};

// Builds the Ethernet frame that carries `payload` from board/link, with valid
// IPv4 header checksum and UDP checksum; appends the 802.3 FCS if `with_fcs`.
std::vector<std::uint8_t> udp_packet(const LinkAddressing& addressing, std::uint8_t board, std::uint8_t link,
                                     std::span<const std::uint8_t> payload, bool with_fcs);

struct UdpInfo {
  std::uint32_t src_ip = 0;
  std::uint32_t dst_ip = 0;
  std::uint16_t src_port = 0;
  std::uint16_t dst_port = 0;
};

// Finds the UDP payload of an Ethernet frame, checking EtherType, IPv4 header
// and checksum, protocol, lengths and the UDP checksum (when not 0), and the
// FCS when `has_fcs`. Non-IPv4/UDP packets and IPv4 fragments are errors.
Result<std::span<const std::uint8_t>> udp_payload(std::span<const std::uint8_t> packet, bool has_fcs,
                                                  UdpInfo* info = nullptr);

// A pcap (LINKTYPE_ETHERNET, no FCS) file writer; flushes on destruction.
class PcapWriter {
 public:
  static Result<std::unique_ptr<PcapWriter>> create(const std::string& path);
  ~PcapWriter();
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;
  // Writes one packet with a capture timestamp in nanoseconds.
  Status write(std::span<const std::uint8_t> packet, std::uint64_t time_ns);
  Status flush();

  struct Impl;
 private:
  explicit PcapWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hmtt::wire
