#include "hmtt/board/board_model.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>

namespace hmtt::board {

namespace {

constexpr std::int64_t kCost = static_cast<std::int64_t>(kRecordCostQ16);

std::size_t overflow_records(std::uint64_t gap, std::uint64_t dmax) {
  if (gap <= dmax) return 0;
  return static_cast<std::size_t>((gap + wire::kPayloadMask - 1) / wire::kPayloadMask);
}

}  // namespace

std::uint32_t link_rate_q16(double link_bits_per_s, unsigned links, std::uint32_t clock_khz) {
  const double bytes = links * link_bits_per_s / 8.0 * 1440.0 / 1538.0 / (clock_khz * 1000.0);
  const double q = std::round(bytes * 65536.0);
  if (q < 1) return 1;
  if (q > kUnlimitedRateQ16) return kUnlimitedRateQ16;
  return static_cast<std::uint32_t>(q);
}

std::uint64_t default_config_base(const sim::AddressMap& map) {
  return map.capacity_bytes() - kDefaultConfigSize;
}

BoardModel::BoardModel(const BoardConfig& config, wire::FrameEncoder encoder)
    : config_(config), encoder_(std::move(encoder)) {}

Result<BoardModel> BoardModel::create(const BoardConfig& c) {
  auto enc = wire::FrameEncoder::create(c.encoder);
  if (!enc) return make_error("board: " + enc.error().message);
  if (c.rate_q16 == 0) return make_error("board: rate_q16 is 0 (the FIFO would never drain)");
  if (c.fifo_depth == 0) return make_error("board: fifo_depth is 0");
  if (c.burst_bytes < 5) return make_error("board: burst_bytes must hold one record (>= 5)");
  if (c.config_base % 64 != 0) return make_error("board: config_base is not 64-byte aligned");
  BoardModel m(c, std::move(*enc));
  m.encoder_.set_tracing(c.trace_on_reset);
  using F = sim::AddressMap::Field;
  for (const auto& s : c.map.slices()) {
    const Slice sl{s.shift, (std::uint64_t{1} << s.width) - 1};
    switch (s.field) {
      case F::Row: m.row_s_ = sl; break;
      case F::Col: m.col_s_ = sl; break;
      case F::ColLow: m.col_low_s_ = sl; break;
      case F::Bank: m.bank_s_ = sl; break;
      case F::Rank: m.rank_s_ = sl; break;
      case F::Channel: m.chan_s_ = sl; break;
      case F::Bus: break;
    }
  }
  m.col_low_width_ = c.map.width(F::ColLow);
  m.chan_bits_ = (c.channel & m.chan_s_.mask) << m.chan_s_.shift;
  m.pops_.resize(c.fifo_depth);
  m.ref_dmax_ = (std::uint64_t{1} << wire::duration_bits(c.encoder.addr_bits)) - 1;
  m.saturate_steps_ = ((std::int64_t{c.burst_bytes} << 16) + 64 * kCost) / c.rate_q16 + 1;
  if (c.units.su_interval != 0) {
    m.su_.emplace(SuParams{kBoardSuRanks, kBoardSuPhysBits, 32});
    if (m.su_->num_values() + 1 > c.encoder.records_per_frame)
      return make_error("board: a Statistic Unit report (" + std::to_string(m.su_->num_values() + 1) +
                        " records) does not fit a frame of " + std::to_string(c.encoder.records_per_frame) + " records");
  }
  if (c.units.rdhpu_interval != 0) {
    if (c.units.hot_k < 1 || c.units.hot_k > 64)
      return make_error("board: RDHPU hot-page entries " + std::to_string(c.units.hot_k) + ": must be 1 to 64");
    m.rdhpu_.emplace(RdhpuParams{kBoardRdhpuDepth, kBoardRdhpuTagWidth, c.units.hot_k, 32});
    if (m.rdhpu_->num_values() + 1 > c.encoder.records_per_frame)
      return make_error("board: an RDHPU report (" + std::to_string(m.rdhpu_->num_values() + 1) +
                        " records) does not fit a frame of " + std::to_string(c.encoder.records_per_frame) + " records");
  }
  return m;
}

std::uint64_t BoardModel::row_address(unsigned rank, unsigned bank, std::uint32_t row) const {
  return ((row & row_s_.mask) << row_s_.shift) | ((bank & bank_s_.mask) << bank_s_.shift) |
         ((rank & rank_s_.mask) << rank_s_.shift) | chan_bits_;
}

std::uint64_t BoardModel::column_address(std::uint32_t col) const {
  return (((col >> col_low_width_) & col_s_.mask) << col_s_.shift) | ((col & col_low_s_.mask) << col_low_s_.shift);
}

Status BoardModel::consume(std::span<const sim::BusCycle> cycles) {
  for (const auto& bc : cycles) {
    const auto cyc = static_cast<std::int64_t>(bc.cycle);
    if (cyc <= last_cycle_)
      return make_error("board: bus cycle " + std::to_string(bc.cycle) + " does not follow cycle " +
                        std::to_string(last_cycle_));
    last_cycle_ = cyc;
    // The units step up to this cycle: all their inputs and every item pushed so far are known.
    if (config_.units.any()) HMTT_TRY(step_units(cyc, false));
    // DCBU: the JEDEC truth table (as hmtt::sim::decode_pins), inlined.
    const auto sel = static_cast<std::uint8_t>(~bc.pins.cs_n);
    if (sel == 0 || (sel & (sel - 1)) != 0) continue;  // DESELECT, or more than one rank
    const unsigned rank = static_cast<unsigned>(__builtin_ctz(sel));
    const unsigned code = (bc.pins.ras_n ? 4u : 0u) | (bc.pins.cas_n ? 2u : 0u) | (bc.pins.we_n ? 1u : 0u);
    const unsigned base = rank * 8u;
    const unsigned bank = bc.pins.ba & 7u;
    if (su_ && code != 0b000 && code != 0b111 && code != 0b110) {
      // The SU sees the DCBU's command in the cycle after the pins (codes of hmtt_dcbu).
      SuInputs& in = inputs_at(cyc + 1).su;
      in.cmd_valid = true;
      in.cmd = code == 0b011 ? 1 : code == 0b101 ? 2 : code == 0b100 ? 3 : code == 0b001 ? 6
               : (((bc.pins.a >> sim::kAutoPrechargeBit) & 1u) ? 5 : 4);
      in.rank = rank;
      in.bank = bank;
      in.ap = ((bc.pins.a >> sim::kAutoPrechargeBit) & 1u) != 0;
    }
    switch (code) {
      case 0b011:  // ACTIVE
        ++counters_.commands;
        open_[base + bank] = 1;
        row_address_[base + bank] = row_address(rank, bank, bc.pins.a);
        break;
      case 0b101:    // READ
      case 0b100: {  // WRITE
        ++counters_.commands;
        const unsigned b = base + bank;
        if (!open_[b]) {
          ++counters_.orphans;
          break;
        }
        const bool write = code == 0b100;
        ++(write ? counters_.writes : counters_.reads);
        const std::uint32_t col = bc.pins.a & ~(1u << sim::kAutoPrechargeBit);
        const std::uint64_t address = row_address_[b] | column_address(col);
        if (config_.units.any()) {
          // The DSMU's reference reaches the SU and the RDHPU two cycles after the pins.
          UnitInputs& in = inputs_at(cyc + 2);
          in.su.ref_valid = su_.has_value();
          in.su.ref_addr = address;
          in.acc_valid = rdhpu_.has_value();
          in.page = address >> kBoardPageShift;
        }
        HMTT_TRY(on_access(bc.cycle, address, write));
        if ((bc.pins.a >> sim::kAutoPrechargeBit) & 1u) open_[b] = 0;
        break;
      }
      case 0b010:  // PRECHARGE (A10: all banks)
        ++counters_.commands;
        if ((bc.pins.a >> sim::kAutoPrechargeBit) & 1u) {
          for (unsigned i = 0; i < 8; ++i) open_[base + i] = 0;
        } else {
          open_[base + bank] = 0;
        }
        break;
      case 0b001:  // REFRESH
        ++counters_.commands;
        for (unsigned i = 0; i < 8; ++i) open_[base + i] = 0;
        break;
      default: break;  // NOP, MRS, BST: dropped by the DCBU
    }
  }
  return Status::success();
}

Status BoardModel::on_event(std::uint64_t cycle, std::uint64_t address, bool write) {
  const std::uint64_t index = (address - config_.config_base) >> 6;
  Entry e;
  e.time = cycle;
  e.write = write;
  e.push_edge = static_cast<std::int64_t>(cycle + kPipelineLatency);
  e.kind = ItemKind::Event;
  e.payload = index & wire::kEventIndexMask;
  ++counters_.events;
  if (index == wire::kBeginTracing) trace_state_ = 1;
  if (index == wire::kEndTracing) trace_state_ = 2;
  return submit(e);
}

Status BoardModel::submit_reference(std::uint64_t cycle, std::uint64_t address, bool write) {
  Entry e;
  e.time = cycle;
  e.write = write;
  e.push_edge = static_cast<std::int64_t>(cycle + kPipelineLatency);
  e.kind = ItemKind::Reference;
  e.payload = address;
  return submit(e);
}

Status BoardModel::submit(const Entry& item) {
  // With the units on, items wait for their push edge: a unit's report may take an earlier edge.
  if (!config_.units.any()) return push(item);
  waiting_.push_back(item);
  return Status::success();
}

BoardModel::UnitInputs& BoardModel::inputs_at(std::int64_t cycle) {
  // Requests come in non-decreasing order of cycle, at most two behind the newest.
  for (auto it = unit_inputs_.rbegin(); it != unit_inputs_.rend() && it->cycle >= cycle; ++it)
    if (it->cycle == cycle) return *it;
  UnitInputs in;
  in.cycle = cycle;
  auto at = unit_inputs_.end();
  while (at != unit_inputs_.begin() && std::prev(at)->cycle > cycle) --at;
  return *unit_inputs_.insert(at, in);
}

bool BoardModel::fifo_full_at(std::int64_t edge) {
  const std::size_t depth = pops_.size();
  while (size_ > 0 && pops_[head_] < edge) {
    if (++head_ == depth) head_ = 0;
    --size_;
  }
  if (size_ == 0) head_ = 0;
  return size_ == depth;
}

Status BoardModel::step_units(std::int64_t until, bool finishing) {
  for (; unit_cycle_ <= until; ++unit_cycle_) HMTT_TRY(step_unit_cycle(unit_cycle_, finishing));
  return Status::success();
}

Status BoardModel::step_unit_cycle(std::int64_t x, bool finishing) {
  // 1. The CU's item of this push edge (the command of cycle x-3) goes first.
  bool cu_item = false;
  while (!waiting_.empty() && waiting_.front().push_edge <= x) {
    cu_item = cu_item || waiting_.front().push_edge == x;
    HMTT_TRY(push(waiting_.front()));
    waiting_.pop_front();
  }
  // 2. Otherwise one unit with a report waiting pushes its report item (the SU first), if the FIFO has room.
  if (!cu_item) {
    const bool su_wants = su_ && su_->rec_valid() && !su_port_.pushed;
    const bool rd_wants = rdhpu_ && rdhpu_->rec_valid() && !rdhpu_port_.pushed;
    if ((su_wants || rd_wants) && !fifo_full_at(x)) {
      Entry e;
      e.kind = ItemKind::Report;
      e.payload = su_wants ? 0 : 1;
      e.push_edge = x;
      (su_wants ? su_port_ : rdhpu_port_).pushed = true;
      ++counters_.reports;
      HMTT_TRY(push(e));
    }
  }
  // 3. The units' clock edge with this cycle's inputs.
  UnitInputs in;
  in.cycle = x;
  if (!unit_inputs_.empty() && unit_inputs_.front().cycle == x) {
    in = unit_inputs_.front();
    unit_inputs_.pop_front();
  }
  // While finishing, each unit ends its open interval at the first cycle it is not sending (interval
  // input 1 for that cycle), then counts on without ending another.
  auto interval_of = [&](bool busy, bool& flushed, std::uint32_t iv) -> std::uint32_t {
    if (!finishing) return iv;
    if (flushed) return UINT32_MAX;
    if (busy) return iv;
    flushed = true;
    return 1;
  };
  if (su_) {
    const std::uint32_t iv = interval_of(su_->rec_valid(), su_flushed_, config_.units.su_interval);
    su_->edge(in.su, su_port_.ready(x), iv);
    if (!su_->rec_valid()) su_port_.pushed = false;
  }
  if (rdhpu_) {
    const std::uint32_t iv = interval_of(rdhpu_->rec_valid(), rdhpu_flushed_, config_.units.rdhpu_interval);
    rdhpu_->edge(in.acc_valid, in.page, rdhpu_port_.ready(x), iv);
    if (!rdhpu_->rec_valid()) rdhpu_port_.pushed = false;
  }
  counters_.reports_lost = (su_ ? su_->lost() : 0) + (rdhpu_ ? rdhpu_->lost() : 0);
  return Status::success();
}

// tokens_at, earliest_pop, admit, enqueue and spend_tokens_one_record run once per item; `inline` lets
// the compiler fold them into push_reference (all their callers are in this file).
inline std::int64_t BoardModel::tokens_at(std::int64_t cycle) const {
  // T(cycle) for cycle >= tok_cycle_ - 1, with no emission after tok_cycle_.
  if (cycle == tok_cycle_ - 1) return tok_prev_;
  const std::int64_t cap = std::int64_t{config_.burst_bytes} << 16;
  const std::int64_t steps = cycle - tok_cycle_;
  const std::int64_t rate = config_.rate_q16;
  if (steps > saturate_steps_) return cap;
  return std::min(cap, tok_last_ + steps * rate);
}

inline std::int64_t BoardModel::earliest_pop(std::int64_t k0) const {
  // The first cycle k >= k0 (k0 >= tok_cycle_) with T(k-1) >= 0.
  if (k0 == tok_cycle_ && tok_prev_ >= 0) return k0;
  const std::int64_t k = std::max(k0, tok_cycle_ + 1);
  const std::int64_t t = tokens_at(k - 1);
  if (t >= 0) return k;
  const std::int64_t rate = config_.rate_q16;
  return k + (-t + rate - 1) / rate;
}

inline bool BoardModel::admit(std::int64_t push_edge) {
  // Entries leave in order and a pop depends only on what is already in the
  // FIFO, so each accepted entry's pop cycle is known when it is accepted; the
  // FIFO holds the pop cycles of the entries still inside. An entry popped in
  // cycle k no longer counts at the edge ending cycle k+1 and later.
  if (size_ == 0 || newest_pop_ < push_edge) {
    // Everything has left (the common case while the link keeps up): restart at
    // slot 0, so a FIFO that rarely fills stays in cache.
    size_ = 0;
    head_ = 0;
    return true;
  }
  const std::size_t depth = pops_.size();
  while (pops_[head_] < push_edge) {
    if (++head_ == depth) head_ = 0;
    --size_;
  }
  if (size_ < depth) return true;
  ++counters_.dropped;
  if (drop_ < wire::kPayloadMask) ++drop_;
  return false;
}

inline std::int64_t BoardModel::enqueue(std::int64_t push_edge) {
  counters_.fifo_high_water = std::max<std::uint64_t>(counters_.fifo_high_water, size_ + 1);
  const std::int64_t k = earliest_pop(std::max({packer_ready_, push_edge + 1, tok_cycle_}));
  std::size_t tail = head_ + size_;
  if (tail >= pops_.size()) tail -= pops_.size();
  pops_[tail] = k;
  newest_pop_ = k;
  ++size_;
  return k;
}

Status BoardModel::push(const Entry& item) {
  if (!admit(item.push_edge)) return Status::success();
  Entry e = item;
  e.loss = drop_;
  drop_ = 0;
  return pop(enqueue(e.push_edge), e);
}

Status BoardModel::push_reference(std::uint64_t cycle, std::uint64_t address, bool write) {
  const auto edge = static_cast<std::int64_t>(cycle + kPipelineLatency);
  if (!admit(edge)) return Status::success();
  // The common case: no LOSS to send and the gap fits the duration field, so the
  // packer writes one record in the cycle after the pop.
  if (drop_ == 0 && cycle - encoder_.last_time() <= ref_dmax_) [[likely]] {
    const std::int64_t k = enqueue(edge);
    HMTT_TRY(encoder_.add_reference(cycle, address, write));
    count_records(1);
    spend_tokens_one_record(k);
    return Status::success();
  }
  Entry e;
  e.time = cycle;
  e.payload = address;
  e.push_edge = edge;
  e.kind = ItemKind::Reference;
  e.write = write;
  e.loss = drop_;
  drop_ = 0;
  return pop(enqueue(edge), e);
}

inline void BoardModel::spend_tokens_one_record(std::int64_t k) {
  const std::int64_t cap = std::int64_t{config_.burst_bytes} << 16;
  const std::int64_t prev = k == tok_cycle_ ? tok_last_ : tokens_at(k);
  tok_prev_ = prev;
  tok_last_ = std::min(cap, prev + static_cast<std::int64_t>(config_.rate_q16)) - kCost;
  tok_cycle_ = k + 1;
  packer_ready_ = tok_cycle_;
}

Status BoardModel::pop(std::int64_t k, const Entry& e) {
  const std::size_t rpf = config_.encoder.records_per_frame;
  if (e.kind == ItemKind::Report) return pop_report(k, e);
  // A reference with no loss whose gap fits the duration field: one action (the record) in cycle k+1.
  if (e.loss == 0 && e.kind == ItemKind::Reference && e.time - encoder_.last_time() <= ref_dmax_) {
    HMTT_TRY(encoder_.add_reference(e.time, e.payload, e.write));
    count_records(1);
    spend_tokens_one_record(k);
    return Status::success();
  }
  // The packer's actions, one per cycle from k+1: true = writes a record.
  bool acts[10];
  std::size_t m = 0;
  std::size_t extra_ovf = 0;  // OVERFLOW records beyond the 10 slots (huge gaps)
  if (e.loss > 0) {
    pack_loss(e.loss);
    acts[m++] = true;
  }
  if (e.kind != ItemKind::LossOnly) {
    const bool is_ref = e.kind == ItemKind::Reference;
    const std::uint64_t dmax = is_ref ? (std::uint64_t{1} << wire::duration_bits(config_.encoder.addr_bits)) - 1
                                      : (std::uint64_t{1} << wire::kEventDurationBits) - 1;
    const std::uint64_t gap = e.time - encoder_.last_time();
    const std::size_t n_ovf = overflow_records(gap, dmax);
    if ((gap >> 36) != 0) {  // the packer's StBig and StBig2 cycles (docs/board.md 6)
      acts[m++] = false;
      acts[m++] = false;
    }
    if (open_count_ > 0 && open_count_ + n_ovf + 1 > rpf) {
      acts[m++] = false;  // close before
      open_count_ = 0;
      ++counters_.frames;
    }
    if (is_ref) {
      HMTT_TRY(encoder_.add_reference(e.time, e.payload, e.write));
    } else {
      HMTT_TRY(encoder_.add_event(e.time, static_cast<std::uint32_t>(e.payload), e.write));
    }
    for (std::size_t i = 0; i < n_ovf; ++i) {
      if (m < 9) {
        acts[m++] = true;
      } else {
        ++extra_ovf;
      }
    }
    acts[m++] = true;
    count_records(n_ovf + 1);
    if (!is_ref && (e.payload == wire::kBeginTracing || e.payload == wire::kEndTracing)) {
      packer_trace_state_ = e.payload == wire::kBeginTracing ? 1 : 2;
      encoder_.set_tracing(packer_trace_state_ == 1);
      if (e.payload == wire::kEndTracing && open_count_ > 0) {
        encoder_.flush();
        open_count_ = 0;
        ++counters_.frames;
      }
    }
  }
  spend_tokens(k, acts, m, extra_ovf);
  return Status::success();
}

// Token bucket over the packer's action cycles from k+1: acts[j] says whether cycle k+1+j writes a
// record, and `records_after` more cycles that each write one follow them.
void BoardModel::spend_tokens(std::int64_t k, const bool* acts, std::size_t m, std::size_t records_after) {
  const std::int64_t cap = std::int64_t{config_.burst_bytes} << 16;
  const std::int64_t rate = config_.rate_q16;
  std::int64_t prev = k == tok_cycle_ ? tok_last_ : tokens_at(k);
  std::int64_t cur = prev;
  const std::size_t total = m + records_after;
  for (std::size_t j = 0; j < total; ++j) {
    const bool emit = j < m ? acts[j] : true;
    prev = cur;
    cur = std::min(cap, cur + rate) - (emit ? kCost : 0);
  }
  tok_cycle_ = k + static_cast<std::int64_t>(total);
  tok_last_ = cur;
  tok_prev_ = prev;
  packer_ready_ = tok_cycle_;
}

// Packer: a LOSS record carrying `loss` dropped items, one record of the open frame.
void BoardModel::pack_loss(std::uint64_t loss) {
  encoder_.add_loss(loss);
  ++counters_.loss_records;
  count_records(1);
}

Status BoardModel::pop_report(std::int64_t k, const Entry& e) {
  // The packer's actions from cycle k+1: [LOSS], [close the frame if the report does not fit], REPORT and
  // its values, one record per cycle; the unit's record port is ready exactly in the report's cycles.
  const bool su = e.payload == 0;
  const std::vector<std::uint64_t> values = su ? su_->report_values() : rdhpu_->report_values();
  const std::uint16_t interval = su ? su_->report_interval() : rdhpu_->report_interval();
  const std::size_t rpf = config_.encoder.records_per_frame;
  const std::size_t n = values.size() + 1;
  bool acts[2];  // before the report's records: [LOSS record] [frame close, no record]
  std::size_t m = 0;
  if (e.loss > 0) {
    pack_loss(e.loss);
    acts[m++] = true;
  }
  if (open_count_ > 0 && open_count_ + n > rpf) {
    acts[m++] = false;
    open_count_ = 0;
    ++counters_.frames;
  }
  HMTT_TRY(encoder_.add_report(su ? 0 : 1, interval, values));
  UnitPort& port = su ? su_port_ : rdhpu_port_;
  port.first = k + 1 + static_cast<std::int64_t>(m);
  port.last = port.first + static_cast<std::int64_t>(n) - 1;
  count_records(n);
  spend_tokens(k, acts, m, n);
  return Status::success();
}

Status BoardModel::finish() {
  if (config_.units.any()) {
    // Every item and every unit input is due by the last command + 3 (+ the stack's latency for the
    // RDHPU); then each unit ends its open interval and its last report goes into the FIFO.
    const std::int64_t last = std::max<std::int64_t>(last_cycle_, 0);
    const std::int64_t end = last + 3 + (rdhpu_ ? static_cast<std::int64_t>(kBoardRdhpuDepth) : 0);
    HMTT_TRY(step_units(end - 1, false));
    auto done = [&] {
      const bool su_done = !su_ || (su_flushed_ && !(su_->rec_valid() && !su_port_.pushed));
      const bool rd_done = !rdhpu_ || (rdhpu_flushed_ && !(rdhpu_->rec_valid() && !rdhpu_port_.pushed));
      return su_done && rd_done;
    };
    for (std::uint64_t guard = 0; !done(); ++guard, ++unit_cycle_) {
      if (guard > (std::uint64_t{1} << 32)) return make_error("board: the online units' last reports never left");
      HMTT_TRY(step_unit_cycle(unit_cycle_, true));
    }
  }
  if (drop_ > 0) {
    // The flush pushes a loss-only entry behind everything still in the FIFO.
    Entry e;
    e.kind = ItemKind::LossOnly;
    e.loss = drop_;
    drop_ = 0;
    HMTT_TRY(pop(std::max(packer_ready_, tok_cycle_), e));
  }
  if (open_count_ > 0) {
    encoder_.flush();
    open_count_ = 0;
    ++counters_.frames;
  }
  return Status::success();
}

wire::EncodedFrame BoardModel::pop_frame() { return encoder_.pop_frame(); }

std::vector<std::uint8_t> BoardModel::packet(const wire::EncodedFrame& f) const {
  return wire::udp_packet(config_.addressing, config_.encoder.board, f.link, f.bytes, true);
}

}  // namespace hmtt::board
