// hmtt_link_sender: a stand-in for a board's links, for tests, benchmarks and
// bring-up. Generates a synthetic board's frames (SyntheticBoard, wire codec)
// and either writes them as Ethernet/IPv4/UDP packets to a pcap file, or sends
// them over UDP at a paced rate, one socket per link.
//
//   hmtt_link_sender --pcap out.pcap --refs N [--boards B] [--links L] [--fcs] [--noise]
//   hmtt_link_sender --udp 127.0.0.1 --links 3 --mbps 1000 --duration 60 [--base-port 7400] [--no-gso]
//
// UDP mode pre-generates a pool of frames and replays it with the sequence
// numbers and base_time moved on (and the CRC re-sealed) each round, so the
// stream never repeats itself to the receiver. The rate is per link, counted
// in Gigabit Ethernet line bytes (frame + UDP/IP/Ethernet headers, FCS,
// preamble and inter-frame gap: 1538 bytes for a full frame).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "hmtt/host/checksums.h"
#include "hmtt/host/synthetic_board.h"
#include "hmtt/wire/ethernet.h"

using namespace hmtt;

namespace {

struct Args {
  std::string pcap, udp;
  std::size_t refs = 1'000'000;
  unsigned boards = 1, links = 3;
  bool fcs = false, noise = false;
  double mbps = 1000, duration = 10;
  unsigned base_port = wire::kDefaultBasePort;
  std::size_t pool_refs = 4'000'000;
  std::uint64_t seed = 1;
  double loss_rate = 0.0002;
  bool gso = true;  // UDP generic segmentation offload: one send per 32 frames
};

[[noreturn]] void usage(const char* msg) {
  std::fprintf(stderr, "hmtt_link_sender: %s\n", msg);
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  CLI::App app{
      "A stand-in for a board's links: a synthetic board's frames written as Ethernet/IPv4/UDP packets to a pcap "
      "file (--pcap), or sent over UDP at a paced rate, one socket per link (--udp). UDP mode prints one JSON "
      "object with what was sent."};
  app.add_option("--pcap", a.pcap, "write the frames to this pcap file");
  app.add_option("--udp", a.udp, "send to this IPv4 host");
  app.add_option("--refs", a.refs, "references to generate (pcap mode)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 36));
  app.add_option("--boards", a.boards, "boards")->capture_default_str()->check(CLI::Range(1u, 16u));
  app.add_option("--links", a.links, "links per board")->capture_default_str()->check(CLI::Range(1u, 4u));
  app.add_flag("--fcs", a.fcs, "append the Ethernet FCS to every packet (pcap mode)");
  app.add_flag("--noise", a.noise, "mix in packets that are not HMTT frames (pcap mode)");
  app.add_option("--mbps", a.mbps, "rate per link in Mb/s of Gigabit Ethernet line bytes (UDP mode)")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 100000.0));
  app.add_option("--duration", a.duration, "seconds to send (UDP mode)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 86400.0));
  app.add_option("--base-port", a.base_port, "UDP port of board 0's link 0 (board b's link l: base + 4 b + l)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 65535u - 64u));
  app.add_option("--pool-refs", a.pool_refs, "references pre-generated and replayed (UDP mode)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 32));
  app.add_option("--seed", a.seed, "random seed")->capture_default_str();
  app.add_option("--loss-rate", a.loss_rate, "the synthetic board's FIFO-overflow rate")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  bool no_gso = false;
  app.add_flag("--no-gso", no_gso, "one send per frame instead of UDP GSO batches of 32");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  a.gso = !no_gso;
  if (a.pcap.empty() == a.udp.empty()) usage("give exactly one of --pcap FILE or --udp HOST");
  return a;
}

std::vector<std::vector<wire::EncodedFrame>> generate(const Args& a, std::size_t refs) {
  std::vector<std::vector<wire::EncodedFrame>> out(a.boards);
  for (unsigned b = 0; b < a.boards; ++b) {
    host::SyntheticConfig c;
    c.board = static_cast<std::uint8_t>(b);
    c.links = static_cast<std::uint8_t>(a.links);
    c.seed = a.seed * 100 + b;
    c.loss_rate = a.loss_rate;
    auto sb = host::SyntheticBoard::create(c);
    if (!sb) usage(sb.error().message.c_str());
    auto s = sb->generate(refs, out[b], nullptr);
    if (!s.ok()) usage(s.error().message.c_str());
  }
  return out;
}

int write_pcap(const Args& a) {
  auto frames = generate(a, a.refs);
  auto w = wire::PcapWriter::create(a.pcap);
  if (!w) usage(w.error().message.c_str());
  wire::LinkAddressing addr;
  addr.base_port = static_cast<std::uint16_t>(a.base_port);
  std::uint64_t t = 1'700'000'000'000'000'000ull, n = 0;
  std::vector<std::size_t> at(a.boards, 0);
  for (bool more = true; more;) {
    more = false;
    for (unsigned b = 0; b < a.boards; ++b) {
      if (at[b] >= frames[b].size()) continue;
      more = true;
      const auto& f = frames[b][at[b]++];
      auto p = wire::udp_packet(addr, static_cast<std::uint8_t>(b), f.link, f.bytes, a.fcs);
      if (!(*w)->write(p, t += 1000).ok()) usage("pcap write failed");
      ++n;
      if (a.noise && n % 4 == 0) {  // other traffic on the wire: ARP, and UDP to port 53
        std::vector<std::uint8_t> arp(60, 0);
        arp[12] = 0x08;
        arp[13] = 0x06;
        (void)(*w)->write(arp, t += 10);
        wire::LinkAddressing dns;
        dns.base_port = 53;
        const std::uint8_t q[12] = {1, 2, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0};
        (void)(*w)->write(wire::udp_packet(dns, 0, 0, q, false), t += 10);
      }
    }
  }
  if (!(*w)->flush().ok()) usage("pcap flush failed");
  std::fprintf(stderr, "hmtt_link_sender: %llu frames to %s\n", static_cast<unsigned long long>(n), a.pcap.c_str());
  return 0;
}

void put32(std::uint32_t v, std::uint8_t* p) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}
void put64(std::uint64_t v, std::uint8_t* p) {
  put32(static_cast<std::uint32_t>(v >> 32), p);
  put32(static_cast<std::uint32_t>(v), p + 4);
}
std::uint32_t get32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}
std::uint64_t get64(const std::uint8_t* p) { return (std::uint64_t{get32(p)} << 32) | get32(p + 4); }

int send_udp(const Args& a) {
  if (a.boards != 1) usage("--udp sends one board");
  auto pool = generate(a, a.pool_refs)[0];
  // Whole rounds of the links: trim to a multiple of the link count.
  pool.resize(pool.size() / a.links * a.links);
  if (pool.empty()) usage("--pool-refs too small");
  const std::uint64_t span = get64(pool.back().bytes.data() + 16) + 10000000;  // time one round covers (beyond the last record)
  const std::uint32_t per_link = static_cast<std::uint32_t>(pool.size() / a.links);
  std::vector<int> fds(a.links);
  bool gso = a.gso;
  for (unsigned l = 0; l < a.links; ++l) {
    fds[l] = socket(AF_INET, SOCK_DGRAM, 0);
    int sz = 16 << 20;
    setsockopt(fds[l], SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof sz);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<std::uint16_t>(a.base_port + l));
    if (inet_pton(AF_INET, a.udp.c_str(), &to.sin_addr) != 1) usage("--udp: not an IPv4 address");
    if (connect(fds[l], reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) usage("connect failed");
    int seg = static_cast<int>(wire::kMaxFrameBytes);
    if (gso && setsockopt(fds[l], SOL_UDP, UDP_SEGMENT, &seg, sizeof seg) != 0) gso = false;
  }
  // Line bytes per frame: payload + UDP 8 + IPv4 20 + Ethernet 14 + FCS 4 + preamble 8 + gap 12.
  const double frames_per_s = a.mbps * 1e6 / 8.0 / (1472.0 + 66.0) * a.links;
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t sent = 0, bytes = 0, send_errors = 0;
  std::size_t at = 0;
  std::uint64_t round = 0;
  constexpr unsigned kBatch = 32;
  std::vector<std::vector<mmsghdr>> msgs(a.links, std::vector<mmsghdr>(kBatch));
  std::vector<std::vector<iovec>> iov(a.links, std::vector<iovec>(kBatch));
  std::vector<unsigned> fill(a.links, 0);
  for (;;) {
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (el >= a.duration) break;
    const auto due = static_cast<std::uint64_t>(el * frames_per_s);
    if (sent >= due) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      continue;
    }
    std::uint64_t todo = std::min<std::uint64_t>(due - sent, 4096);
    while (todo > 0) {
      auto& f = pool[at];
      // Move the frame on by whole rounds: sequence and base_time, then re-seal the CRC.
      const std::uint32_t seq = static_cast<std::uint32_t>(round * per_link + at / a.links);
      put32(seq, f.bytes.data() + 12);
      if (round > 0) {
        // base_time = original + round * span (stored original in the pool's first pass)
        const std::uint64_t base = get64(f.bytes.data() + 16);
        put64(base + span, f.bytes.data() + 16);
      }
      const std::size_t n = f.bytes.size() - 4;
      put32(host::fast_crc32(std::span<const std::uint8_t>(f.bytes.data(), n)), f.bytes.data() + n);
      const unsigned l = f.link;
      if (gso) {
        // One sendmsg per group of full frames: the kernel cuts it into 1472-byte datagrams.
        iov[l][fill[l]] = iovec{f.bytes.data(), f.bytes.size()};
        if (++fill[l] == kBatch || f.bytes.size() != wire::kMaxFrameBytes) {
          msghdr m{};
          m.msg_iov = iov[l].data();
          m.msg_iovlen = fill[l];
          if (sendmsg(fds[l], &m, 0) < 0) ++send_errors;
          fill[l] = 0;
        }
      } else {
        auto& m = msgs[l][fill[l]];
        std::memset(&m, 0, sizeof m);
        iov[l][fill[l]] = iovec{f.bytes.data(), f.bytes.size()};
        m.msg_hdr.msg_iov = &iov[l][fill[l]];
        m.msg_hdr.msg_iovlen = 1;
        if (++fill[l] == kBatch) {
          const int r = sendmmsg(fds[l], msgs[l].data(), kBatch, 0);
          if (r < static_cast<int>(kBatch)) send_errors += kBatch - static_cast<unsigned>(r < 0 ? 0 : r);
          fill[l] = 0;
        }
      }
      bytes += f.bytes.size();
      ++sent;
      --todo;
      if (++at == pool.size()) {
        at = 0;
        ++round;
      }
    }
  }
  for (unsigned l = 0; l < a.links; ++l) {
    if (!fill[l]) continue;
    if (gso) {
      msghdr m{};
      m.msg_iov = iov[l].data();
      m.msg_iovlen = fill[l];
      sendmsg(fds[l], &m, 0);
    } else {
      sendmmsg(fds[l], msgs[l].data(), fill[l], 0);
    }
  }
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("{\"frames\": %llu, \"records_per_frame\": 288, \"seconds\": %.3f, \"frames_per_s\": %.0f, "
              "\"payload_mbps\": %.1f, \"send_errors\": %llu, \"last_sequence\": %llu, \"gso\": %s}\n",
              static_cast<unsigned long long>(sent), el, static_cast<double>(sent) / el,
              static_cast<double>(bytes) * 8 / el / 1e6, static_cast<unsigned long long>(send_errors),
              static_cast<unsigned long long>(sent / a.links), gso ? "true" : "false");
  for (int fd : fds) close(fd);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  return a.pcap.empty() ? send_udp(a) : write_pcap(a);
}
