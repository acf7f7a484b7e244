// The bit-exact C++ model of the HMTT board (docs/board.md): it consumes one
// channel's DDR command bus (hmtt::sim::BusCycle) and produces the wire frames
// (and Ethernet packets) the RTL in rtl/ produces, byte for byte and with the
// same FIFO drops.
//
// Units, in the paper's words: the DDR command buffer (DCBU) decodes the pins;
// the DDR state machine (DSMU) keeps the four-state machine of every bank and
// rebuilds physical addresses through the address map; the config unit (CU)
// turns config-space accesses into events and BEGIN/END TRACING; the TX FIFO
// (TFU) holds time-stamped items, drains at the link rate and counts drops;
// the packer and framer are hmtt::wire::FrameEncoder.
//
// Timing follows the RTL cycle for cycle where it changes what is sent (which
// items the FIFO drops): an item of a command in cycle c is pushed at the edge
// ending cycle c+3; pops, the packer's one action per cycle and the token
// bucket are evaluated in closed form: an entry's pop cycle is fixed when it is
// accepted (entries leave in order), so the FIFO only keeps pop cycles.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "hmtt/board/rdhpu_model.h"
#include "hmtt/board/su_model.h"
#include "hmtt/result.h"
#include "hmtt/sim/address_map.h"
#include "hmtt/sim/command_stream.h"
#include "hmtt/wire/ethernet.h"
#include "hmtt/wire/frame.h"

namespace hmtt::board {

inline constexpr std::uint32_t kUnlimitedRateQ16 = 5u << 16;  // one record per cycle
inline constexpr std::uint32_t kRecordCostQ16 = 5u << 16;     // a record is 5 bytes
inline constexpr std::size_t kPipelineLatency = 3;            // command cycle c -> push edge c+3
inline constexpr std::size_t kDefaultFifoDepth = 16384;       // the paper's 16K entries

// The online analysis units attached to the capture path (docs/board.md 13).
// An interval of 0 leaves that unit out (the default: the board then sends
// exactly what it sent without them).
struct OnlineUnits {
  std::uint32_t su_interval = 0;     // Statistic Unit: cycles per interval (0 = off)
  std::uint32_t rdhpu_interval = 0;  // RDHPU: cycles per interval (0 = off)
  unsigned hot_k = 8;                // RDHPU hot-page table entries
  bool any() const { return su_interval != 0 || rdhpu_interval != 0; }
};
// The units' fixed parameters on the board: the SU of 2 ranks and 32 address
// bits (52 values), the RDHPU's 128-entry stack of 24-bit page numbers
// (page = physical address >> 12) and 32-bit counters.
inline constexpr unsigned kBoardSuRanks = 2;
inline constexpr unsigned kBoardSuPhysBits = 32;
inline constexpr unsigned kBoardRdhpuDepth = 128;
inline constexpr unsigned kBoardRdhpuTagWidth = 24;
inline constexpr unsigned kBoardPageShift = 12;

struct BoardConfig {
  sim::AddressMap map;
  std::uint32_t channel = 0;          // value of the map's channel field on this board
  std::uint64_t config_base = 0;      // physical byte address, 64-byte aligned
  std::uint64_t config_size = 0;      // bytes (0 = no config space)
  bool trace_on_reset = true;         // tracing before the first BEGIN/END
  wire::EncoderConfig encoder;        // board id, links, addr_bits, line_shift, clock, records/frame
  wire::LinkAddressing addressing;    // for packets()
  std::uint32_t rate_q16 = kUnlimitedRateQ16;  // record bytes per cycle over all links, Q16.16
  std::uint32_t burst_bytes = 1472;   // token-bucket cap
  std::size_t fifo_depth = kDefaultFifoDepth;
  OnlineUnits units;                  // SU and RDHPU (off by default)
};

// Record bytes per board cycle (Q16.16) that `links` links of `link_bits_per_s`
// carry in full frames (1440 record bytes per 1538 wire bytes).
std::uint32_t link_rate_q16(double link_bits_per_s, unsigned links, std::uint32_t clock_khz);

// The config space the built-in set-up reserves: the top 8 MiB of the map.
std::uint64_t default_config_base(const sim::AddressMap& map);
inline constexpr std::uint64_t kDefaultConfigSize = 8ull << 20;

struct BoardCounters {
  std::uint64_t commands = 0;         // commands leaving the DCBU: ACT, RD, WR, PRE, PREA, REF
  std::uint64_t reads = 0;            // READ commands to an open bank
  std::uint64_t writes = 0;           // WRITE commands to an open bank
  std::uint64_t orphans = 0;          // READ/WRITE to a closed bank (no reference)
  std::uint64_t references = 0;       // reference items the CU emitted
  std::uint64_t events = 0;           // event items (config-space accesses)
  std::uint64_t dropped = 0;          // items the TFU dropped (FIFO full)
  std::uint64_t loss_records = 0;     // LOSS records sent
  std::uint64_t fifo_high_water = 0;  // max FIFO occupancy
  std::uint64_t frames = 0;           // frames closed
  std::uint64_t reports = 0;          // REPORTs sent (SU and RDHPU)
  std::uint64_t reports_lost = 0;     // reports lost: an interval ended while the previous one was being sent
};

class BoardModel {
 public:
  static Result<BoardModel> create(const BoardConfig& config);

