// LRU and FIFO: each way carries a time stamp and the victim is the way with the oldest. LRU
// stamps a way when it is filled and at every hit (the time of its last use); FIFO only when it
// is filled, so hits do not reorder.
#include <vector>

#include "replacement_policies.h"

namespace hmtt::analysis {

namespace {
template <bool kStampOnHit>
class StampedPolicy final : public ReplacementPolicy {
 public:
  StampedPolicy(std::size_t sets, std::size_t ways) : ways_(ways), stamp_(sets * ways, 0) {}
  std::string_view name() const override { return kStampOnHit ? "lru" : "fifo"; }
  void on_hit(std::size_t set, std::size_t way) override {
    if constexpr (kStampOnHit) stamp_[set * ways_ + way] = ++clock_;
  }
  void on_fill(std::size_t set, std::size_t way) override { stamp_[set * ways_ + way] = ++clock_; }
  std::size_t victim(std::size_t set) override {
    const std::uint64_t* s = &stamp_[set * ways_];
    std::size_t best = 0;
    for (std::size_t w = 1; w < ways_; ++w)
      if (s[w] < s[best]) best = w;
    return best;
  }

 private:
  std::size_t ways_;
  std::vector<std::uint64_t> stamp_;
  std::uint64_t clock_ = 0;
};
}  // namespace

std::unique_ptr<ReplacementPolicy> make_lru_policy(std::size_t sets, std::size_t ways) {
  return std::make_unique<StampedPolicy<true>>(sets, ways);
}

std::unique_ptr<ReplacementPolicy> make_fifo_policy(std::size_t sets, std::size_t ways) {
  return std::make_unique<StampedPolicy<false>>(sets, ways);
}

}  // namespace hmtt::analysis
