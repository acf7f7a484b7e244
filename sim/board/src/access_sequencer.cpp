#include "hmtt/board/access_sequencer.h"

namespace hmtt::board {

AccessSequencer::AccessSequencer(const sim::AddressMap& map, const SequencerTiming& timing, std::uint64_t start)
    : map_(map), t_(timing), now_(start), next_refresh_(start + timing.t_refi), open_row_(64, -1) {}

void AccessSequencer::emit(const sim::DdrCommandWord& w) {
  bus_.push_back(sim::BusCycle{now_, sim::encode_pins(w)});
  ++now_;
}

void AccessSequencer::refresh_if_due() {
  if (t_.t_refi == 0 || now_ < next_refresh_) return;
  const unsigned ranks = 1u << map_.width(sim::AddressMap::Field::Rank);
  for (unsigned r = 0; r < ranks; ++r) {
    sim::DdrCommandWord w;
    w.rank = static_cast<std::uint8_t>(r);
    w.cmd = sim::DdrCommand::PrechargeAll;
    emit(w);
  }
  now_ += t_.t_rp;
  for (unsigned r = 0; r < ranks; ++r) {
    sim::DdrCommandWord w;
    w.rank = static_cast<std::uint8_t>(r);
    w.cmd = sim::DdrCommand::Refresh;
    emit(w);
    for (unsigned b = 0; b < 8; ++b) open_row_[r * 8 + b] = -1;
  }
  now_ += t_.t_rfc;
  next_refresh_ = now_ + t_.t_refi;
}

void AccessSequencer::add(const Access& a) {
  now_ += a.gap;
  refresh_if_due();
  const sim::DramCoordinates c = map_.decompose(a.address);
  const unsigned idx = c.rank * 8 + c.bank;
  sim::DdrCommandWord w;
  w.rank = static_cast<std::uint8_t>(c.rank);
  w.bank = static_cast<std::uint8_t>(c.bank);
  if (open_row_[idx] >= 0 && open_row_[idx] != static_cast<std::int32_t>(c.row)) {
    w.cmd = sim::DdrCommand::Precharge;
    emit(w);
    now_ += t_.t_rp;
    open_row_[idx] = -1;
  }
  if (open_row_[idx] < 0) {
    w.cmd = sim::DdrCommand::Active;
    w.addr = static_cast<std::uint16_t>(c.row);
    emit(w);
    now_ += t_.t_rcd - 1;
    open_row_[idx] = static_cast<std::int32_t>(c.row);
  }
  if (last_cas_ != 0 && now_ < last_cas_ + t_.t_ccd) now_ = last_cas_ + t_.t_ccd;
  ++count_;
  w.cmd = a.write ? sim::DdrCommand::Write : sim::DdrCommand::Read;
  w.addr = static_cast<std::uint16_t>(c.column);
  w.auto_precharge = t_.auto_precharge_every != 0 && count_ % t_.auto_precharge_every == 0;
  sim::IssuedAccess ia;
  ia.cycle = now_;
  ia.address = a.address & ~((std::uint64_t{1} << map_.width(sim::AddressMap::Field::Bus)) - 1);
  ia.request = count_ - 1;
  ia.channel = static_cast<std::uint8_t>(c.channel);
  ia.write = a.write;
  issued_.push_back(ia);
  last_cas_ = now_;
  emit(w);
  if (w.auto_precharge) {
    open_row_[idx] = -1;
    now_ += t_.t_rp;
  }
}

void AccessSequencer::mark_config_space(std::uint64_t base, std::uint64_t size) {
  for (auto& ia : issued_) ia.config_space = ia.address >= base && ia.address - base < size;
}

}  // namespace hmtt::board