  // Cycles must be strictly increasing across calls.
  Status consume(std::span<const sim::BusCycle> cycles);
  // End of the run: drains the FIFO, sends a LOSS for a dropped tail, closes the open frame.
  Status finish();

  bool has_frame() const { return encoder_.has_frame(); }
  wire::EncodedFrame pop_frame();
  // The Ethernet frame (with FCS) a link sends for `frame`.
  std::vector<std::uint8_t> packet(const wire::EncodedFrame& frame) const;

  const BoardCounters& counters() const { return counters_; }
  const BoardConfig& config() const { return config_; }

 private:
  enum class ItemKind : std::uint8_t { Reference, Event, LossOnly, Report };
  struct Entry {
    std::uint64_t time = 0;
    std::uint64_t payload = 0;  // byte address, event index or report unit
    std::uint64_t loss = 0;
    std::int64_t push_edge = 0;
    ItemKind kind = ItemKind::Reference;
    bool write = false;
  };
  struct Slice {
    unsigned shift = 0;
    std::uint64_t mask = 0;
  };

  // One online unit's report port at the TFU (docs/board.md 13).
  struct UnitPort {
    bool pushed = false;         // the pending report's item is in the FIFO
    std::int64_t first = -1;     // cycles in which the packer writes its records
    std::int64_t last = -2;
    bool ready(std::int64_t x) const { return x >= first && x <= last; }
  };
  struct UnitInputs {
    std::int64_t cycle = 0;
    SuInputs su;
    bool acc_valid = false;
    std::uint64_t page = 0;
  };

