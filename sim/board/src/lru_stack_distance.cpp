#include "hmtt/board/lru_stack_distance.h"

#include <algorithm>

namespace hmtt::board {

StackAccess LruStackDistance::access(std::uint64_t page) {
  StackAccess r;
  auto it = std::find(stack_.begin(), stack_.end(), page);
  if (it != stack_.end()) {
    r.hit = true;
    r.distance = static_cast<unsigned>(it - stack_.begin());
    std::rotate(stack_.begin(), it, it + 1);
    return r;
  }
  if (depth_ == 0) return r;
  if (stack_.size() == depth_) {
    r.evicted = true;
    r.evicted_page = stack_.back();
    stack_.pop_back();
  }
  stack_.insert(stack_.begin(), page);
  return r;
}

}  // namespace hmtt::board
