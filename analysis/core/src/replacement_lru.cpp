// LRU: each way carries the time of its last use; the victim is the oldest.
#include <vector>

#include "replacement_policies.h"

namespace hmtt::analysis {

namespace {
class LruPolicy final : public ReplacementPolicy {
 public:
  LruPolicy(std::size_t sets, std::size_t ways) : ways_(ways), stamp_(sets * ways, 0) {}
  std::string_view name() const override { return "lru"; }
  void on_hit(std::size_t set, std::size_t way) override { stamp_[set * ways_ + way] = ++clock_; }
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
  return std::make_unique<LruPolicy>(sets, ways);
}

}  // namespace hmtt::analysis
