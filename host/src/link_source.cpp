#include "hmtt/host/link_source.h"

#include "hmtt/host/checksums.h"
#include "hmtt/host/frame_decoder.h"
#include "hmtt/wire/bytes.h"

namespace hmtt::host {

namespace {

// The checks of wire::udp_payload (FCS, IPv4 header and checksum, fragment, lengths, UDP
// checksum when not 0) at line rate; false if any fails (the codec then names the failure).
bool udp_checks(std::span<const std::uint8_t> p, bool has_fcs, std::size_t ip_at, bool check_sum,
                std::span<const std::uint8_t>& out) {
  if (has_fcs) {
    if (p.size() < wire::kEthHeaderBytes + wire::kFcsBytes) return false;
    const std::size_t n = p.size() - wire::kFcsBytes;
    const std::uint32_t want = std::uint32_t{p[n]} | (std::uint32_t{p[n + 1]} << 8) | (std::uint32_t{p[n + 2]} << 16) |
                               (std::uint32_t{p[n + 3]} << 24);
    if (fast_crc32(p.first(n)) != want) return false;
    p = p.first(n);
  }
  if (p.size() < ip_at + wire::kIpv4HeaderBytes) return false;
  const std::uint8_t* ip = &p[ip_at];
  const std::size_t ihl = std::size_t{ip[0] & 0xFu} * 4;
  if (ihl < wire::kIpv4HeaderBytes || p.size() < ip_at + ihl) return false;
  if (ones_sum16(std::span<const std::uint8_t>(ip, ihl)) != 0xFFFF) return false;
  if ((wire::load_be16(ip + 6) & 0x3FFF) != 0) return false;
  const std::size_t ip_len = wire::load_be16(ip + 2);
  if (ip_len < ihl + wire::kUdpHeaderBytes || ip_at + ip_len > p.size()) return false;
  const std::uint8_t* udp = ip + ihl;
  const std::size_t udp_len = wire::load_be16(udp + 4);
  if (udp_len < wire::kUdpHeaderBytes || udp_len != ip_len - ihl) return false;
  if (check_sum && wire::load_be16(udp + 6) != 0) {
    const std::uint64_t pseudo = std::uint64_t{wire::load_be16(ip + 12)} + wire::load_be16(ip + 14) + wire::load_be16(ip + 16) + wire::load_be16(ip + 18) + 17 +
                                 udp_len;
    if (ones_sum16(std::span<const std::uint8_t>(udp, udp_len), pseudo) != 0xFFFF) return false;
  }
  out = std::span<const std::uint8_t>(udp + wire::kUdpHeaderBytes, udp_len - wire::kUdpHeaderBytes);
  return true;
}
}  // namespace

void FrameBatch::add(std::span<const std::uint8_t> payload, std::uint16_t port, std::uint64_t time_ns) {
  RawFrame f;
  f.offset = static_cast<std::uint32_t>(bytes.size());
  f.size = static_cast<std::uint32_t>(payload.size());
  f.port = port;
  f.time_ns = time_ns;
  // The frame's CRC on the thread that reads the frames (a ThreadedSource's reader), not on the
  // one that decodes and merges them, which limits a capture's rate (docs/benchmarks.md, stop 47).
  f.crc_ok = frame_crc_ok(payload);
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  frames.push_back(std::move(f));
}

void FrameBatch::add_rejected(std::uint16_t port, std::uint64_t time_ns, std::string reason) {
  RawFrame f;
  f.offset = static_cast<std::uint32_t>(bytes.size());
  f.port = port;
  f.time_ns = time_ns;
  f.rejected = true;
  f.reason = std::move(reason);
  frames.push_back(std::move(f));
}

bool classify_ethernet(std::span<const std::uint8_t> p, const PortRange& ports, std::uint64_t time_ns,
                       FrameBatch& batch, bool check_udp_checksum) {
  // A quick look at the fields that say whether this is an HMTT packet at all.
  if (p.size() < wire::kEthHeaderBytes + wire::kIpv4HeaderBytes + wire::kUdpHeaderBytes) return false;
  std::size_t off = 12;
  std::uint16_t type = wire::load_be16(&p[off]);
  if (type == 0x8100) {
    off += 4;
    type = wire::load_be16(&p[off]);
  }
  if (type != 0x0800) return false;
  const std::size_t ip_at = off + 2;
  if (p.size() < ip_at + wire::kIpv4HeaderBytes) return false;
  const std::uint8_t* ip = &p[ip_at];
  if ((ip[0] >> 4) != 4 || ip[9] != 17) return false;
  const std::size_t ihl = std::size_t{ip[0] & 0xFu} * 4;
  if (ihl < wire::kIpv4HeaderBytes || p.size() < ip_at + ihl + wire::kUdpHeaderBytes) return false;
  const std::uint16_t port = wire::load_be16(ip + ihl + 2);
  if (!ports.contains(port)) return false;
  // An HMTT port: from here on a failure is a bad frame of that link.
  // The FCS is present when exactly 4 bytes follow the IPv4 datagram.
  const std::size_t ip_len = wire::load_be16(ip + 2);
  const bool has_fcs = p.size() == ip_at + ip_len + wire::kFcsBytes;
  std::span<const std::uint8_t> fast;
  if (udp_checks(p, has_fcs, ip_at, check_udp_checksum, fast)) {
    batch.add(fast, port, time_ns);
    return true;
  }
  auto payload = wire::udp_payload(p, has_fcs);
  if (!payload) {
    batch.add_rejected(port, time_ns, payload.error().message);
    return true;
  }
  batch.add(*payload, port, time_ns);
  return true;
}

}  // namespace hmtt::host
