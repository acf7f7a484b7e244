// Random: a seeded xorshift64* generator picks the victim way.
#include "replacement_policies.h"

namespace hmtt::analysis {

namespace {
class RandomPolicy final : public ReplacementPolicy {
 public:
  RandomPolicy(std::size_t ways, std::uint64_t seed) : ways_(ways), state_(seed * 0x9e3779b97f4a7c15ULL + 1) {}
  std::string_view name() const override { return "random"; }
  void on_hit(std::size_t, std::size_t) override {}
  void on_fill(std::size_t, std::size_t) override {}
  std::size_t victim(std::size_t) override {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return static_cast<std::size_t>((state_ * 0x2545F4914F6CDD1DULL) >> 32) % ways_;
  }

 private:
  std::size_t ways_;
  std::uint64_t state_;
};
}  // namespace

std::unique_ptr<ReplacementPolicy> make_random_policy(std::size_t ways, std::uint64_t seed) {
  return std::make_unique<RandomPolicy>(ways, seed);
}

}  // namespace hmtt::analysis
