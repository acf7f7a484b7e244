// The DDR command bus as a DIMM interposer sees it: per command-clock cycle,
// chip selects (one per rank), RAS#, CAS#, WE#, bank address and address pins.
// This is boundary 2 of the architecture: the memory-controller model drives
// it, the board (RTL or C++ model) only ever sees it.
#pragma once

#include <cstdint>
#include <string_view>

namespace hmtt::sim {

enum class DdrCommand : std::uint8_t {
  Deselect = 0,      // no rank selected
  Nop = 1,
  Active = 2,        // open a row: ba = bank, a = row
  Read = 3,          // column read: ba = bank, a = column (A10 = auto-precharge)
  Write = 4,         // column write
  Precharge = 5,     // close the row of bank ba (A10 = 0)
  PrechargeAll = 6,  // close all rows (A10 = 1)
  Refresh = 7,       // auto refresh (all banks closed before)
  ModeRegister = 8,  // mode register set (ignored by the board)
};

std::string_view command_name(DdrCommand c);

// The pins of one cycle. Active-low signals carry their electrical value
// (0 = asserted). cs_n has one bit per rank (bit r low = rank r selected).
struct DdrPins {
  std::uint8_t cs_n = 0xFF;
  bool ras_n = true;
  bool cas_n = true;
  bool we_n = true;
  std::uint8_t ba = 0;    // bank address BA2..BA0
  std::uint16_t a = 0;    // address A15..A0 (A10 = auto-precharge / precharge-all)

  friend bool operator==(const DdrPins&, const DdrPins&) = default;
};

// A decoded command with its rank (the JEDEC truth table).
struct DdrCommandWord {
  DdrCommand cmd = DdrCommand::Deselect;
  std::uint8_t rank = 0;
  std::uint8_t bank = 0;
  std::uint16_t addr = 0;  // row for Active, column for Read/Write (A10 cleared), 0 otherwise
  bool auto_precharge = false;

  friend bool operator==(const DdrCommandWord&, const DdrCommandWord&) = default;
};

inline constexpr unsigned kAutoPrechargeBit = 10;

DdrPins encode_pins(const DdrCommandWord& w);
// Decodes pins; more than one rank selected decodes as Deselect (illegal on a real bus).
DdrCommandWord decode_pins(const DdrPins& p);

}  // namespace hmtt::sim
