// pcap files through PcapSource and run_capture: Ethernet with and without
// FCS, other traffic skipped and counted, a damaged packet counted against its
// link, a truncated file reported with its name.
#include <doctest/doctest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/stat.h>

#include "frame_streams.h"
#include "hmtt/host/capture.h"
#include "hmtt/host/link_merger.h"
#include "hmtt/host/pcap_source.h"
#include "hmtt/host/udp_source.h"
#include "hmtt/wire/ethernet.h"

using namespace hmtt;
using namespace hmtt::host;

namespace {

struct PcapCase {
  std::filesystem::path path;
  std::vector<const test::WireFrame*> survivors;
  std::uint64_t noise = 0;
};

PcapCase write_case(const test::Traffic& t, const std::string& name) {
  PcapCase c;
  c.path = std::filesystem::temp_directory_path() / name;
  auto w = wire::PcapWriter::create(c.path.string());
  REQUIRE(w.ok());
  wire::LinkAddressing addr;
  std::uint64_t ns = 1000;
  for (std::size_t i = 0; i < t.frames.size(); ++i) {
    const auto& f = t.frames[i];
    // Board 1's NIC keeps the FCS; board 0's strips it.
    auto p = wire::udp_packet(addr, static_cast<std::uint8_t>(f.board), f.link, f.bytes, f.board == 1);
    if (i == 5) p[p.size() - (f.board == 1 ? 5 : 1)] ^= 0x40;  // damaged on the way: UDP checksum fails
    else c.survivors.push_back(&f);
    REQUIRE((*w)->write(p, ns += 1000).ok());
    if (i % 10 == 0) {
      std::vector<std::uint8_t> arp(60, 0);
      arp[12] = 0x08;
      arp[13] = 0x06;
      REQUIRE((*w)->write(arp, ns += 10).ok());
      wire::LinkAddressing dns;
      dns.base_port = 53;
      const std::uint8_t q[12] = {1, 2, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0};
      REQUIRE((*w)->write(wire::udp_packet(dns, 0, 0, q, false), ns += 10).ok());
      c.noise += 2;
    }
  }
  REQUIRE((*w)->flush().ok());
  return c;
}

}  // namespace

TEST_CASE("pcap file: FCS or not, other traffic skipped, a damaged packet counted against its link") {
  auto t = test::make_traffic(2, 2, 20000, 21);
  auto c = write_case(t, "hmtt_receiver_test.pcap");
  for (bool threads : {false, true}) {
    auto src = PcapSource::open_file(c.path.string());
    REQUIRE(src.ok());
    std::vector<std::unique_ptr<LinkSource>> sources;
    sources.push_back(std::move(*src));
    MemoryCaptureSink sink;
    Receiver rx(sink, {});
    CaptureOptions o;
    o.reader_threads = threads;
    auto st = run_capture(sources, rx, o, nullptr, {});
    REQUIRE(st.ok());
    CHECK(sink.references() == test::expected_merge(c.survivors));
    CHECK(st->non_hmtt == c.noise);
    CHECK(st->packets == t.frames.size() + c.noise);
    CHECK(st->totals.bad_frames == 1);
    CHECK(st->totals.gap_frames == 1);
    const auto& damaged = t.frames[5];
    for (const auto& l : st->links) {
      const bool hit = l.board == damaged.board && l.link == damaged.link;
      CHECK(l.bad_frames == (hit ? 1u : 0u));
      CHECK(l.gap_frames == (hit ? 1u : 0u));
    }
    CHECK(sink.meta().at("receiver.non_hmtt_packets") == std::to_string(c.noise));
    CHECK(sink.meta().at("receiver.board_clock_khz") == "200000");
    CHECK(sink.meta().at("receiver.interrupted") == "0");
    REQUIRE(rx.bad_samples().size() == 1);
    CHECK(rx.bad_samples()[0].find("UDP checksum mismatch") != std::string::npos);
  }
  std::filesystem::remove(c.path);
}

