#include "hmtt/wire/ethernet.h"

#include <pcap/pcap.h>

#include <cstdio>

#include "hmtt/wire/bytes.h"
#include "hmtt/wire/frame.h"

namespace hmtt::wire {

namespace {

// One's-complement sum of 16-bit big-endian words (odd tail padded with zero).
std::uint32_t ones_sum(std::span<const std::uint8_t> b, std::uint32_t sum = 0) {
  std::size_t i = 0;
  for (; i + 1 < b.size(); i += 2) sum += static_cast<std::uint32_t>((b[i] << 8) | b[i + 1]);
  if (i < b.size()) sum += static_cast<std::uint32_t>(b[i] << 8);
  return sum;
}
std::uint16_t fold(std::uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum & 0xFFFF);
}

std::uint32_t board_ip(std::uint8_t board, std::uint8_t link) {
  return (10u << 24) | (72u << 16) | (std::uint32_t{board} << 8) | (std::uint32_t{link} + 1u);
}

std::uint16_t udp_checksum(std::uint32_t src, std::uint32_t dst, std::span<const std::uint8_t> udp) {
  std::uint32_t sum = 0;
  sum += src >> 16;
  sum += src & 0xFFFF;
  sum += dst >> 16;
  sum += dst & 0xFFFF;
  sum += 17;
  sum += static_cast<std::uint32_t>(udp.size());
  std::uint16_t c = fold(ones_sum(udp, sum));
  return c == 0 ? 0xFFFF : c;
}

}  // namespace

