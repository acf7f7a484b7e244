// A small stand-in for the memory controller, for the board's own tests and
// the co-simulation before the SystemC controller is available: it turns a list
// of accesses into a timing-legal command bus (ACTIVE/READ/WRITE/PRECHARGE,
// PRECHARGE ALL + REFRESH every tREFI, across banks and ranks) and records the
// ground truth (hmtt::sim::IssuedAccess). Open-page: a row stays open until a
// conflicting access or a refresh; auto-precharge on a configurable share.
#pragma once

#include <cstdint>
#include <vector>

#include "hmtt/sim/address_map.h"
#include "hmtt/sim/command_stream.h"

namespace hmtt::board {

struct SequencerTiming {
  unsigned t_rcd = 3;     // ACTIVE -> READ/WRITE
  unsigned t_rp = 3;      // PRECHARGE -> ACTIVE
  unsigned t_ccd = 4;     // READ/WRITE -> READ/WRITE (BL8)
  unsigned t_rfc = 26;    // REFRESH -> anything
  unsigned t_refi = 1560; // refresh interval (0 = never)
  unsigned auto_precharge_every = 0;  // every n-th access uses A10 (0 = never)
};

struct Access {
  std::uint64_t address = 0;
  bool write = false;
  std::uint32_t gap = 0;  // idle cycles before this access may start
};

class AccessSequencer {
 public:
  AccessSequencer(const sim::AddressMap& map, const SequencerTiming& timing, std::uint64_t start_cycle = 8);
  void add(const Access& a);
  void add(std::uint64_t address, bool write, std::uint32_t gap = 0) { add(Access{address, write, gap}); }

  const std::vector<sim::BusCycle>& bus() const { return bus_; }
  const std::vector<sim::IssuedAccess>& issued() const { return issued_; }
  std::uint64_t cycle() const { return now_; }
  // Marks issued accesses in [base, base+size) as config space.
  void mark_config_space(std::uint64_t base, std::uint64_t size);

 private:
  void emit(const sim::DdrCommandWord& w);
  void refresh_if_due();

  sim::AddressMap map_;
  SequencerTiming t_;
  std::uint64_t now_;
  std::uint64_t next_refresh_;
  std::uint64_t last_cas_ = 0;
  std::uint64_t count_ = 0;
  std::vector<std::int32_t> open_row_;  // per rank*8+bank, -1 closed
  std::vector<sim::BusCycle> bus_;
  std::vector<sim::IssuedAccess> issued_;
};

}  // namespace hmtt::board