TEST_CASE("pcap file read ahead: the streams of its first references, each frame counted once") {
  auto t = test::make_traffic(2, 2, 20000, 31);
  // Board 0's frames first, then board 1's: board 1 first appears after board 0's references.
  // Ahead of them two copies of a board-1 frame, one with a bad CRC and one with a bad UDP checksum
  // (no stream: the capture rejects both), and the first frame 50
  // times over (counted once: counted each time, the window would end before board 1).
  std::vector<const test::WireFrame*> order;
  std::size_t board0_refs = 0;
  wire::DecodedFrame d;
  for (const auto& f : t.frames) {
    if (f.board != 0) continue;
    order.push_back(&f);
    REQUIRE(wire::decode_frame(f.bytes, d).ok());
    board0_refs += d.refs.size();
  }
  for (const auto& f : t.frames)
    if (f.board == 1) order.push_back(&f);
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "hmtt_read_ahead_test.pcap";
  {
    auto w = wire::PcapWriter::create(path.string());
    REQUIRE(w.ok());
    wire::LinkAddressing addr;
    std::uint64_t ns = 1000;
    // damage 1: a record bit (the CRC fails); 2: the UDP checksum field (the CRC holds).
    auto put = [&](const test::WireFrame& f, int damage) {
      auto bytes = f.bytes;
      if (damage == 1) bytes[wire::kHeaderBytes] ^= 1;
      auto packet = wire::udp_packet(addr, static_cast<std::uint8_t>(f.board), f.link, bytes, false);
      if (damage == 2) packet[14 + 20 + 6] ^= 0x5A;
      REQUIRE((*w)->write(packet, ns += 1000).ok());
    };
    put(*order.back(), 1);
    put(*order.back(), 2);
    for (int k = 0; k < 50; ++k) put(*order.front(), 0);
    for (const auto* f : order) put(*f, 0);
    REQUIRE((*w)->flush().ok());
  }
  auto src = PcapSource::open_file(path.string());
  REQUIRE(src.ok());
  const std::vector<std::uint16_t> board0 = {LinkMerger::stream_id(0, 0), LinkMerger::stream_id(0, 1)};
  const std::vector<std::uint16_t> every = {board0[0], board0[1], LinkMerger::stream_id(1, 0), LinkMerger::stream_id(1, 1)};
  CHECK((*src)->streams_ahead(board0_refs - 1) == std::optional(board0));
  // One reference more than board 0 has: the window takes board 1's first frame.
  const auto at_edge = (*src)->streams_ahead(board0_refs);
  REQUIRE(at_edge.has_value());
  CHECK(at_edge->size() == 3);
  CHECK((*src)->streams_ahead(std::size_t{1} << 40) == std::optional(every));
  // The read-ahead took nothing from the source: a capture reads every frame, and the merge is
  // the ground truth (the damaged frame counted bad, the copies as duplicates).
  std::vector<std::unique_ptr<LinkSource>> sources;
  sources.push_back(std::move(*src));
  MemoryCaptureSink sink;
  Receiver rx(sink, {});
  auto st = run_capture(sources, rx, {}, nullptr, {});
  REQUIRE(st.ok());
  CHECK(st->packets == order.size() + 52);
  CHECK(st->totals.bad_frames == 2);
  std::vector<const test::WireFrame*> all;
  for (const auto& f : t.frames) all.push_back(&f);
  CHECK(sink.references() == test::expected_merge(all));
  // A capture in memory reads ahead the same way.
  std::ifstream file(path, std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  auto mem = PcapSource::open_buffer(bytes, "memory");
  REQUIRE(mem.ok());
  CHECK((*mem)->streams_ahead(board0_refs - 1) == std::optional(board0));
  CHECK((*mem)->streams_ahead(std::size_t{1} << 40) == std::optional(every));
  // A FIFO is not read twice: its bytes would be gone for the capture.
  const std::filesystem::path fifo = std::filesystem::temp_directory_path() / "hmtt_read_ahead_test.fifo";
  std::filesystem::remove(fifo);
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                                        static_cast<std::streamsize>(bytes.size())); });
  {
    auto piped = PcapSource::open_file(fifo.string());
    REQUIRE(piped.ok());
    CHECK_FALSE((*piped)->streams_ahead(1000).has_value());
    std::vector<std::unique_ptr<LinkSource>> one;
    one.push_back(std::move(*piped));
    MemoryCaptureSink fifo_sink;
    Receiver fifo_rx(fifo_sink, {});
    REQUIRE(run_capture(one, fifo_rx, {}, nullptr, {}).ok());
    CHECK(fifo_sink.references() == test::expected_merge(all));
  }
  writer.join();
  std::filesystem::remove(fifo);
  std::filesystem::remove(path);
}

