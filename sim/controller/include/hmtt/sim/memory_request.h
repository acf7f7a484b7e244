// Boundary 1 of the architecture: the memory request a workload hands to the
// memory-controller model, and the config space the board reserves.
//
// A request is what a CPU or a DMA engine asks of the memory system after the
// caches: a time (command-clock cycle at which it reaches the controller), a
// physical byte address, a size, read or write, who issued it, and the
// ground-truth label the scoreboards and accuracy checks use. The controller
// splits it into bursts (BL x bus width bytes each).
#pragma once

#include <cstdint>
#include <span>

#include "hmtt/reference.h"
#include "hmtt/result.h"

namespace hmtt::sim {

// What a request is, as the ground truth knows it.
enum class RequestLabel : std::uint8_t {
  Data = 0,          // an ordinary data access of the workload
  InnerCommand = 1,  // a config-space access at offset 0x0..0xFC0 (BEGIN, END, SYNC TAG, ...)
  UserEvent = 2,     // a config-space access at 0x1000 + 0x40*k
};

struct MemoryRequest {
  std::uint64_t time = 0;     // cycle at which the request reaches the controller
  std::uint64_t address = 0;  // physical byte address
  std::uint32_t size = 64;    // bytes, > 0
  bool write = false;
  Origin origin = Origin::Cpu;
  std::uint16_t source = 0;   // cpu id or DMA device id
  RequestLabel label = RequestLabel::Data;
  std::uint32_t tag = 0;      // workload-defined (micro-benchmark phase, config-space index, ...)
  friend bool operator==(const MemoryRequest&, const MemoryRequest&) = default;
};

// Pull-based stream of requests, in non-decreasing time: read() fills the front
// of `out` and returns the count; 0 = end.
class RequestSource {
 public:
  virtual ~RequestSource() = default;
  virtual Result<std::size_t> read(std::span<MemoryRequest> out) = 0;
};

// The board's reserved config space (paper section 4.3): by default the top
// 8 MiB of the physical address space. Index = (address - base) >> 6; indices
// 0..63 are inner commands, 64 + k is user event k (docs/wire-format.md 3.2).
struct ConfigSpace {
  static constexpr std::uint64_t kDefaultBytes = 8ull << 20;
  static constexpr std::uint32_t kBegin = 0;
  static constexpr std::uint32_t kEnd = 1;
  static constexpr std::uint32_t kSyncTag = 2;
  static constexpr std::uint32_t kFirstUserEvent = 64;

  std::uint64_t base = 0;
  std::uint64_t bytes = kDefaultBytes;

  // The top `bytes` of an address space of `capacity` bytes.
  static ConfigSpace at_top(std::uint64_t capacity, std::uint64_t bytes = kDefaultBytes) {
    return ConfigSpace{capacity - bytes, bytes};
  }
  bool contains(std::uint64_t address) const { return address >= base && address - base < bytes; }
  std::uint64_t address_of(std::uint32_t index) const { return base + (std::uint64_t{index} << 6); }
  std::uint32_t index_of(std::uint64_t address) const { return static_cast<std::uint32_t>((address - base) >> 6); }
  static RequestLabel label_of(std::uint32_t index) {
    return index < kFirstUserEvent ? RequestLabel::InnerCommand : RequestLabel::UserEvent;
  }
};

}  // namespace hmtt::sim
