// FIFO: each way carries the time it was filled; hits do not reorder.
#include <vector>

#include "replacement_policies.h"

namespace hmtt::analysis {

namespace {
class FifoPolicy final : public ReplacementPolicy {
 public:
  FifoPolicy(std::size_t sets, std::size_t ways) : ways_(ways), stamp_(sets * ways, 0) {}
  std::string_view name() const override { return "fifo"; }
  void on_hit(std::size_t, std::size_t) override {}
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

std::unique_ptr<ReplacementPolicy> make_fifo_policy(std::size_t sets, std::size_t ways) {
  return std::make_unique<FifoPolicy>(sets, ways);
}

}  // namespace hmtt::analysis
