// Tree pseudo-LRU: a binary tree of ways-1 bits per set. Each bit points to
// the half that was used less recently; a use flips the bits on its path to
// point away from it, and the victim is found by following the bits.
#include <vector>

#include "replacement_policies.h"

namespace hmtt::analysis {

namespace {
class TreePlruPolicy final : public ReplacementPolicy {
 public:
  TreePlruPolicy(std::size_t sets, std::size_t ways) : ways_(ways), bits_(sets * ways, 0) {}
  std::string_view name() const override { return "plru"; }
  void on_hit(std::size_t set, std::size_t way) override { use(set, way); }
  void on_fill(std::size_t set, std::size_t way) override { use(set, way); }
  std::size_t victim(std::size_t set) override {
    const std::uint8_t* t = &bits_[set * ways_];
    std::size_t node = 1;  // heap numbering: children 2n, 2n+1; leaves ways..2*ways-1
    while (node < ways_) node = 2 * node + t[node];
    return node - ways_;
  }

 private:
  void use(std::size_t set, std::size_t way) {
    std::uint8_t* t = &bits_[set * ways_];
    std::size_t node = way + ways_;
    while (node > 1) {
      const std::size_t parent = node / 2;
      t[parent] = (node & 1) ? 0 : 1;  // point at the sibling
      node = parent;
    }
  }
  std::size_t ways_;
  std::vector<std::uint8_t> bits_;
};
}  // namespace

std::unique_ptr<ReplacementPolicy> make_tree_plru_policy(std::size_t sets, std::size_t ways) {
  return std::make_unique<TreePlruPolicy>(sets, ways);
}

}  // namespace hmtt::analysis
