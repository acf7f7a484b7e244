// Streams across the controller/board boundary.
//
// The memory-controller model produces, per channel, the cycles of its command
// bus that carry a command (NOP and DESELECT cycles are left out: they carry no
// information and the board's clock simply advances), and beside it the ground
// truth: every READ/WRITE it issued with the physical address it meant. Boards
// (the C++ model, the RTL under Verilator) consume the first; scoreboards compare
// what a board reports against the second.
#pragma once

#include <cstdint>
#include <span>

#include "hmtt/result.h"
#include "hmtt/sim/ddr_bus.h"

namespace hmtt::sim {

struct BusCycle {
  std::uint64_t cycle = 0;  // command-clock cycle number, strictly increasing
  DdrPins pins;
  friend bool operator==(const BusCycle&, const BusCycle&) = default;
};

// Pull-based: read() fills the front of `out`, returns the count; 0 = end.
class CommandBusSource {
 public:
  virtual ~CommandBusSource() = default;
  virtual Result<std::size_t> read(std::span<BusCycle> out) = 0;
};

// One READ or WRITE the controller issued (ground truth for the scoreboards).
struct IssuedAccess {
  std::uint64_t cycle = 0;     // cycle of the READ/WRITE command
  std::uint64_t address = 0;   // physical byte address of the burst
  std::uint64_t request = 0;   // id of the memory request it serves
  std::uint8_t channel = 0;
  bool write = false;
  bool config_space = false;   // falls in the board's config space (becomes an EVENT)
  friend bool operator==(const IssuedAccess&, const IssuedAccess&) = default;
};

}  // namespace hmtt::sim
