#include "hmtt/board/rdhpu_model.h"

namespace hmtt::board {

namespace {
unsigned clog2(unsigned v) {
  unsigned r = 0;
  while ((1u << r) < v) ++r;
  return r;
}
std::uint64_t mask(unsigned bits) { return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }
}  // namespace

RdhpuModel::RdhpuModel(const RdhpuParams& p)
    : p_(p),
      dist_w_(p.depth > 2 ? clog2(p.depth) : 1),
      tag_mask_(mask(p.tag_width)),
      cnt_mask_(mask(p.cnt_width)),
      stack_(p.depth) {
  clear(live_);
  clear(snap_);
}

void RdhpuModel::clear(Counters& c) const {
  c.bins.assign(num_bins(), 0);
  c.hot.assign(p_.hot_k, HotPage{});
}

unsigned RdhpuModel::bin_of(bool hit, unsigned distance, unsigned dist_bits) {
  if (!hit) return dist_bits + 1;
  unsigned b = 0;
  while (distance != 0) {
    ++b;
    distance >>= 1;
  }
  return b;
}

std::uint64_t RdhpuModel::rec() const {
  constexpr std::uint64_t kControl = std::uint64_t{1} << 39;
  if (sender_.index() == 0)
    return kControl | (std::uint64_t{3} << 36) | (std::uint64_t{1} << 32) |
           (std::uint64_t{num_values() & 0xFFFF} << 16) | snum_;
  const unsigned v = sender_.index() - 1;
  std::uint64_t value = 0;
  if (v < num_bins()) {
    value = snap_.bins[v];
  } else {
    const HotPage& h = snap_.hot[(v - num_bins()) / 3];
    if (h.valid) {
      const unsigned field = (v - num_bins()) % 3;
      value = field == 0 ? h.page : (field == 1 ? h.count : h.err);
    }
  }
  return kControl | (std::uint64_t{4} << 36) | value;
}

std::vector<std::uint64_t> RdhpuModel::report_values() const {
  std::vector<std::uint64_t> v(snap_.bins);
  for (const HotPage& h : snap_.hot) {
    v.push_back(h.valid ? h.page : 0);
    v.push_back(h.valid ? h.count : 0);
    v.push_back(h.valid ? h.err : 0);
  }
  return v;
}

void RdhpuModel::edge(bool acc_valid, std::uint64_t page, bool rec_ready, std::uint32_t interval) {
  // The stack result leaving in this cycle.
  Counters upd = live_;
  if (!pending_.empty() && pending_.front().due == cycle_) {
    const Result r = pending_.front();
    pending_.pop_front();
    auto& bin = upd.bins[bin_of(r.hit, r.distance, dist_w_)];
    bin = (bin + 1) & cnt_mask_;
    // Space-Saving: the entry holding the page, else the first entry with the smallest count.
    int match = -1;
    unsigned min_idx = 0;
    std::uint64_t min_cnt = live_.hot[0].count;
    for (unsigned j = 0; j < p_.hot_k; ++j) {
      const HotPage& h = live_.hot[j];
      if (h.valid && h.page == r.page) match = static_cast<int>(j);
      if (h.count < min_cnt) {
        min_cnt = h.count;
        min_idx = j;
      }
    }
    if (match >= 0) {
      HotPage& h = upd.hot[static_cast<unsigned>(match)];
      h.count = (h.count + 1) & cnt_mask_;
    } else {
      upd.hot[min_idx] = HotPage{true, r.page, (min_cnt + 1) & cnt_mask_, min_cnt};
    }
  }
  const bool iv_end = std::uint64_t{cyc_} + 1 >= interval;
  if (sender_.step(iv_end, rec_ready, num_values())) {
    snap_ = upd;
    snum_ = interval_;
  }
  if (iv_end) {
    ++interval_;
    clear(live_);
    cyc_ = 0;
  } else {
    live_ = std::move(upd);
    ++cyc_;
  }
  if (acc_valid) {
    const std::uint64_t pg = page & tag_mask_;
    const StackAccess a = stack_.access(pg);
    pending_.push_back(Result{cycle_ + p_.depth, pg, a.hit, a.distance});
  }
  ++cycle_;
}

}  // namespace hmtt::board
