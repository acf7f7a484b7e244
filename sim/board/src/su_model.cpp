#include "hmtt/board/su_model.h"

namespace hmtt::board {

SuModel::SuModel(const SuParams& p)
    : p_(p),
      cnt_mask_(p.cnt_width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << p.cnt_width) - 1),
      open_(8 * p.ranks, false),
      used_(8 * p.ranks, false),
      live_(num_values(), 0),
      snap_(num_values(), 0) {}

std::uint64_t SuModel::rec() const {
  constexpr std::uint64_t kControl = std::uint64_t{1} << 39;
  if (sender_.index() == 0)
    return kControl | (std::uint64_t{3} << 36) | (std::uint64_t{num_values() & 0xFFFF} << 16) | snum_;
  return kControl | (std::uint64_t{4} << 36) | snap_[sender_.index() - 1];
}

void SuModel::edge(const SuInputs& in, bool rec_ready, std::uint32_t interval) {
  std::vector<std::uint64_t> upd = live_;
  auto inc = [&](unsigned i, std::uint64_t by) { upd[i] = (upd[i] + by) & cnt_mask_; };
  if (in.cmd_valid && in.rank < p_.ranks) {
    const unsigned b = in.rank * 8 + in.bank;
    switch (in.cmd) {
      case 1:
        open_[b] = true;
        used_[b] = false;
        inc(4 + b, 1);
        break;
      case 2:
      case 3:
        inc(in.cmd == 2 ? 0 : 1, 1);
        if (open_[b]) {
          inc(used_[b] ? 2 : 3, 1);
          used_[b] = true;
          if (in.ap) open_[b] = false;
        }
        break;
      case 4: open_[b] = false; break;
      case 5:
      case 6:
        for (unsigned k = 0; k < 8; ++k) open_[in.rank * 8 + k] = false;
        break;
      default: break;
    }
  }
  if (in.ref_valid) {
    const std::uint64_t diff = in.ref_addr ^ prev_;
    for (unsigned k = 0; k < p_.phys_bits; ++k) inc(4 + 8 * p_.ranks + k, (diff >> k) & 1);
    prev_ = in.ref_addr;
  }
  const bool iv_end = std::uint64_t{cyc_} + 1 >= interval;
  if (sender_.step(iv_end, rec_ready, num_values())) {
    snap_ = upd;
    snum_ = interval_;
  }
  if (iv_end) {
    ++interval_;
    live_.assign(num_values(), 0);
    cyc_ = 0;
  } else {
    live_ = std::move(upd);
    ++cyc_;
  }
}

}  // namespace hmtt::board
