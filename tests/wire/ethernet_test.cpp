#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "hmtt/wire/ethernet.h"
#include "hmtt/wire/frame.h"

using namespace hmtt::wire;

TEST_CASE("a frame travels in a valid Ethernet/IPv4/UDP packet and comes back") {
  std::vector<std::uint8_t> payload(101);
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::uint8_t>(i * 7);
  LinkAddressing a;
  for (bool fcs : {false, true}) {
    auto p = udp_packet(a, 2, 3, payload, fcs);
    CHECK(p.size() == 14 + 20 + 8 + 101 + (fcs ? 4 : 0));
    UdpInfo info;
    auto got = udp_payload(p, fcs, &info);
    REQUIRE(got.ok());
    CHECK(std::vector<std::uint8_t>(got->begin(), got->end()) == payload);
    CHECK(info.dst_port == 7400 + 4 * 2 + 3);
    CHECK(info.src_ip == 0x0A480204);
    CHECK(info.dst_ip == a.host_ip);
    // any flipped bit in the headers or payload is caught by a checksum
    for (std::size_t i = 0; i < p.size(); ++i) {
      auto q = p;
      q[i] ^= 0x10;
      if (!fcs && i < 12) continue;  // MAC addresses are not covered without the FCS
      CHECK_FALSE(udp_payload(q, fcs).ok());
    }
  }
}

TEST_CASE("packet errors name the layer") {
  LinkAddressing a;
  std::vector<std::uint8_t> payload(10, 1);
  auto p = udp_packet(a, 0, 0, payload, false);
  auto short_p = std::vector<std::uint8_t>(p.begin(), p.begin() + 30);
  CHECK(udp_payload(short_p, false).error().message == "packet: 30 bytes is too short for Ethernet/IPv4/UDP");
  auto q = p;
  q[12] = 0x86;
  q[13] = 0xDD;
  CHECK_FALSE(udp_payload(q, false).ok());
  q = p;
  q[14 + 9] = 6;  // TCP, checksum now wrong too: header checksum is checked first
  CHECK(udp_payload(q, false).error().message == "packet: IPv4 header checksum mismatch");
  q = p;
  q[14 + 20 + 6] = 0;  // UDP checksum 0 means "not computed" and is accepted
  q[14 + 20 + 7] = 0;
  CHECK(udp_payload(q, false).ok());
}

TEST_CASE("pcap writer produces a file libpcap's format describes") {
  auto path = std::filesystem::temp_directory_path() / "hmtt_wire_test.pcap";
  {
    auto w = PcapWriter::create(path.string());
    REQUIRE(w.ok());
    std::vector<std::uint8_t> payload(40, 9);
    auto p = udp_packet(LinkAddressing{}, 0, 0, payload, false);
    REQUIRE((*w)->write(p, 1'500'000'123).ok());
    REQUIRE((*w)->write(p, 1'500'000'999).ok());
  }
  std::ifstream in(path, std::ios::binary);
  std::vector<std::uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // global header 24 bytes + 2 x (16-byte record header + 82-byte packet)
  CHECK(b.size() == 24 + 2 * (16 + 82));
  // nanosecond-resolution magic, little-endian host
  CHECK(b[0] == 0x4D);
  CHECK(b[1] == 0x3C);
  CHECK(b[2] == 0xB2);
  CHECK(b[3] == 0xA1);
  std::filesystem::remove(path);
}
