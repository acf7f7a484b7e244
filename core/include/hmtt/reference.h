// The decoded memory reference: the one record every part of hmtt exchanges.
//
// A Reference is what the board saw (or an importer read): when, where, what
// kind of access, how many bytes, and who issued it when that is known. Time is
// an integer count of ticks; the tick period is a property of the capture
// (CaptureInfo::tick_ps), e.g. one DDR command-clock cycle (5000 ps at 200 MHz),
// or one record for traces that carry no time.
#pragma once

#include <cstdint>
#include <string_view>

namespace hmtt {

enum class Kind : std::uint8_t {
  Read = 0,    // data load (board: READ command)
  Write = 1,   // data store (board: WRITE command)
  IFetch = 2,  // instruction fetch (imported traces only)
  Modify = 3,  // read-modify-write of one location (Valgrind lackey 'M')
};
inline constexpr int kKindCount = 4;

enum class Origin : std::uint8_t {
  Unknown = 0,      // not known (e.g. a plain board trace)
  Cpu = 1,          // issued by a CPU; Reference::source is the cpu id
  Dma = 2,          // device DMA observed; Reference::source is the device id
  DmaModelled = 3,  // device DMA modelled from the logged DMA mappings
};

struct Reference {
  std::uint64_t time = 0;     // ticks since the capture's time origin
  std::uint64_t address = 0;  // byte address (physical for board captures)
  std::uint32_t size = 0;     // bytes; 0 = one address unit of the source
  Kind kind = Kind::Read;
  Origin origin = Origin::Unknown;
  std::uint16_t source = 0;   // cpu id or device id, see Origin

  friend bool operator==(const Reference&, const Reference&) = default;
};
static_assert(sizeof(Reference) == 24, "Reference is a 24-byte value type");

constexpr bool is_write(Kind k) { return k == Kind::Write || k == Kind::Modify; }

constexpr std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::Read: return "read";
    case Kind::Write: return "write";
    case Kind::IFetch: return "ifetch";
    case Kind::Modify: return "modify";
  }
  return "?";
}

constexpr std::string_view origin_name(Origin o) {
  switch (o) {
    case Origin::Unknown: return "unknown";
    case Origin::Cpu: return "cpu";
    case Origin::Dma: return "dma";
    case Origin::DmaModelled: return "dma-modelled";
  }
  return "?";
}

}  // namespace hmtt
