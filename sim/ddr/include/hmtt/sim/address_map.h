// The address map (architecture boundary 3): how a physical byte address splits
// into channel, rank, bank, row and column bits. One description is shared by the
// memory-controller model (to issue commands), the board (to rebuild physical
// addresses from ACTIVE rows and READ/WRITE columns, and to recognise the config
// space) and the host.
//
// Text form, most significant field first, each field with its width in bits:
//   "row:14,rank:1,bank:3,col:10,bus:3"   (open-page friendly: a row is contiguous)
//   "row:14,col:7,rank:1,bank:3,colLow:3,bus:3" (bank-interleaved by 64-byte bursts)
// Field names: row, col (may be split into col and colLow, high and low parts),
// bank, rank, channel, bus (the byte-in-bus-word offset, log2 of the bus width in
// bytes, never seen on the command bus). Columns have at most 10 bits (A0-A9).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hmtt/result.h"

namespace hmtt::sim {

struct DramCoordinates {
  std::uint32_t channel = 0;
  std::uint32_t rank = 0;
  std::uint32_t bank = 0;
  std::uint32_t row = 0;
  std::uint32_t column = 0;  // in bus words (the column address on the pins)
  std::uint32_t offset = 0;  // byte within the bus word

  friend bool operator==(const DramCoordinates&, const DramCoordinates&) = default;
};

class AddressMap {
 public:
  enum class Field : std::uint8_t { Row, Col, ColLow, Bank, Rank, Channel, Bus };
  struct Slice {
    Field field;
    unsigned width;
    unsigned shift;  // position of the slice's lowest bit in the physical address
  };

  static Result<AddressMap> parse(const std::string& text);
  // The two built-in maps, by name: "open-page" and "interleaved".
  static Result<AddressMap> builtin(const std::string& name);

  DramCoordinates decompose(std::uint64_t address) const;
  std::uint64_t compose(const DramCoordinates& c) const;

  unsigned total_bits() const { return total_bits_; }
  unsigned width(Field f) const;
  std::uint64_t capacity_bytes() const { return std::uint64_t{1} << total_bits_; }
  const std::vector<Slice>& slices() const { return slices_; }
  std::string text() const;

 private:
  std::vector<Slice> slices_;
  unsigned total_bits_ = 0;
};

}  // namespace hmtt::sim