std::vector<std::uint8_t> udp_packet(const LinkAddressing& a, std::uint8_t board, std::uint8_t link,
                                     std::span<const std::uint8_t> payload, bool with_fcs) {
  const std::size_t udp_len = kUdpHeaderBytes + payload.size();
  const std::size_t ip_len = kIpv4HeaderBytes + udp_len;
  std::vector<std::uint8_t> p(kEthHeaderBytes + ip_len + (with_fcs ? kFcsBytes : 0));
  std::uint8_t* e = p.data();
  for (int i = 0; i < 6; ++i) e[i] = a.host_mac[static_cast<std::size_t>(i)];
  const std::uint8_t src_mac[6] = {0x02, 0x48, 0x4d, 0x54, board, link};
  for (int i = 0; i < 6; ++i) e[6 + i] = src_mac[i];
  store_be16(0x0800, e + 12);
  std::uint8_t* ip = e + kEthHeaderBytes;
  ip[0] = 0x45;
  ip[1] = 0;
  store_be16(static_cast<std::uint16_t>(ip_len), ip + 2);
  store_be16(0, ip + 4);       // identification
  store_be16(0x4000, ip + 6);  // DF
  ip[8] = 64;
  ip[9] = 17;
  store_be16(0, ip + 10);
  const std::uint32_t src = board_ip(board, link);
  store_be32(src, ip + 12);
  store_be32(a.host_ip, ip + 16);
  store_be16(fold(ones_sum(std::span<const std::uint8_t>(ip, kIpv4HeaderBytes))), ip + 10);
  std::uint8_t* udp = ip + kIpv4HeaderBytes;
  const std::uint16_t port = a.port(board, link);
  store_be16(port, udp);
  store_be16(port, udp + 2);
  store_be16(static_cast<std::uint16_t>(udp_len), udp + 4);
  store_be16(0, udp + 6);
  std::copy(payload.begin(), payload.end(), udp + kUdpHeaderBytes);
  store_be16(udp_checksum(src, a.host_ip, std::span<const std::uint8_t>(udp, udp_len)), udp + 6);
  if (with_fcs) {
    const std::size_t n = kEthHeaderBytes + ip_len;
    const std::uint32_t fcs = crc32(std::span<const std::uint8_t>(p.data(), n));
    // The FCS goes on the wire least significant byte first.
    for (int i = 0; i < 4; ++i) p[n + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(fcs >> (8 * i));
  }
  return p;
}

Result<std::span<const std::uint8_t>> udp_payload(std::span<const std::uint8_t> p, bool has_fcs, UdpInfo* info) {
  if (has_fcs) {
    if (p.size() < kEthHeaderBytes + kFcsBytes) return make_error("packet: shorter than an Ethernet header and FCS");
    const std::size_t n = p.size() - kFcsBytes;
    const std::uint32_t want = std::uint32_t{p[n]} | (std::uint32_t{p[n + 1]} << 8) | (std::uint32_t{p[n + 2]} << 16) |
                               (std::uint32_t{p[n + 3]} << 24);
    if (crc32(p.first(n)) != want) return make_error("packet: Ethernet FCS mismatch");
    p = p.first(n);
  }
  if (p.size() < kEthHeaderBytes + kIpv4HeaderBytes + kUdpHeaderBytes)
    return make_error("packet: " + std::to_string(p.size()) + " bytes is too short for Ethernet/IPv4/UDP");
  std::size_t off = 12;
  std::uint16_t type = load_be16(&p[off]);
  if (type == 0x8100) {  // one VLAN tag
    off += 4;
    type = load_be16(&p[off]);
  }
  if (type != 0x0800) return make_error("packet: EtherType 0x" + std::to_string(type) + " is not IPv4");
  const std::size_t ip_at = off + 2;
  if (p.size() < ip_at + kIpv4HeaderBytes) return make_error("packet: truncated IPv4 header");
  const std::uint8_t* ip = &p[ip_at];
  if ((ip[0] >> 4) != 4) return make_error("packet: IP version is not 4");
  const std::size_t ihl = std::size_t{ip[0] & 0xFu} * 4;
  if (ihl < kIpv4HeaderBytes || p.size() < ip_at + ihl) return make_error("packet: bad IPv4 header length");
  if (fold(ones_sum(std::span<const std::uint8_t>(ip, ihl))) != 0) return make_error("packet: IPv4 header checksum mismatch");
  if (ip[9] != 17) return make_error("packet: IPv4 protocol " + std::to_string(ip[9]) + " is not UDP");
  if ((load_be16(ip + 6) & 0x3FFF) != 0) return make_error("packet: IPv4 fragment");
  const std::size_t ip_len = load_be16(ip + 2);
  if (ip_len < ihl + kUdpHeaderBytes || ip_at + ip_len > p.size())
    return make_error("packet: IPv4 total length " + std::to_string(ip_len) + " does not fit the packet");
  const std::uint8_t* udp = ip + ihl;
  const std::size_t udp_len = load_be16(udp + 4);
  if (udp_len < kUdpHeaderBytes || udp_len != ip_len - ihl)
    return make_error("packet: UDP length " + std::to_string(udp_len) + " disagrees with IPv4");
  const std::uint32_t src = load_be32(ip + 12);
  const std::uint32_t dst = load_be32(ip + 16);
  if (load_be16(udp + 6) != 0) {
    std::uint32_t sum = (src >> 16) + (src & 0xFFFF) + (dst >> 16) + (dst & 0xFFFF) + 17 +
                        static_cast<std::uint32_t>(udp_len);
    if (fold(ones_sum(std::span<const std::uint8_t>(udp, udp_len), sum)) != 0)
      return make_error("packet: UDP checksum mismatch");
  }
  if (info) *info = UdpInfo{src, dst, load_be16(udp), load_be16(udp + 2)};
  return std::span<const std::uint8_t>(udp + kUdpHeaderBytes, udp_len - kUdpHeaderBytes);
}

// --- pcap writer --------------------------------------------------------------

struct PcapWriter::Impl {
  pcap_t* dead = nullptr;
  pcap_dumper_t* dumper = nullptr;
  std::string path;
  ~Impl() {
    if (dumper) pcap_dump_close(dumper);
    if (dead) pcap_close(dead);
  }
};

PcapWriter::PcapWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PcapWriter::~PcapWriter() = default;

Result<std::unique_ptr<PcapWriter>> PcapWriter::create(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
  if (!impl->dead) return make_error(path + ": cannot create a pcap handle");
  impl->dumper = pcap_dump_open(impl->dead, path.c_str());
  if (!impl->dumper) return make_error(path + ": " + pcap_geterr(impl->dead));
  return std::unique_ptr<PcapWriter>(new PcapWriter(std::move(impl)));
}

Status PcapWriter::write(std::span<const std::uint8_t> packet, std::uint64_t time_ns) {
  pcap_pkthdr h{};
  h.ts.tv_sec = static_cast<time_t>(time_ns / 1000000000ull);
  h.ts.tv_usec = static_cast<suseconds_t>(time_ns % 1000000000ull);  // nanoseconds with NANO precision
  h.caplen = static_cast<bpf_u_int32>(packet.size());
  h.len = h.caplen;
  pcap_dump(reinterpret_cast<u_char*>(impl_->dumper), &h, packet.data());
  return Status::success();
}

Status PcapWriter::flush() {
  if (pcap_dump_flush(impl_->dumper) != 0) return make_error(impl_->path + ": write failed");
  return Status::success();
}

}  // namespace hmtt::wire
