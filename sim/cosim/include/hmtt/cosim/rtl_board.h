// The Verilated RTL board (rtl/hmtt_board_top.v) behind a plain C++ interface,
// so that code built with hmtt's warnings never includes Verilator headers.
// One implementation per address map (the map is RTL parameters): make_rtl_board
// picks the one built for a map, by its text form.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "hmtt/result.h"
#include "hmtt/sim/ddr_bus.h"

namespace hmtt::cosim {

struct RtlSettings {
  std::uint8_t channel = 0;
  std::uint8_t board_id = 0;
  std::uint32_t cfg_base = 0;
  std::uint32_t cfg_size = 0;
  bool trace_on_reset = true;
  std::uint8_t links = 1;
  std::uint16_t records_per_frame = 288;
  std::uint32_t rate_q16 = 5u << 16;
  std::uint32_t clock_khz = 200000;
  std::array<std::uint8_t, 6> host_mac{0x02, 0x48, 0x4d, 0x54, 0xff, 0x00};
  std::uint32_t host_ip = 0x0A48FF01;
  std::uint16_t base_port = 7400;
  // Online units (docs/board.md 13): cycles per interval, 0 = off. Only the board built with the
  // units (make_rtl_board(map, true)) has them.
  std::uint32_t su_interval = 0;
  std::uint32_t rdhpu_interval = 0;
};

struct RtlCounters {
  std::uint64_t commands = 0, references = 0, events = 0, orphans = 0, dropped = 0, loss_records = 0, frames = 0;
  std::uint32_t high_water = 0;
  std::uint64_t reports = 0;
  std::uint32_t reports_lost = 0;
  bool overrun = false;
};

class RtlBoard {
 public:
  virtual ~RtlBoard() = default;
  // Holds reset, applies the settings, releases reset: the next cycle is board time 0.
  virtual void reset(const RtlSettings& s) = 0;
  // One command-clock cycle with these pins on the bus.
  virtual void cycle(const sim::DdrPins& pins) = 0;
  // n cycles of DESELECT.
  virtual void idle(std::uint64_t n) = 0;
  virtual void set_flush(bool on) = 0;
  virtual bool drained() = 0;
  virtual RtlCounters counters() = 0;
  virtual std::uint64_t now() const = 0;  // board time of the next cycle
  // Ethernet frames (with FCS) received per link, oldest first.
  std::array<std::deque<std::vector<std::uint8_t>>, 4> packets;
  std::uint64_t bytes = 0;
};

// Built-in maps: "row:14,rank:1,bank:3,col:10,bus:3" (open-page) and
// "row:14,col:7,rank:1,bank:3,colLow:3,bus:3" (interleaved). FIFO depth 16384.
// with_units: the board with the Statistic Unit and the RDHPU built in (hot-page
// entries kRtlHotK; open-page map only).
inline constexpr unsigned kRtlHotK = 8;
Result<std::unique_ptr<RtlBoard>> make_rtl_board(const std::string& map_text, bool with_units = false);

}  // namespace hmtt::cosim