  BoardModel(const BoardConfig& config, wire::FrameEncoder encoder);
  // The address map (AddressMap::compose) in two parts: the row, bank, rank and channel bits are
  // fixed when ACTIVE opens the row, a READ/WRITE only adds its column.
  std::uint64_t row_address(unsigned rank, unsigned bank, std::uint32_t row) const;
  std::uint64_t column_address(std::uint32_t col) const;
  // CU: a READ/WRITE to an open bank becomes an event (config space), a reference (tracing on) or nothing.
  Status on_access(std::uint64_t cycle, std::uint64_t address, bool write) {
    if (address - config_.config_base < config_.config_size && address >= config_.config_base) [[unlikely]]
      return on_event(cycle, address, write);
    if (!tracing()) return Status::success();
    ++counters_.references;
    // With the online units on, items wait for their push edge (a unit's report may take an earlier one).
    if (config_.units.any()) [[unlikely]] return submit_reference(cycle, address, write);
    return push_reference(cycle, address, write);
  }
  Status on_event(std::uint64_t cycle, std::uint64_t address, bool write);
  // TFU: drains the entries popped before `push_edge`; false = the FIFO is full (the item is dropped).
  bool admit(std::int64_t push_edge);
  // TFU: takes an admitted item, returns its pop cycle.
  std::int64_t enqueue(std::int64_t push_edge);
  Status submit(const Entry& item);
  Status submit_reference(std::uint64_t cycle, std::uint64_t address, bool write);
  UnitInputs& inputs_at(std::int64_t cycle);
  Status step_units(std::int64_t until, bool finishing);
  Status step_unit_cycle(std::int64_t x, bool finishing);
  bool fifo_full_at(std::int64_t edge);
  Status pop_report(std::int64_t k, const Entry& e);
  Status push(const Entry& item);
  Status push_reference(std::uint64_t cycle, std::uint64_t address, bool write);
  // Packer: `n` records written into the open frame (mirror of FrameEncoder's count).
  void count_records(std::size_t n) {
    open_count_ += n;
    if (open_count_ == config_.encoder.records_per_frame) {
      open_count_ = 0;
      ++counters_.frames;
    }
  }
  // Token bucket: the packer's one action for an entry popped in cycle k is a record in cycle k+1.
  void spend_tokens_one_record(std::int64_t k);
  void spend_tokens(std::int64_t k, const bool* acts, std::size_t m, std::size_t records_after);
  void pack_loss(std::uint64_t loss);
  std::int64_t earliest_pop(std::int64_t k0) const;
  std::int64_t tokens_at(std::int64_t cycle) const;
  Status pop(std::int64_t cycle, const Entry& e);
  bool tracing() const { return trace_state_ == 0 ? config_.trace_on_reset : trace_state_ == 1; }

  BoardConfig config_;
  wire::FrameEncoder encoder_;
  BoardCounters counters_;
  // DSMU: per rank x bank (8 x 8).
  std::array<std::uint8_t, 64> open_{};  // 1 = row open
  std::array<std::uint64_t, 64> row_address_{};  // row_address() of the open row
  Slice row_s_, col_s_, col_low_s_, bank_s_, rank_s_, chan_s_;
  unsigned col_low_width_ = 0;
  std::uint64_t chan_bits_ = 0;
  // CU: 0 unset, 1 on, 2 off.
  std::uint8_t trace_state_ = 0;
  std::int64_t last_cycle_ = -1;
  // TFU.
  std::vector<std::int64_t> pops_;  // ring: pop cycles of the entries in the FIFO
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::int64_t newest_pop_ = 0;     // pop cycle of the last accepted entry
  std::uint64_t drop_ = 0;
  // Token bucket: T(tok_cycle_) = tok_last_, T(tok_cycle_-1) = tok_prev_ (Q16.16 bytes).
  std::int64_t tok_cycle_ = -1;
  std::int64_t tok_last_ = 0;
  std::int64_t tok_prev_ = 0;
  std::int64_t packer_ready_ = 0;
  std::int64_t saturate_steps_ = 0;  // after this many idle cycles the bucket is full
  std::uint64_t ref_dmax_ = 0;  // largest duration of a reference record
  // Packer: mirror of FrameEncoder's open record count, and its tracing flag.
  std::size_t open_count_ = 0;
  std::uint8_t packer_trace_state_ = 0;
  // Online units (empty when off), their ports, the items waiting for their push
  // edge and the units' inputs by cycle (only while the units are on).
  std::optional<SuModel> su_;
  std::optional<RdhpuModel> rdhpu_;
  UnitPort su_port_, rdhpu_port_;
  std::deque<Entry> waiting_;
  std::deque<UnitInputs> unit_inputs_;
  std::int64_t unit_cycle_ = 0;  // next cycle the units step through
  bool su_flushed_ = false, rdhpu_flushed_ = false;  // finish() ended their last interval
};

}  // namespace hmtt::board
