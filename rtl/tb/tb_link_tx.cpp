// Bench of hmtt_link_tx: frames made by FrameEncoder are written record by
// record, closed, and must come out as exactly udp_packet(..., with_fcs=true),
// with this link's sequence numbers, under random tx_ready throttling.
#include <doctest/doctest.h>

#include <random>

#include "hmtt/wire/ethernet.h"
#include "hmtt/wire/frame.h"
#include "tb_common.h"

using namespace hmtt;

TEST_CASE("hmtt_link_tx sends udp_packet's bytes, FCS included") {
  for (unsigned link = 0; link < 4; link += 3) {
    CAPTURE(link);
    std::mt19937_64 rng(link + 5);
    wire::EncoderConfig ec;
    ec.board = 3;
    ec.links = 4;
    ec.clock_khz = 133333;
    ec.records_per_frame = 288;
    auto enc = *wire::FrameEncoder::create(ec);
    std::uint64_t t = 1000;
    for (int i = 0; i < 40000; ++i) {
      t += rng() % 5000;
      REQUIRE(enc.add_reference(t, static_cast<std::uint32_t>(rng()) & ~63u, rng() & 1).ok());
      if (rng() % 2000 == 0) enc.flush();  // some short frames
    }
    enc.flush();
    std::vector<wire::EncodedFrame> frames;
    while (enc.has_frame()) {
      auto f = enc.pop_frame();
      if (f.link == link) frames.push_back(std::move(f));
    }
    REQUIRE(frames.size() > 20);
    wire::LinkAddressing la;
    la.host_mac = {0x00, 0x1b, 0x21, 0x3a, 0x4b, 0x5c};
    la.host_ip = 0xC0A80105;
    la.base_port = 9000;

    tb::Bench<Vhmtt_link_tx> b;
    b.dut->board_id_i = ec.board;
    b.dut->link_id_i = link;
    b.dut->clock_khz_i = ec.clock_khz;
    std::uint64_t mac = 0;
    for (auto x : la.host_mac) mac = (mac << 8) | x;
    b.dut->host_mac_i = mac;
    b.dut->host_ip_i = la.host_ip;
    b.dut->base_port_i = la.base_port;
    b.dut->wr_valid_i = 0;
    b.dut->close_i = 0;
    b.dut->tx_ready_i = 1;
    b.reset();
    std::vector<std::vector<std::uint8_t>> out;
    std::vector<std::uint8_t> cur;
    std::size_t next_frame = 0, next_rec = 0;
    for (std::uint64_t cyc = 0; cyc < 4000000 && out.size() < frames.size(); ++cyc) {
      // Feed: one record per cycle while fewer than 3 frames are waiting, then the close.
      b.dut->wr_valid_i = 0;
      b.dut->close_i = 0;
      if (next_frame < frames.size() && next_frame < out.size() + 3) {
        const auto& f = frames[next_frame];
        const auto h = *wire::parse_header(f.bytes);
        b.dut->wr_valid_i = 1;
        b.dut->wr_rec_i = wire::get_record(f.bytes.data() + wire::kHeaderBytes + wire::kRecordBytes * next_rec);
        if (++next_rec == h.count) {
          b.dut->close_i = 1;
          b.dut->close_count_i = h.count;
          b.dut->close_base_i = h.base_time;
          b.dut->close_flag_i = h.flags;
          ++next_frame;
          next_rec = 0;
        }
      }
      b.dut->tx_ready_i = rng() % 4 != 0;
      b.settle();
      if (b.dut->tx_valid_o && b.dut->tx_ready_i) {
        cur.push_back(b.dut->tx_data_o);
        if (b.dut->tx_last_o) {
          out.push_back(cur);
          cur.clear();
        }
      }
      b.edge();
    }
    REQUIRE(out.size() == frames.size());
    for (std::size_t i = 0; i < frames.size(); ++i) {
      CAPTURE(i);
      CHECK(out[i] == wire::udp_packet(la, ec.board, static_cast<std::uint8_t>(link), frames[i].bytes, true));
    }
    CHECK_FALSE(b.dut->overrun_o);
    CHECK(b.dut->idle_o);
  }
}