TEST_CASE("pcap file: truncated or foreign files are errors naming the file") {
  auto t = test::make_traffic(1, 1, 3000, 22);
  auto c = write_case(t, "hmtt_receiver_trunc.pcap");
  const auto size = std::filesystem::file_size(c.path);
  std::filesystem::resize_file(c.path, size - 100);
  auto src = PcapSource::open_file(c.path.string());
  REQUIRE(src.ok());
  std::vector<std::unique_ptr<LinkSource>> sources;
  sources.push_back(std::move(*src));
  MemoryCaptureSink sink;
  Receiver rx(sink, {});
  auto st = run_capture(sources, rx, {}, nullptr, {});
  REQUIRE(!st.ok());
  CHECK(st.error().message.find(c.path.string()) == 0);
  CHECK(sink.finished());  // what arrived before the damage is still committed
  CHECK(!sink.references().empty());

  std::ofstream(c.path, std::ios::binary) << "not a capture at all";
  auto bad = PcapSource::open_file(c.path.string());
  REQUIRE(!bad.ok());
  CHECK(bad.error().message.find(c.path.string()) == 0);
  std::filesystem::remove(c.path);

  auto missing = PcapSource::open_file(c.path.string());
  REQUIRE(!missing.ok());
  CHECK(missing.error().message == c.path.string() + ": cannot open: No such file or directory");
}

TEST_CASE("--udp port lists") {
  auto p = parse_ports("7400-7402,7410");
  REQUIRE(p.ok());
  CHECK(*p == std::vector<std::uint16_t>{7400, 7401, 7402, 7410});
  CHECK(!parse_ports("7402-7400").ok());
  CHECK(!parse_ports("http").ok());
  CHECK(!parse_ports("70000").ok());
}

TEST_CASE("StopSignal turns SIGINT and SIGTERM into a flag; a capture stops and finishes its sink") {
  for (int sig : {SIGINT, SIGTERM}) {
    StopSignal stop;
    CHECK(!stop.requested());
    REQUIRE(raise(sig) == 0);
    CHECK(stop.requested());
    CHECK(stop.signal_number() == sig);
  }
  // A stopped capture: the file is only partly read, the sink is finished with what arrived.
  auto t = test::make_traffic(1, 2, 5000, 23);
  auto c = write_case(t, "hmtt_receiver_stop.pcap");
  StopSignal stop;
  REQUIRE(raise(SIGINT) == 0);
  auto src = PcapSource::open_file(c.path.string());
  REQUIRE(src.ok());
  std::vector<std::unique_ptr<LinkSource>> sources;
  sources.push_back(std::move(*src));
  MemoryCaptureSink sink;
  Receiver rx(sink, {});
  auto st = run_capture(sources, rx, {}, &stop, {});
  REQUIRE(st.ok());
  CHECK(st->interrupted);
  CHECK(st->signal_number == SIGINT);
  CHECK(sink.finished());
  std::filesystem::remove(c.path);
}

TEST_CASE("UDP checksums from checksum offload: rejected in files by default, accepted when told") {
  auto t = test::make_traffic(1, 1, 2000, 24);
  FrameBatch strict, lax;
  for (const auto& f : t.frames) {
    auto p = wire::udp_packet({}, 0, 0, f.bytes, false);
    p[14 + 20 + 6] ^= 0x5A;  // an unfinished (offloaded) checksum
    CHECK(classify_ethernet(p, {}, 0, strict, true));
    CHECK(classify_ethernet(p, {}, 0, lax, false));
  }
  REQUIRE(strict.frames.size() == t.frames.size());
  for (const auto& f : strict.frames) CHECK(f.rejected);
  for (std::size_t i = 0; i < lax.frames.size(); ++i) {
    CHECK(!lax.frames[i].rejected);
    const auto payload = lax.payload(lax.frames[i]);
    CHECK(std::vector<std::uint8_t>(payload.begin(), payload.end()) == t.frames[i].bytes);
  }
}
